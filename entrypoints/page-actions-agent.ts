import { browser } from 'wxt/browser';
import { installPageAgent } from '@/plugins/page-actions/page/agent';
import { BAR_PORT, PAGE_AGENT_KEY, TRUSTED_INPUT_MESSAGE, type BarButton } from '@/plugins/page-actions/protocol';
import type { TrustedCommand } from '@/plugins/page-actions/cdp-input';

// Injected by the page-actions plugin into a tab's isolated world (top frame) before it reads or
// acts: installs the page agent once per document. The bar's buttons reach the background through
// a port only this world can open.
export default defineUnlistedScript(() => {
  const holder = globalThis as unknown as Record<symbol, unknown>;
  const key = Symbol.for(PAGE_AGENT_KEY);
  if (holder[key]) return;
  let port: ReturnType<typeof browser.runtime.connect> | undefined;
  const send = (button: BarButton) => {
    if (!port) {
      const opened = browser.runtime.connect({ name: BAR_PORT });
      opened.onDisconnect.addListener(() => {
        if (port === opened) port = undefined;
      });
      port = opened;
    }
    port.postMessage({ button });
  };
  holder[key] = installPageAgent({
    barButton(button) {
      try {
        send(button);
      } catch {
        // The port closed under us (Chrome's worker restarted): one new port, once.
        port = undefined;
        try {
          send(button);
        } catch {
          port = undefined;
        }
      }
    },
    // @wxt-dev/i18n writes nested keys joined by "_" (pageActions.bar.stop → pageActions_bar_stop).
    words: (name) => browser.i18n.getMessage(name.replace(/\./g, '_') as never) || name,
    // Trusted input (Chrome only): the background delivers it through its debugger, or says why not.
    ...(import.meta.env.FIREFOX
      ? {}
      : {
          async trustedInput(command: TrustedCommand) {
            const reply = (await browser.runtime.sendMessage({ type: TRUSTED_INPUT_MESSAGE, command })) as { ok?: boolean; error?: string } | undefined;
            if (reply?.ok !== true) throw new Error(`Trusted input was not delivered: ${String(reply?.error ?? 'no answer from the extension').slice(0, 300)}`);
          },
        }),
  });
});

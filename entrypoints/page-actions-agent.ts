import { browser } from 'wxt/browser';
import { installPageAgent } from '@/plugins/page-actions/page/agent';
import { BAR_PORT, PAGE_AGENT_KEY } from '@/plugins/page-actions/protocol';

// Injected by the page-actions plugin into a tab's isolated world (top frame) before it reads or
// acts: installs the page agent once per document. The bar's buttons reach the background through
// a port only this world can open.
export default defineUnlistedScript(() => {
  const holder = globalThis as unknown as Record<symbol, unknown>;
  const key = Symbol.for(PAGE_AGENT_KEY);
  if (holder[key]) return;
  let port: ReturnType<typeof browser.runtime.connect> | undefined;
  holder[key] = installPageAgent({
    barButton(button) {
      try {
        port ??= browser.runtime.connect({ name: BAR_PORT });
        port.onDisconnect.addListener(() => (port = undefined));
        port.postMessage({ button });
      } catch {
        port = undefined;
      }
    },
    words: (name) => browser.i18n.getMessage(name.replace(/\./g, '_') as never) || name,
  });
});

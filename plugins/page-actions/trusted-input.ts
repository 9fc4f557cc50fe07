import { browser, type Browser } from 'wxt/browser';
import { cdpCommands, INPUT_METHODS, type TrustedCommand } from './cdp-input';
import { TRUSTED_INPUT_MESSAGE } from './protocol';
import { trustedInputSetting } from './settings';

/**
 * Trusted input (Chrome, off by default; Settings → Page actions): clicks, keys and text through
 * `chrome.debugger` (`Input.dispatchMouseEvent`/`dispatchKeyEvent`/`insertText`), for sites that
 * check `event.isTrusted`. Chrome shows its own bar ("… started debugging this browser") while the
 * debugger is attached.
 *
 * - The gate is unchanged: an action is approved (or not) first; `begin` runs after that, attaches
 *   to the tab (before the page agent aims, so the debugging bar's resize is already done) and opens
 *   the action's window; `end` closes it. Deliveries (`deliver`, from the page agent's runtime
 *   message) are accepted only in an open window, from the top frame of that tab, while the tab still
 *   shows the approved site, and become `Input.*` commands only (`cdp-input.ts`).
 * - Detached when the run ends (Stop included), on Take over and hand_over, when the tab closes, when
 *   the setting goes off, and after `IDLE_DETACH_MS` without an action.
 * - Attaching fails (another debugger, a page Chrome forbids, the user closed Chrome's bar): the
 *   action goes on with synthetic events and its result says so.
 */

/** The protocol version asked for. */
export const PROTOCOL_VERSION = '1.3';
/** A debugger left attached without an action this long is detached (runs whose end was never heard of). */
export const IDLE_DETACH_MS = 2 * 60_000;

/** The browser around the debugger: a seam for the unit tests (the command sender is faked here). */
export interface DebuggerPort {
  /** Whether the `debugger` permission is granted (a build without it never attaches). */
  granted(): Promise<boolean>;
  attach(tabId: number): Promise<void>;
  detach(tabId: number): Promise<void>;
  send(tabId: number, method: string, params: Record<string, unknown>): Promise<unknown>;
  /** Chrome detached it (the user closed the bar: reason `canceled_by_user`; the tab closed). */
  onDetach(listener: (tabId: number, reason: string) => void): () => void;
  /** The address the tab shows now. */
  tabUrl(tabId: number): Promise<string | undefined>;
}

/** What `begin` decided for one action. */
export interface Delivery {
  trusted: boolean;
  /** Why trusted input was wanted but not used (for the action's result). */
  note?: string;
}

export interface TrustedInput {
  /** Before an action whose input may be trusted: attaches when the setting is on, opens its window. */
  begin(tabId: number, url: string): Promise<Delivery>;
  /** The action is over: no more deliveries for it. */
  end(tabId: number): void;
  /** One delivery from the page agent of `sender`'s tab; rejects with the model's words. */
  deliver(sender: Sender, command: TrustedCommand): Promise<void>;
  /** Detaches from the tab (run over, the user has the tab, the tab closed). */
  release(tabId: number, options?: { runEnded?: boolean }): Promise<void>;
  releaseAll(): Promise<void>;
  /** Tabs it is attached to now (`ctx.retained`). */
  readonly attachedTabs: number;
  dispose(): void;
}

/** Who sent a delivery (a `runtime.MessageSender`'s fields that matter). */
export interface Sender {
  id?: string;
  frameId?: number;
  url?: string;
  tab?: { id?: number };
}

interface Options {
  port: DebuggerPort;
  /** The setting's value now. */
  enabled(): Promise<boolean>;
  runtimeId: string;
  /** False in Firefox, which has no debugger for extensions: trusted input is never used there. */
  supported: boolean;
}

function originOf(url: string | undefined): string {
  try {
    const parsed = new URL(url ?? '');
    return /^https?:$/.test(parsed.protocol) ? parsed.origin : '';
  } catch {
    return '';
  }
}

export function createTrustedInput(options: Options): TrustedInput {
  const { port } = options;
  /** Tabs the debugger is attached to, with their idle timer. */
  const attached = new Map<number, { idle?: ReturnType<typeof setTimeout> }>();
  /** Open windows: the tab's approved origin, and how many actions hold it. */
  const windows = new Map<number, { origin: string; count: number }>();
  /** Tabs whose debugging bar the user closed: no attaching there again until their run ends. */
  const declined = new Set<number>();

  const stopDetachWatch = port.onDetach((tabId, reason) => {
    const idle = attached.get(tabId)?.idle;
    if (idle) clearTimeout(idle);
    attached.delete(tabId);
    if (reason === 'canceled_by_user') declined.add(tabId);
  });

  async function release(tabId: number, { runEnded = false } = {}): Promise<void> {
    if (runEnded) declined.delete(tabId);
    const state = attached.get(tabId);
    if (!state) return;
    if (state.idle) clearTimeout(state.idle);
    attached.delete(tabId);
    windows.delete(tabId);
    await port.detach(tabId).catch(() => undefined);
  }

  async function begin(tabId: number, url: string): Promise<Delivery> {
    if (!options.supported || !(await options.enabled().catch(() => false))) return { trusted: false };
    if (!(await port.granted().catch(() => false))) {
      return { trusted: false, note: 'Trusted input is on in Settings, but this copy of the extension does not have Chrome\'s "debugger" permission: synthetic events were used.' };
    }
    if (declined.has(tabId)) return { trusted: false, note: "The user closed Chrome's debugging bar in this tab: synthetic events were used (until this run ends)." };
    const origin = originOf(url);
    if (!origin) return { trusted: false, note: 'Trusted input works on http(s) pages only: synthetic events were used.' };
    let state = attached.get(tabId);
    if (!state) {
      try {
        await port.attach(tabId);
      } catch (error) {
        const why = String((error as Error)?.message ?? error).slice(0, 200);
        return { trusted: false, note: `Chrome did not let the extension attach its debugger to this tab (${why}): synthetic events were used.` };
      }
      state = {};
      attached.set(tabId, state);
    }
    if (state.idle) clearTimeout(state.idle);
    state.idle = undefined;
    const open = windows.get(tabId);
    windows.set(tabId, { origin, count: (open?.origin === origin ? open.count : 0) + 1 });
    return { trusted: true };
  }

  function end(tabId: number): void {
    const open = windows.get(tabId);
    if (open && --open.count <= 0) windows.delete(tabId);
    const state = attached.get(tabId);
    if (state && !windows.has(tabId)) {
      if (state.idle) clearTimeout(state.idle);
      state.idle = setTimeout(() => void release(tabId), IDLE_DETACH_MS);
    }
  }

  async function deliver(sender: Sender, command: TrustedCommand): Promise<void> {
    const tabId = sender.tab?.id;
    if (sender.id !== options.runtimeId || sender.frameId !== 0 || typeof tabId !== 'number') throw new Error('Only the page agent of the tab acted in may ask for trusted input.');
    const open = windows.get(tabId);
    if (!open) throw new Error('No approved action is running in this tab.');
    if (!attached.has(tabId)) throw new Error('The debugger is no longer attached to this tab (the run was stopped, the user took the tab, or closed Chrome\'s debugging bar).');
    // Checked before anything is sent: a bad point, an unknown key.
    const commands = cdpCommands(command);
    if (originOf(sender.url) !== open.origin) throw new Error('The page asking is not the page the action was approved for: nothing was sent.');
    for (const { method, params } of commands) {
      if (!(INPUT_METHODS as readonly string[]).includes(method)) throw new Error('Trusted input sends Input commands only.');
      // Right before each command: the tab still shows the approved site, and the window is open.
      if (!windows.has(tabId) || !attached.has(tabId)) throw new Error('The action ended (or was stopped) before its input was delivered.');
      if (originOf(await port.tabUrl(tabId)) !== open.origin) throw new Error('The tab left the site the action was approved for: nothing more was sent.');
      await port.send(tabId, method, params);
    }
  }

  async function releaseAll(): Promise<void> {
    await Promise.all([...attached.keys()].map((tabId) => release(tabId, { runEnded: true })));
  }

  return {
    begin,
    end,
    deliver,
    release,
    releaseAll,
    get attachedTabs() {
      return attached.size;
    },
    dispose() {
      stopDetachWatch();
      void releaseAll();
    },
  };
}

type ChromeDebugger = typeof Browser.debugger;

/** Chrome's `debugger` namespace: present only with the permission. */
function chromeDebugger(): ChromeDebugger | undefined {
  return (globalThis as { chrome?: { debugger?: ChromeDebugger } }).chrome?.debugger;
}

/** The real `DebuggerPort` (Chrome). */
export function chromeDebuggerPort(): DebuggerPort {
  const listeners = new Set<(tabId: number, reason: string) => void>();
  let listening: ChromeDebugger | undefined;
  const onDetach = (source: Browser.debugger.Debuggee, reason: string) => {
    if (typeof source.tabId === 'number') for (const listener of listeners) listener(source.tabId, reason);
  };
  /** Listened to from the first attach (the namespace exists only with the permission). */
  const listen = (api: ChromeDebugger) => {
    if (listening === api) return;
    listening = api;
    api.onDetach.addListener(onDetach);
  };
  const api = (): ChromeDebugger => {
    const found = chromeDebugger();
    if (!found) throw new Error('the "debugger" permission is not granted');
    listen(found);
    return found;
  };
  return {
    granted: () => browser.permissions.contains({ permissions: ['debugger'] }),
    attach: async (tabId) => api().attach({ tabId }, PROTOCOL_VERSION),
    detach: async (tabId) => chromeDebugger()?.detach({ tabId }),
    send: async (tabId, method, params) => api().sendCommand({ tabId }, method, params),
    onDetach(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    tabUrl: async (tabId) => {
      const tab = await browser.tabs.get(tabId).catch(() => undefined);
      return tab?.url;
    },
  };
}

/** The background's trusted input: the real debugger, the setting, the page agent's messages, and detaching when the setting goes off. */
export function setupTrustedInput(): TrustedInput {
  const supported = !import.meta.env.FIREFOX;
  const trusted = createTrustedInput({ port: chromeDebuggerPort(), enabled: () => trustedInputSetting.getValue(), runtimeId: browser.runtime.id, supported });
  if (!supported) return trusted;
  const onMessage = (message: unknown, sender: Browser.runtime.MessageSender) => {
    const m = message as { type?: unknown; command?: unknown } | null;
    if (!m || m.type !== TRUSTED_INPUT_MESSAGE) return undefined;
    return trusted.deliver(sender, m.command as TrustedCommand).then(
      () => ({ ok: true }),
      (error: unknown) => ({ ok: false, error: String((error as Error)?.message ?? error) }),
    );
  };
  browser.runtime.onMessage.addListener(onMessage);
  const unwatch = trustedInputSetting.watch((on) => {
    if (!on) void trusted.releaseAll();
  });
  const dispose = trusted.dispose;
  return Object.assign(trusted, {
    dispose() {
      browser.runtime.onMessage.removeListener(onMessage);
      unwatch();
      dispose();
    },
  });
}

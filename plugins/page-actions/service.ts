import { browser } from 'wxt/browser';
import type { PluginContext } from '@/core/plugin';
import { untrusted } from '@/core/registry/untrusted';
import { PAGE_AGENT_KEY, type PageReply, type PageRequest } from './protocol';
import { createControl, MAX_TRACKED_TABS, type ActingControl } from './control';
import { checkReply } from './replies';
import { assertScriptable, getTab, settledTab, TabError, tabUrl, watchLoads } from './tab-access';
import { setupTrustedInput, type TrustedInput } from './trusted-input';

/**
 * The plugin's background service: finds the tab a call means, injects the page agent, sends it
 * requests (`callPage`), keeps each tab's last document token, and hands the acting bar and
 * take-over to `control.ts`.
 */
export interface PageActionsService {
  /**
   * Sends one request to the tab's page agent (injecting it first), with the tab's last token when
   * the request names an element. Resolves with the agent's checked reply (`ok: false` is the
   * agent's own refusal: a stale reference, an element covered…); throws a `TabError` worded for
   * the model when the tab cannot be reached (no access, closed, navigated during the call, no
   * answer in time).
   */
  callPage<T = Record<string, unknown>>(tabId: number, request: PageRequest, options?: CallOptions): Promise<PageReply<T>>;
  /** The last document token seen in the tab (undefined before its first reply). */
  lastToken(tabId: number): string | undefined;
  control: ActingControl;
  /** Trusted input through Chrome's debugger, when the setting is on (`trusted-input.ts`). */
  trusted?: TrustedInput;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** This call's cap (default `PAGE_CALL_MS`; a `wait` gets its own timeout and some more). */
  timeoutMs?: number;
}

/** The page agent's script, as WXT builds `entrypoints/page-actions-agent.ts` (an unlisted script). */
export const AGENT_FILE = '/page-actions-agent.js';
/** How long one request to a page may take. */
export const PAGE_CALL_MS = 15_000;
/** How long a reply may still come once the tab began loading another document. */
export const NAV_REPLY_GRACE_MS = 1_000;
/** Tabs whose token is kept, at most (each dropped when its tab closes; this bounds a leak). */
export const MAX_TABS = 1_000;

/** What the run function returns when the tab's document has no agent yet. */
const MISSING = 'sidequestAgentMissing';

/**
 * Runs in the tab's isolated world (serialized by `executeScript`: self-contained). The agent is
 * looked up under its symbol; a thrown error becomes a refusal, so every outcome is a value.
 */
async function runInPage(key: string, request: unknown, missing: string): Promise<unknown> {
  const agent = (globalThis as unknown as Record<symbol, { handle?: unknown } | undefined>)[Symbol.for(key)];
  if (!agent || typeof agent.handle !== 'function') return { [missing]: true };
  try {
    return await (agent.handle as (r: unknown) => Promise<unknown>)(request);
  } catch (error) {
    return { ok: false, error: String((error as Error)?.message ?? error) };
  }
}

/** Turns what `executeScript` threw into words for the model. */
function injectionError(tabId: number, url: string, error: unknown): TabError {
  const message = (error as Error)?.message ?? String(error);
  if (/file:\/\/|file URL|Cannot access contents of url "file/i.test(message) || url.startsWith('file:')) {
    return new TabError(`Tab ${tabId} shows a local file (${url}), and the extension is not allowed to touch files. The user can allow it ("Allow access to file URLs" in the extension's details).`, 'no-access');
  }
  if (/\.pdf($|[?#])/i.test(url)) return new TabError(`Tab ${tabId} shows a PDF (${url}) in the browser's viewer, where extensions cannot act. Ask the user.`, 'no-access');
  if (/error page|chrome-error|showing error page/i.test(message)) {
    return new TabError(`Tab ${tabId} shows the browser's error page (the page failed to load). Navigate it again, or to another address.`, 'no-access');
  }
  if (/Missing host permission|Cannot access|cannot be scripted|not allowed|extensions gallery|privileged|permission/i.test(message)) {
    return new TabError(`The browser does not let the extension act in tab ${tabId} (${url}). Ask the user to do this part themselves.`, 'no-access');
  }
  if (/No tab with id|Invalid tab ID|tab.*(closed|not found)/i.test(message)) {
    return new TabError(`Tab ${tabId} does not exist any more (it was closed). List the open tabs to find the one you mean.`, 'closed');
  }
  // The browser's words, normally; enveloped all the same (a page can make a script's promise fail).
  return new TabError(`Could not reach the page in tab ${tabId} (${url}). What the browser said: ${untrusted(`error from tab ${tabId}`, message)}`, 'failed');
}

/** Rejects after `ms` (with `onTimeout`'s error) or when `signal` aborts; else settles as `work` does. */
function capped<T>(work: Promise<T>, ms: number, onTimeout: () => Error, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(onTimeout())), ms);
    const onAbort = () => finish(() => reject(new TabError('Stopped.', 'failed')));
    let done = false;
    function finish(fn: () => void) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    }
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then((value) => finish(() => resolve(value)), (error) => finish(() => reject(error)));
  });
}

/** A map of the last token per tab, bounded (the oldest tab's goes first past `max`). */
export function createTokenStore(max = MAX_TABS) {
  const tokens = new Map<number, string>();
  return {
    get: (tabId: number) => tokens.get(tabId),
    set(tabId: number, token: string) {
      tokens.delete(tabId);
      tokens.set(tabId, token);
      if (tokens.size > max) tokens.delete(tokens.keys().next().value as number);
    },
    delete: (tabId: number) => tokens.delete(tabId),
    get size() {
      return tokens.size;
    },
  };
}

/** The page caller alone (no control): what the tools and `control.ts` use to reach a tab's agent. */
export function createPageCaller(): Pick<PageActionsService, 'callPage' | 'lastToken'> & { dispose(): void; tokenCount(): number } {
  const tokens = createTokenStore();
  const onRemoved = (tabId: number) => void tokens.delete(tabId);
  browser.tabs.onRemoved.addListener(onRemoved);

  async function execute(tabId: number, request: PageRequest): Promise<unknown> {
    const [frame] = await browser.scripting.executeScript({ target: { tabId }, func: runInPage, args: [PAGE_AGENT_KEY, request, MISSING] });
    return frame?.result;
  }

  async function callPage<T>(tabId: number, request: PageRequest, options: CallOptions = {}): Promise<PageReply<T>> {
    let tab = await getTab(tabId);
    assertScriptable(tab);
    tab = await settledTab(tab, options.signal);
    assertScriptable(tab);
    const url = tabUrl(tab);
    const token = tokens.get(tabId);
    // The token matters only where the request names an element: that is what goes stale. A read
    // of the whole page, a key press on whatever has focus, the bar: they work on any document.
    const sent: PageRequest = request.token === undefined && token && 'ref' in request && request.ref ? { ...request, token } : request;
    const cap = options.timeoutMs ?? (request.op === 'wait' ? request.timeoutMs + 5_000 : PAGE_CALL_MS);
    const watch = watchLoads(tabId, url);
    const navigated = () => new TabError(`The page in tab ${tabId} navigated while the action ran (it was ${url}); its element references are no longer valid. Call read_page to see the page it shows now.`, 'navigated');
    let raw: unknown;
    try {
      const work = (async () => {
        let result = await execute(tabId, sent);
        if (result && typeof result === 'object' && (result as Record<string, unknown>)[MISSING] === true) {
          await browser.scripting.executeScript({ target: { tabId }, files: [AGENT_FILE] });
          result = await execute(tabId, sent);
        }
        return result;
      })();
      // A document that goes away under the call may never answer (Firefox): once a load has
      // begun, the reply gets a moment to arrive, then the call is over.
      const gone = new Promise<never>((_, reject) => {
        void watch.loadingWithin(cap).then((seen) => seen && setTimeout(() => reject(navigated()), NAV_REPLY_GRACE_MS));
      });
      raw = await capped(Promise.race([work, gone]), cap, () => (watch.started ? navigated() : new TabError(`The page in tab ${tabId} did not answer within ${Math.round(cap / 1000)} s (it may be busy). Try again, or read the page to see its state.`, 'timeout')), options.signal);
    } catch (error) {
      if (error instanceof TabError && error.kind !== 'failed') throw error;
      if (watch.removed) throw new TabError(`Tab ${tabId} was closed while the action ran.`, 'closed');
      if (watch.started) throw navigated();
      if (error instanceof TabError) throw error;
      throw injectionError(tabId, url, error);
    } finally {
      watch.stop();
    }
    const reply = checkReply(request, raw);
    if (!reply) {
      // The document went away under the call (Firefox answers nothing then).
      if (watch.started || raw === undefined || raw === null) {
        const now = await browser.tabs.get(tabId).catch(() => undefined);
        if (!now) throw new TabError(`Tab ${tabId} was closed while the action ran.`, 'closed');
        if (watch.started || now.status === 'loading' || tabUrl(now) !== url) throw navigated();
      }
      throw new TabError(`The page agent in tab ${tabId} gave an answer that cannot be used. Call read_page and try again.`, 'failed');
    }
    // The bar's replies show the model no references: taking their token would make a reference
    // read before a navigation the agent did not see (the person's) look fresh.
    if (reply.ok && reply.token && request.op !== 'bar') tokens.set(tabId, reply.token);
    return reply as PageReply<T>;
  }

  return {
    callPage,
    lastToken: (tabId) => tokens.get(tabId),
    tokenCount: () => tokens.size,
    dispose: () => browser.tabs.onRemoved.removeListener(onRemoved),
  };
}

export function setupPageActions(ctx: PluginContext): { service: PageActionsService; dispose(): void } {
  const caller = createPageCaller();
  const trusted = setupTrustedInput();
  // The debugger lets go of a tab when its run ends (Stop too), when the user has it, when it closes.
  const control = createControl(ctx, caller.callPage, undefined, (tabId, runEnded) => void trusted.release(tabId, { runEnded }));
  // While the user has a tab, every call that touches it waits (the gate holds it): page scripts,
  // page tools and tab tools too, not only this plugin's actions.
  ctx.holdTabs(control);
  ctx.retained('tabTokens', () => caller.tokenCount(), MAX_TABS);
  ctx.retained('controlledTabs', () => control.trackedTabs, MAX_TRACKED_TABS);
  ctx.retained('debuggedTabs', () => trusted.attachedTabs);
  return {
    service: { callPage: caller.callPage, lastToken: caller.lastToken, control, trusted },
    dispose: () => {
      caller.dispose();
      control.dispose();
      trusted.dispose();
    },
  };
}

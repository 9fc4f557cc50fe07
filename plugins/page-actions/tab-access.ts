import { browser, type Browser } from 'wxt/browser';
import { userTab } from '@/core/agent/user-tab';
import { closedPageReason, TabLoadError, waitForTabLoad } from '@/core/tabs/access';

/**
 * The tabs the page-actions tools work in: which one a call means, whether an extension may script
 * it at all (`core/tabs/access.ts`, shared with the other plugins that work in tabs), and its loads
 * (waiting for one, noticing one that an action started).
 */

type Tab = Browser.tabs.Tab;

/** How long a call waits for a tab that is still loading before it works on it anyway. */
export const LOAD_WAIT_MS = 15_000;

/** An error the tools hand the model as it is: `kind` says what went wrong with the tab. */
export class TabError extends Error {
  override name = 'TabError';
  constructor(
    message: string,
    readonly kind: 'no-access' | 'closed' | 'navigated' | 'timeout' | 'failed' | 'no-tab',
  ) {
    super(message);
  }
}

/** The address of a tab, as the browser knows it (a navigation under way: where it goes). */
export function tabUrl(tab: Tab): string {
  return tab.url || tab.pendingUrl || '';
}

/** The tab, or an error that tells the model how to recover. */
export async function getTab(tabId: number): Promise<Tab> {
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  if (tab) return tab;
  throw new TabError(`Tab ${tabId} does not exist (it may have been closed). List the open tabs to find the one you mean.`, 'closed');
}

/**
 * The tab a call works in: `tab_id`, else the tab the run or the approval card is bound to
 * (`context.tabId`), else the tab the user is looking at.
 */
export async function resolveTab(tabId: number | undefined, contextTabId: number | undefined): Promise<Tab> {
  const id = tabId ?? contextTabId;
  if (id !== undefined) return getTab(id);
  const tab = await userTab();
  if (!tab?.id) throw new TabError('There is no tab to work in: the user has no web page open. Give tab_id, or open a page first.', 'no-tab');
  return tab;
}

/** Throws the model's error when no extension may script the tab. */
export function assertScriptable(tab: Tab): void {
  const url = tabUrl(tab);
  const reason = closedPageReason(url, 'act on');
  if (reason) {
    throw new TabError(`The extension cannot read or act in tab ${tab.id} (${url || 'no address'}): ${reason}. Ask the user to open an ordinary web page, or to do this part themselves.`, 'no-access');
  }
}

/**
 * Watches one tab's loads from now on, so a call can tell whether an action made the page
 * navigate (a link, a form post, a key that submits) and wait for the new page. Same-document
 * changes of the address (a hash, `history.pushState`) count too: the caller compares document
 * tokens to tell them apart.
 */
export interface LoadWatch {
  /** A load started (or the address changed) since the watch began. */
  readonly started: boolean;
  /** A document load started (status `loading`: the document is being replaced or reloaded). */
  readonly loading: boolean;
  /** The tab was closed since the watch began. */
  readonly removed: boolean;
  /** Resolves true as soon as a load starts, or false after `ms`. */
  startedWithin(ms: number, signal?: AbortSignal): Promise<boolean>;
  /** Resolves true as soon as a document load starts (not a mere change of address), or false after `ms`. */
  loadingWithin(ms: number, signal?: AbortSignal): Promise<boolean>;
  /**
   * Resolves with the tab once a load that started during the watch has completed (or, past
   * `timeoutMs`, with the tab as it is). Rejects when the tab is closed or `signal` aborts.
   */
  loaded(timeoutMs: number, signal?: AbortSignal): Promise<Tab>;
  stop(): void;
}

export function watchLoads(tabId: number, startUrl?: string): LoadWatch {
  let started = false;
  let loading = false;
  let complete = false;
  let removed = false;
  let last: Tab | undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const onUpdated = (id: number, info: Browser.tabs.OnUpdatedInfo, tab: Tab) => {
    if (id !== tabId) return;
    last = tab;
    if (info.status === 'loading') loading = true;
    if (info.status === 'loading' || (info.url !== undefined && info.url !== startUrl)) {
      started = true;
      complete = false;
    }
    if (info.status === 'complete' && started) complete = true;
    wake();
  };
  const onRemoved = (id: number) => {
    if (id !== tabId) return;
    removed = true;
    wake();
  };
  browser.tabs.onUpdated.addListener(onUpdated);
  browser.tabs.onRemoved.addListener(onRemoved);

  /** Waits until `done()` or `ms` or abort; resolves with whether `done()` held. */
  const until = (done: () => boolean, ms: number, signal?: AbortSignal) =>
    new Promise<boolean>((resolve, reject) => {
      if (done()) return resolve(true);
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const check = () => {
        if (done()) finish(() => resolve(true));
      };
      const onAbort = () => finish(() => reject(new TabError('Stopped while waiting for the page.', 'failed')));
      const timer = setTimeout(() => finish(() => resolve(false)), ms);
      waiters.add(check);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });

  return {
    get started() {
      return started;
    },
    get loading() {
      return loading;
    },
    get removed() {
      return removed;
    },
    startedWithin: (ms, signal) => until(() => started || removed, ms, signal),
    loadingWithin: (ms, signal) => until(() => loading || removed, ms, signal),
    async loaded(timeoutMs, signal) {
      // A load that finished between the watch's events and now: the tab says so itself.
      // A load whose `complete` came before this wait, or never comes as an event (some
      // same-document changes): the tab's own status says so.
      const look = () =>
        void browser.tabs.get(tabId).then((tab) => {
          last = tab;
          if (started && tab.status === 'complete') {
            complete = true;
            wake();
          }
        }, () => undefined);
      look();
      const poll = setInterval(look, 250);
      try {
        await until(() => complete || removed, timeoutMs, signal);
      } finally {
        clearInterval(poll);
      }
      if (removed) throw new TabError(`Tab ${tabId} was closed.`, 'closed');
      return browser.tabs.get(tabId).catch(() => {
        if (last) return last;
        throw new TabError(`Tab ${tabId} was closed.`, 'closed');
      });
    },
    stop() {
      browser.tabs.onUpdated.removeListener(onUpdated);
      browser.tabs.onRemoved.removeListener(onRemoved);
      waiters.clear();
    },
  };
}

/** Waits for a tab that is still loading (capped): the page agent needs a document to work on. */
export async function settledTab(tab: Tab, signal?: AbortSignal, timeoutMs = LOAD_WAIT_MS): Promise<Tab> {
  if (tab.status !== 'loading' || tab.id === undefined) return tab;
  try {
    return await waitForTabLoad(tab.id, timeoutMs, signal);
  } catch (error) {
    throw error instanceof TabLoadError ? new TabError(error.message, error.kind === 'closed' ? 'closed' : 'failed') : error;
  }
}

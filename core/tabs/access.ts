import { browser, type Browser } from 'wxt/browser';

/**
 * What every plugin that works in tabs needs to know the same way: which pages no extension may
 * read or script, and waiting for a tab's page to load. One copy, so a page the browsers close to
 * extensions is refused by every tool in the same words.
 */

type Tab = Browser.tabs.Tab;

/** Sites whose pages browsers never let extensions script. */
const STORE_HOSTS = [
  { host: 'chromewebstore.google.com', name: 'the Chrome Web Store' },
  { host: 'chrome.google.com', path: '/webstore', name: 'the Chrome Web Store' },
  { host: 'addons.mozilla.org', name: 'Firefox Add-ons (addons.mozilla.org)' },
  { host: 'microsoftedge.microsoft.com', path: '/addons', name: 'the Edge Add-ons store' },
];

/** Firefox's list of domains extensions may not touch (extensions.webextensions.restrictedDomains). */
const FIREFOX_RESTRICTED = new Set([
  'accounts-static.cdn.mozilla.net',
  'accounts.firefox.com',
  'addons.cdn.mozilla.net',
  'api.accounts.firefox.com',
  'content.cdn.mozilla.net',
  'discovery.addons.mozilla.org',
  'install.mozilla.org',
  'oauth.accounts.firefox.com',
  'profile.accounts.firefox.com',
  'support.mozilla.org',
  'sync.services.mozilla.com',
]);

/** What the tool would do in the page, in the reason's words: "which no extension may read". */
export type PageUse = 'read' | 'act on' | 'script';

/**
 * Why no extension may `use` a tab showing this address, or null if it may try. Browser pages,
 * other extensions, the add-on stores, `view-source:`, `data:`… are closed to every extension; a
 * local file (`file:`) is tried (the user may have allowed file access; the injection says if not).
 */
export function closedPageReason(rawUrl: string, use: PageUse, firefox: boolean = import.meta.env.FIREFOX): string | null {
  if (!rawUrl) return 'its address is not known (the tab may still be opening)';
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return `its address (${rawUrl}) is not a web address`;
  }
  switch (url.protocol) {
    case 'http:':
    case 'https:':
      break;
    case 'file:':
      return null;
    case 'chrome-extension:':
    case 'moz-extension:':
    case 'extension:':
      return `it is a page of a browser extension, which other extensions may not ${use}`;
    case 'view-source:':
      return `it shows the source of a page (view-source:), which extensions may not ${use}; open the page itself, or fetch its address instead`;
    case 'about:':
    case 'chrome:':
    case 'edge:':
    case 'brave:':
    case 'opera:':
    case 'vivaldi:':
    case 'chrome-untrusted:':
    case 'chrome-search:':
    case 'devtools:':
    case 'resource:':
    case 'jar:':
      return `it is a page of the browser itself (${url.protocol}), which no extension may ${use}`;
    default:
      return `its address uses ${url.protocol}, which extensions may not ${use}`;
  }
  const host = url.hostname.toLowerCase();
  const store = STORE_HOSTS.find((s) => s.host === host && (!s.path || url.pathname.startsWith(s.path)));
  if (store) return `it is ${store.name}, where browsers do not let extensions ${use} pages`;
  if (firefox && FIREFOX_RESTRICTED.has(host)) return `Firefox does not let extensions ${use} pages on ${host}`;
  return null;
}

/** Why waiting for a load failed: the tab closed, or the call was stopped. */
export class TabLoadError extends Error {
  override name = 'TabLoadError';
  constructor(
    message: string,
    readonly kind: 'closed' | 'stopped',
  ) {
    super(message);
  }
}

/**
 * Resolves with the tab once its page has loaded, or after `timeoutMs` with the tab as it is (a
 * page that never finishes loading can still be read). A new tab that still shows `about:blank`
 * has not begun its load yet. Rejects with a `TabLoadError` when the tab closes or `signal` stops.
 */
export function waitForTabLoad(tabId: number, timeoutMs: number, signal?: AbortSignal): Promise<Tab> {
  const loaded = (tab: Tab) => tab.status !== 'loading' && tab.url !== 'about:blank';
  const closed = (why = 'was closed while its page was loading') => new TabLoadError(`Tab ${tabId} ${why}.`, 'closed');
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      browser.tabs.onUpdated.removeListener(onUpdated);
      browser.tabs.onRemoved.removeListener(onRemoved);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onUpdated = (id: number, info: Browser.tabs.OnUpdatedInfo, tab: Tab) => {
      if (id === tabId && info.status === 'complete') finish(() => resolve(tab));
    };
    const onRemoved = (id: number) => {
      if (id === tabId) finish(() => reject(closed()));
    };
    const onAbort = () => finish(() => reject(new TabLoadError('Stopped while waiting for the page to load.', 'stopped')));
    const timer = setTimeout(
      () => finish(() => void browser.tabs.get(tabId).then(resolve, () => reject(closed('was closed')))),
      timeoutMs,
    );
    browser.tabs.onUpdated.addListener(onUpdated);
    browser.tabs.onRemoved.addListener(onRemoved);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    // The load may have finished before the listener was added.
    browser.tabs.get(tabId).then(
      (tab) => loaded(tab) && finish(() => resolve(tab)),
      () => finish(() => reject(closed('was closed'))),
    );
  });
}

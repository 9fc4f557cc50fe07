import { browser } from 'wxt/browser';
import type { RedirectWatch } from './fetch';

/** How long an `opaqueredirect` answer waits for its headers to be reported. */
const SEEN_WITHIN_MS = 3_000;

function withoutHash(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

type HeadersDetails = {
  url: string;
  tabId: number;
  statusCode: number;
  responseHeaders?: { name: string; value?: string }[];
};

/**
 * Shows `web_fetch` where a redirect points. A fetch with `redirect: 'manual'` answers an
 * extension with an `opaqueredirect` (status 0, no headers) in Chromium and Firefox; the
 * response's own headers, `Location` among them, still pass through `webRequest.onHeadersReceived`
 * (an observer, no blocking needed, in both browsers and both manifest versions). So a watch is
 * set on the address before it is requested, and the redirect is followed by hand to the address
 * the watch saw, after that address has been checked like the first one.
 *
 * Null where the browser has no webRequest API (tests outside a browser).
 */
export function webRequestRedirects(): RedirectWatch | undefined {
  const api = (browser as unknown as { webRequest?: typeof browser.webRequest }).webRequest;
  if (!api?.onHeadersReceived) return undefined;
  return (url) => {
    const wanted = withoutHash(url);
    let found: ((location: string | null) => void) | undefined;
    let seen: string | null | undefined;
    const listener = (details: HeadersDetails) => {
      // The extension's own requests have no tab (-1); a page's request for the same URL is not ours.
      if (details.tabId !== -1 || withoutHash(details.url) !== wanted) return;
      if (details.statusCode < 300 || details.statusCode >= 400) return;
      const header = details.responseHeaders?.find((h) => h.name.toLowerCase() === 'location');
      seen = header?.value ?? null;
      found?.(seen);
    };
    api.onHeadersReceived.addListener(listener as never, { urls: ['<all_urls>'], tabId: -1 }, ['responseHeaders']);
    const stop = () => api.onHeadersReceived.removeListener(listener as never);
    return {
      location: () =>
        seen !== undefined
          ? Promise.resolve(seen)
          : new Promise<string | null>((resolve) => {
              const timer = setTimeout(() => resolve(null), SEEN_WITHIN_MS);
              found = (location) => {
                clearTimeout(timer);
                resolve(location);
              };
            }),
      stop,
    };
  };
}

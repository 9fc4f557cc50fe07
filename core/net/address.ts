import { browser } from 'wxt/browser';
import { addressKind, type LocalNetworkKind } from './local-network';

/**
 * What the browser tells the extension about where its own requests go, for the local-network
 * rule: a public-looking name (`127.0.0.1.nip.io`, `fritz.box`, an intranet name) may lead into
 * the user's network, and only the address shows it.
 *
 * - Firefox resolves a name for extensions (`dns.resolve`, the `dns` permission): the address is
 *   known before anything is sent.
 * - Chrome cannot: the address is known once the server answered (`webRequest` reports the `ip`
 *   the response came from), so there the answer is withheld instead.
 *
 * Both browsers report the answering address, so it is checked in both (in Firefox it also catches
 * a name that resolved differently the second time).
 */
export interface AddressProbe {
  /** The addresses a host name resolves to (Firefox). Absent where the browser cannot resolve. */
  resolve?(host: string): Promise<string[]>;
  /**
   * Watches the extension's next request of `url` (set before it is made). Absent outside a
   * browser (unit tests), where nothing can be watched.
   */
  watch?(url: string): RequestWatch;
}

/** What the browser reported about one request. */
export interface RequestWatch {
  /** Where a redirect answer points: browsers hide it from the fetch itself (`opaqueredirect`). */
  location(): Promise<string | null>;
  /** The IP address the answer came from; null when the browser did not say within `SEEN_WITHIN_MS`. */
  address(): Promise<string | null>;
  stop(): void;
}

/** A local address among `addresses`, with its kind (the first one found), or null. */
export function localAddressIn(addresses: readonly string[]): { ip: string; kind: LocalNetworkKind } | null {
  for (const ip of addresses) {
    const kind = addressKind(ip);
    if (kind) return { ip, kind };
  }
  return null;
}

/**
 * Resolves `host` with `probe` and returns a local address it leads to, or null (a public host, an
 * IP literal, a browser that cannot resolve, or a name that does not resolve: the request itself
 * will then fail, and the answering address is still checked).
 */
export async function resolvesLocal(probe: AddressProbe | undefined, host: string): Promise<{ ip: string; kind: LocalNetworkKind } | null> {
  if (!probe?.resolve) return null;
  const name = host.replace(/^\[|\]$/g, '');
  // An address in the URL is judged by its name already.
  if (addressKind(name) !== null || /^[\d.]+$/.test(name) || name.includes(':')) return null;
  let addresses: string[];
  try {
    addresses = await probe.resolve(name);
  } catch {
    return null;
  }
  return localAddressIn(addresses);
}

/** How long an answer waits for the browser to report its redirect target or address. */
export const SEEN_WITHIN_MS = 3_000;

function withoutHash(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

type Details = {
  url: string;
  tabId: number;
  statusCode?: number;
  ip?: string;
  redirectUrl?: string;
  responseHeaders?: { name: string; value?: string }[];
};

/** A value reported once by a browser event, waited for at most `SEEN_WITHIN_MS`. */
function reported<T>() {
  let seen: { value: T } | undefined;
  let resolvers: Array<(value: T | null) => void> = [];
  return {
    set(value: T) {
      if (seen) return;
      seen = { value };
      for (const resolve of resolvers) resolve(value);
      resolvers = [];
    },
    get: (): Promise<T | null> =>
      seen
        ? Promise.resolve(seen.value)
        : new Promise<T | null>((resolve) => {
            const timer = setTimeout(() => resolve(null), SEEN_WITHIN_MS);
            resolvers.push((value) => {
              clearTimeout(timer);
              resolve(value);
            });
          }),
  };
}

/**
 * The browser's `AddressProbe`: `dns.resolve` where there is one (Firefox), and a `webRequest`
 * observer on the extension's own requests (tab -1; no blocking needed, in both browsers and both
 * manifest versions). Which event carries what, seen in Chromium 156 and Firefox ESR 153:
 * - the answering `ip`: Chrome in `onResponseStarted`, `onBeforeRedirect` (a redirect, even one the
 *   fetch does not follow) and `onErrorOccurred`; Firefox also in `onHeadersReceived`;
 * - a redirect's `Location`: `onHeadersReceived` with its headers (both), `onBeforeRedirect`'s
 *   `redirectUrl` (Chrome).
 */
export function browserAddressProbe(): AddressProbe {
  // Looked up at each use, not here: the first touch of an API namespace makes its bindings, and
  // this runs at every start of Chrome's worker (bench/evaluation.mjs).
  const dns = () => (browser as unknown as { dns?: { resolve(host: string): Promise<{ addresses: string[] }> } }).dns;
  const api = () => (browser as unknown as { webRequest?: typeof browser.webRequest }).webRequest;
  return {
    get resolve() {
      const found = dns();
      return found?.resolve ? async (host: string) => (await found.resolve(host)).addresses ?? [] : undefined;
    },
    get watch() {
      const found = api();
      return found?.onHeadersReceived ? (url: string) => watchRequest(found, url) : undefined;
    },
  };
}

function watchRequest(api: typeof browser.webRequest, url: string): RequestWatch {
  const wanted = withoutHash(url);
  const location = reported<string | null>();
  const address = reported<string>();
  const ours = (details: Details) => details.tabId === -1 && withoutHash(details.url) === wanted;
  const onHeaders = (details: Details) => {
    // The extension's own requests have no tab (-1); a page's request for the same URL is not ours.
    if (!ours(details)) return;
    if (details.ip) address.set(details.ip);
    const status = details.statusCode ?? 0;
    if (status < 300 || status >= 400) return;
    const header = details.responseHeaders?.find((h) => h.name.toLowerCase() === 'location');
    location.set(header?.value ?? null);
  };
  const onAddress = (details: Details) => {
    if (!ours(details)) return;
    if (details.ip) address.set(details.ip);
    if (details.redirectUrl) location.set(details.redirectUrl);
  };
  const filter = { urls: ['<all_urls>'], tabId: -1 };
  api.onHeadersReceived.addListener(onHeaders as never, filter, ['responseHeaders']);
  api.onResponseStarted.addListener(onAddress as never, filter);
  api.onBeforeRedirect.addListener(onAddress as never, filter);
  api.onErrorOccurred.addListener(onAddress as never, filter);
  return {
    location: location.get,
    address: address.get,
    stop() {
      api.onHeadersReceived.removeListener(onHeaders as never);
      api.onResponseStarted.removeListener(onAddress as never);
      api.onBeforeRedirect.removeListener(onAddress as never);
      api.onErrorOccurred.removeListener(onAddress as never);
    },
  };
}

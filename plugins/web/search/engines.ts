import { resolvesLocal, type AddressProbe } from '@/core/net/address';
import { addressKind, localNetworkKind } from '@/core/net/local-network';
import { isBaiduRedirect, type HtmlEngineId, type SearchPage, type SearchResult } from './parse';

export type { SearchResult } from './parse';

/** The search engines `web_search` can use; the user picks one in Settings → Search engines. */
export type SearchEngineId = 'duckduckgo' | 'bing' | 'baidu' | 'google';

export const SEARCH_ENGINES: Record<SearchEngineId, { name: string; needsApiKey: boolean; needsCseId: boolean }> = {
  duckduckgo: { name: 'DuckDuckGo', needsApiKey: false, needsCseId: false },
  bing: { name: 'Bing', needsApiKey: true, needsCseId: false },
  baidu: { name: 'Baidu', needsApiKey: false, needsCseId: false },
  google: { name: 'Google Custom Search', needsApiKey: true, needsCseId: true },
};

export const SEARCH_ENGINE_IDS = Object.keys(SEARCH_ENGINES) as SearchEngineId[];

/** Where each engine is asked. Tests may point these at local servers (see `endpoints.ts`). */
export const DEFAULT_ENDPOINTS: Record<SearchEngineId, string> = {
  duckduckgo: 'https://html.duckduckgo.com/html/',
  bing: 'https://api.bing.microsoft.com/v7.0/search',
  baidu: 'https://www.baidu.com/s',
  google: 'https://www.googleapis.com/customsearch/v1',
};

export const DEFAULT_RESULTS = 5;
export const MAX_RESULTS = 10;
const MAX_QUERY_CHARS = 400;
const SEARCH_TIMEOUT_MS = 20_000;
const REDIRECT_TIMEOUT_MS = 6_000;
/** Baidu's own redirect hops followed at most for one result link. */
const MAX_BAIDU_HOPS = 5;

/** A search that failed; the message names the engine and says what to do. */
export class SearchError extends Error {
  override name = 'SearchError';
  constructor(
    readonly engine: SearchEngineId,
    message: string,
  ) {
    super(message);
  }
}

export interface SearchConfig {
  engine: SearchEngineId;
  /** Bing's subscription key or Google's API key. */
  apiKey?: string;
  /** Google's search engine ID (`cx`). */
  cseId?: string;
  /** The engine's address (the default, or a test server's). */
  endpoint: string;
}

export interface SearchDeps {
  fetch: typeof fetch;
  /** Reads an HTML results page; needs a DOM (see core/dom). */
  parsePage(engine: HtmlEngineId, html: string, url: string): Promise<SearchPage>;
  /**
   * What the browser tells about addresses (core/net/address.ts): Baidu's redirect links are
   * followed hop by hop, and a hop whose address is on the user's network is not requested (or its
   * answer not used). Absent outside a browser.
   */
  probe?: AddressProbe;
}

/** 5 by default; anything above 10 is 10, anything below 1 is 1. Larger asks are clamped, not refused. */
export function clampResults(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return DEFAULT_RESULTS;
  return Math.min(MAX_RESULTS, Math.max(1, Math.round(value)));
}

/** Runs one search with the engine the settings name. Throws `SearchError`, never returns a made-up empty list. */
export async function search(query: string, count: number, config: SearchConfig, deps: SearchDeps, signal?: AbortSignal): Promise<SearchResult[]> {
  const name = SEARCH_ENGINES[config.engine].name;
  const q = query.replace(/\s+/g, ' ').trim();
  if (!q) throw new SearchError(config.engine, 'The query is empty: give the words to search for.');
  if (q.length > MAX_QUERY_CHARS) {
    throw new SearchError(config.engine, `The query is ${q.length} characters long; ${name} takes at most ${MAX_QUERY_CHARS}. Search with fewer, more specific words.`);
  }
  const n = clampResults(count);
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    switch (config.engine) {
      case 'duckduckgo':
        return await searchDuckDuckGo(q, n, config, deps, combined);
      case 'bing':
        return await searchBing(q, n, config, deps, combined);
      case 'baidu':
        return await searchBaidu(q, n, config, deps, combined);
      case 'google':
        return await searchGoogle(q, n, config, deps, combined);
    }
  } catch (error) {
    if (error instanceof SearchError) throw error;
    if (signal?.aborted) throw error;
    if (timeout.aborted) {
      throw new SearchError(config.engine, `${name} did not answer within ${SEARCH_TIMEOUT_MS / 1000} s. Try again in a moment.`);
    }
    throw new SearchError(config.engine, `${name} could not be reached (${(error as Error)?.message ?? error}). Check the network connection, then try again.`);
  }
}

async function request(config: SearchConfig, deps: SearchDeps, url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
  return deps.fetch(url, { ...init, signal, credentials: 'omit', redirect: 'follow' });
}

/** Words for an HTTP error, with the engine's own message when it sent one. */
function httpError(engine: SearchEngineId, status: number, detail: string | undefined): SearchError {
  const name = SEARCH_ENGINES[engine].name;
  const said = detail ? ` It said: "${detail.slice(0, 300)}"` : '';
  if (status === 401 || status === 403) {
    const what = SEARCH_ENGINES[engine].needsApiKey
      ? `refused the API key (HTTP ${status}).${said} The user must check the key in Settings → Agent → Search engines.`
      : `refused the request (HTTP ${status}).${said} It may be blocking automated searches; try again later, or the user can pick another engine in Settings → Agent → Search engines.`;
    return new SearchError(engine, `${name} ${what}`);
  }
  if (status === 429) return new SearchError(engine, `${name} is limiting requests (HTTP 429).${said} Wait a minute before searching again.`);
  if (status >= 500) return new SearchError(engine, `${name} had a server error (HTTP ${status}).${said} Try again in a moment.`);
  return new SearchError(engine, `${name} answered HTTP ${status}.${said}`);
}

async function jsonBody(response: Response): Promise<any> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

function missing(engine: SearchEngineId, what: string): SearchError {
  const name = SEARCH_ENGINES[engine].name;
  return new SearchError(
    engine,
    `${name} needs ${what}, and none is set. Tell the user to add it in Settings → Agent → Search engines, or to choose DuckDuckGo there, which needs no key.`,
  );
}

function unrecognized(engine: SearchEngineId, detail: string): SearchError {
  const name = SEARCH_ENGINES[engine].name;
  return new SearchError(
    engine,
    `${name}'s answer could not be read (${detail}); its page layout or API may have changed. Try again later, or the user can pick another engine in Settings → Agent → Search engines.`,
  );
}

function fromPage(engine: SearchEngineId, page: SearchPage, n: number): SearchResult[] {
  const name = SEARCH_ENGINES[engine].name;
  switch (page.kind) {
    case 'results':
      return page.results.slice(0, n);
    case 'empty':
      return [];
    case 'blocked':
      throw new SearchError(
        engine,
        `${name} blocked the search with a CAPTCHA or bot check: ${page.detail} Wait a while before searching again, or the user can pick another engine in Settings → Agent → Search engines.`,
      );
    case 'unrecognized':
      throw unrecognized(engine, page.detail);
  }
}

// ——— DuckDuckGo: the no-JavaScript results page, asked as its own form asks it (POST) ———

async function searchDuckDuckGo(q: string, n: number, config: SearchConfig, deps: SearchDeps, signal: AbortSignal): Promise<SearchResult[]> {
  const body = new URLSearchParams({ q, b: '', kl: '' });
  const response = await request(config, deps, config.endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html' },
    body: body.toString(),
  }, signal);
  const html = await response.text();
  // The bot check answers (202 or 403) with its challenge page: say so rather than "HTTP 403".
  const page = await deps.parsePage('duckduckgo', html, response.url || config.endpoint);
  if (page.kind !== 'blocked' && !response.ok) throw httpError('duckduckgo', response.status, undefined);
  return fromPage('duckduckgo', page, n);
}

// ——— Bing Web Search API v7 ———

async function searchBing(q: string, n: number, config: SearchConfig, deps: SearchDeps, signal: AbortSignal): Promise<SearchResult[]> {
  if (!config.apiKey) throw missing('bing', 'an API key (Bing Web Search subscription key)');
  const url = new URL(config.endpoint);
  url.searchParams.set('q', q);
  url.searchParams.set('count', String(n));
  url.searchParams.set('textDecorations', 'false');
  url.searchParams.set('textFormat', 'Raw');
  url.searchParams.set('responseFilter', 'Webpages');
  const response = await request(config, deps, url.href, { headers: { 'Ocp-Apim-Subscription-Key': config.apiKey, Accept: 'application/json' } }, signal);
  const body = await jsonBody(response);
  if (!response.ok) {
    const detail: string | undefined = body?.error?.message ?? body?.errors?.[0]?.message;
    throw httpError('bing', response.status, detail);
  }
  if (!body || typeof body !== 'object') throw unrecognized('bing', 'the answer was not JSON');
  if (body._type === 'ErrorResponse') {
    throw new SearchError('bing', `Bing refused the search: ${body.errors?.[0]?.message ?? 'no reason given'}.`);
  }
  if (body._type !== 'SearchResponse') throw unrecognized('bing', 'the answer was not a SearchResponse');
  const pages = body.webPages?.value;
  if (pages === undefined) return [];
  if (!Array.isArray(pages)) throw unrecognized('bing', 'webPages.value is not a list');
  return pages
    .filter((p: any) => typeof p?.url === 'string' && /^https?:\/\//i.test(p.url))
    .slice(0, n)
    .map((p: any) => ({ title: String(p.name ?? ''), url: p.url as string, snippet: String(p.snippet ?? '') }));
}

// ——— Baidu: its results page; result links are redirects, followed to the real address ———

async function searchBaidu(q: string, n: number, config: SearchConfig, deps: SearchDeps, signal: AbortSignal): Promise<SearchResult[]> {
  const url = new URL(config.endpoint);
  url.searchParams.set('wd', q);
  url.searchParams.set('rn', String(Math.max(n, 10)));
  url.searchParams.set('ie', 'utf-8');
  const response = await request(config, deps, url.href, { headers: { Accept: 'text/html' } }, signal);
  if (!response.ok) throw httpError('baidu', response.status, undefined);
  const html = await response.text();
  const pageUrl = response.url || url.href;
  const page = await deps.parsePage('baidu', html, pageUrl);
  const results = fromPage('baidu', page, n);
  const engineOrigin = new URL(config.endpoint).origin;
  return Promise.all(
    results.map(async (r) => (isBaiduRedirect(r.url, pageUrl) ? { ...r, url: await followRedirect(r.url, pageUrl, engineOrigin, deps, signal) } : r)),
  );
}

/**
 * Whether one of Baidu's own redirect hops may be requested: http(s), and not on the user's
 * network by its name or (Firefox) by the address it resolves to. The engine's configured origin
 * (the real one, or the tests' loopback override) is the user's choice and always may.
 */
async function baiduHopAllowed(url: URL, engineOrigin: string, deps: SearchDeps): Promise<boolean> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.origin === engineOrigin) return true;
  return !localNetworkKind(url) && !(await resolvesLocal(deps.probe, url.hostname));
}

/**
 * Finds where one of Baidu's `/link?url=…` redirects leads, without visiting it: Baidu's own hops
 * are followed by hand (`redirect: 'manual'`, at most `MAX_BAIDU_HOPS`), each checked like a
 * `web_fetch` hop before it is requested and by the address that answered, and the first address
 * outside Baidu is the result (named to the model, never requested here). When Baidu answers
 * with its JavaScript hop page, the address written in it. On failure or refusal the wrapped
 * link is kept: it still leads to the page.
 */
async function followRedirect(link: string, pageUrl: string, engineOrigin: string, deps: SearchDeps, signal: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(REDIRECT_TIMEOUT_MS);
  try {
    let url = new URL(link);
    for (let hop = 0; hop < MAX_BAIDU_HOPS; hop++) {
      if (!(await baiduHopAllowed(url, engineOrigin, deps))) return link;
      const watch = deps.probe?.watch?.(url.href);
      try {
        const response = await deps.fetch(url.href, { redirect: 'manual', credentials: 'omit', cache: 'no-store', signal: AbortSignal.any([signal, timeout]) });
        if (watch && url.origin !== engineOrigin) {
          const ip = await watch.address();
          if (ip === null || addressKind(ip)) {
            void response.body?.cancel().catch(() => undefined);
            return link;
          }
        }
        let location: string | null = null;
        if (response.type === 'opaqueredirect') location = (await watch?.location()) ?? null;
        else if (response.status >= 300 && response.status < 400) location = response.headers.get('location');
        if (location === null) {
          if (response.type === 'opaqueredirect' || !response.ok) return link;
          const page = (await response.text()).slice(0, 4000);
          const found = /(?:location\.replace\(|URL=)['"]?(https?:\/\/[^'")\s>]+)/i.exec(page)?.[1];
          return found && !isBaiduRedirect(found, pageUrl) ? found : link;
        }
        void response.body?.cancel().catch(() => undefined);
        const next = new URL(location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') return link;
        if (!isBaiduRedirect(next.href, pageUrl)) return next.href;
        url = next;
      } finally {
        watch?.stop();
      }
    }
    return link;
  } catch {
    return link;
  }
}

// ——— Google Custom Search JSON API ———

async function searchGoogle(q: string, n: number, config: SearchConfig, deps: SearchDeps, signal: AbortSignal): Promise<SearchResult[]> {
  if (!config.apiKey) throw missing('google', 'an API key');
  if (!config.cseId) throw missing('google', 'a search engine ID (cx)');
  const url = new URL(config.endpoint);
  url.searchParams.set('key', config.apiKey);
  url.searchParams.set('cx', config.cseId);
  url.searchParams.set('q', q);
  url.searchParams.set('num', String(n));
  const response = await request(config, deps, url.href, { headers: { Accept: 'application/json' } }, signal);
  const body = await jsonBody(response);
  if (!response.ok) {
    const detail: string | undefined = body?.error?.message;
    if (response.status === 400 && /API key not valid/i.test(detail ?? '')) throw httpError('google', 403, detail);
    throw httpError('google', response.status, detail);
  }
  if (!body || typeof body !== 'object') throw unrecognized('google', 'the answer was not JSON');
  if (body.kind !== 'customsearch#search') throw unrecognized('google', 'the answer was not a customsearch#search');
  if (body.items === undefined) return [];
  if (!Array.isArray(body.items)) throw unrecognized('google', 'items is not a list');
  return body.items
    .filter((i: any) => typeof i?.link === 'string' && /^https?:\/\//i.test(i.link))
    .slice(0, n)
    .map((i: any) => ({ title: String(i.title ?? ''), url: i.link as string, snippet: String(i.snippet ?? '').replace(/\s+/g, ' ').trim() }));
}

/**
 * What one search engine is: `defineEngine({ id, name, hint, endpoint, queryParam, key?,
 * needsCseId?, readPage?, search })`, one file each under `engines/`, listed once in
 * `engines.ts`. Everything else (the stored settings' schema, the settings page's choices and key
 * fields, the test endpoints, the approval gate's target, the settings file's words) is derived
 * from that list. Here also the helpers every engine's `search` uses: the request, and the errors
 * written for the model (each names the engine and says what to do).
 */
import type { MessageKey } from '@/core/i18n/catalog';
import type { AddressProbe } from '@/core/net/address';
import type { SearchPage, SearchResult } from './parse';

export type { SearchPage, SearchResult } from './parse';

/** An engine's API key: where it is kept, the shape it has, and the settings page's words for it. */
export interface EngineKey {
  /** The secret's name in the web plugin's storage (`storage.secret`), also its name in a settings file. */
  secretName: string;
  /** What a key of this engine looks like; anything else is refused before it is saved. */
  shape: RegExp;
  words: {
    /** The field's label and hint, and the "remove the saved key" box's label. */
    label: MessageKey;
    hint: MessageKey;
    remove: MessageKey;
    /** The typed key does not have the shape; the engine is chosen and no key is typed or saved. */
    badShape: MessageKey;
    missing: MessageKey;
    /** A settings file's preview row for this key. */
    imported: MessageKey;
  };
}

/** What one search runs with: the engine's address and, where it needs them, its key and IDs. */
export interface SearchConfig {
  engine: string;
  /** The engine's API key (Bing's subscription key, Google's API key). */
  apiKey?: string;
  /** Google's search engine ID (`cx`). */
  cseId?: string;
  /** The engine's address (the default, or a test server's). */
  endpoint: string;
}

export interface SearchDeps {
  fetch: typeof fetch;
  /** Reads an HTML results page with the engine's `readPage`; needs a DOM (the offscreen document in Chrome). */
  parsePage(engine: string, html: string, url: string): Promise<SearchPage>;
  /**
   * What the browser tells about addresses (core/net/address.ts): Baidu's redirect links are
   * followed hop by hop, and a hop whose address is on the user's network is not requested (or its
   * answer not used). Absent outside a browser.
   */
  probe?: AddressProbe;
}

/** One search as an engine's `search` gets it: the query is trimmed and short enough, `n` is 1–10. */
export interface EngineRun {
  /** The engine itself (for the helpers' messages). */
  engine: SearchEngine;
  config: SearchConfig;
  deps: SearchDeps;
  /** The caller's signal and the search's time limit together. */
  signal: AbortSignal;
}

export interface SearchEngine<Id extends string = string> {
  id: Id;
  /** The engine's name, in the settings page and in every message. */
  name: string;
  /** The settings page's line under the engine's name. */
  hint: MessageKey;
  /** Where the engine is asked (tests may point it at a loopback server: settings.ts `searchEndpoints`). */
  endpoint: string;
  /** The URL parameter that carries the query: the approval card shows `endpoint?<queryParam>=…`. */
  queryParam: string;
  /** The API key the engine needs; absent for an engine that needs none. */
  key?: EngineKey;
  /** Whether it needs Google's search engine ID (the `googleCseId` setting). */
  needsCseId?: boolean;
  /** Reads the engine's HTML results page (engines that answer with a page, not JSON). */
  readPage?(doc: Document, url: string): SearchPage;
  /** Runs the search. Throws `SearchError` (the helpers below make them); never a made-up empty list. */
  search(q: string, n: number, run: EngineRun): Promise<SearchResult[]>;
}

/** Identity helper: one engine as one value, its id kept as a literal type. */
export function defineEngine<const Id extends string>(engine: SearchEngine<Id>): SearchEngine<Id> {
  return engine;
}

/** A search that failed; the message names the engine and says what to do. */
export class SearchError extends Error {
  override name = 'SearchError';
  constructor(
    readonly engine: string,
    message: string,
  ) {
    super(message);
  }
}

/** The engine's request: no cookies, redirects followed. */
export function request(run: EngineRun, url: string, init: RequestInit): Promise<Response> {
  return run.deps.fetch(url, { ...init, signal: run.signal, credentials: 'omit', redirect: 'follow' });
}

/** Words for an HTTP error, with the engine's own message when it sent one. */
export function httpError(engine: SearchEngine, status: number, detail: string | undefined): SearchError {
  const said = detail ? ` It said: "${detail.slice(0, 300)}"` : '';
  if (status === 401 || status === 403) {
    const what = engine.key
      ? `refused the API key (HTTP ${status}).${said} The user must check the key in Settings → Agent → Search engines.`
      : `refused the request (HTTP ${status}).${said} It may be blocking automated searches; try again later, or the user can pick another engine in Settings → Agent → Search engines.`;
    return new SearchError(engine.id, `${engine.name} ${what}`);
  }
  if (status === 429) return new SearchError(engine.id, `${engine.name} is limiting requests (HTTP 429).${said} Wait a minute before searching again.`);
  if (status >= 500) return new SearchError(engine.id, `${engine.name} had a server error (HTTP ${status}).${said} Try again in a moment.`);
  return new SearchError(engine.id, `${engine.name} answered HTTP ${status}.${said}`);
}

/** The answer's JSON, or undefined when it is not JSON. */
export async function jsonBody(response: Response): Promise<any> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** A key or ID the engine needs is not set. */
export function missing(engine: SearchEngine, what: string): SearchError {
  return new SearchError(
    engine.id,
    `${engine.name} needs ${what}, and none is set. Tell the user to add it in Settings → Agent → Search engines, or to choose DuckDuckGo there, which needs no key.`,
  );
}

/** An answer whose shape the engine's reader does not know. */
export function unrecognized(engine: SearchEngine, detail: string): SearchError {
  return new SearchError(
    engine.id,
    `${engine.name}'s answer could not be read (${detail}); its page layout or API may have changed. Try again later, or the user can pick another engine in Settings → Agent → Search engines.`,
  );
}

/** The results of a read results page, or the error its kind of page means. */
export function fromPage(engine: SearchEngine, page: SearchPage, n: number): SearchResult[] {
  switch (page.kind) {
    case 'results':
      return page.results.slice(0, n);
    case 'empty':
      return [];
    case 'blocked':
      throw new SearchError(
        engine.id,
        `${engine.name} blocked the search with a CAPTCHA or bot check: ${page.detail} Wait a while before searching again, or the user can pick another engine in Settings → Agent → Search engines.`,
      );
    case 'unrecognized':
      throw unrecognized(engine, page.detail);
  }
}

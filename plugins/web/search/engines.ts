/**
 * The search engines `web_search` can use, listed once: each is one value in its own file under
 * `engines/` (see `engine.ts` for what one is). The user picks one in Settings → Search engines;
 * the settings' schema, the page's choices, the test endpoints and the gate's target come from
 * this list. To add an engine: write `engines/<id>.ts` with `defineEngine`, add it here.
 */
import { SearchError, type SearchConfig, type SearchDeps, type SearchEngine, type SearchPage, type SearchResult } from './engine';
import { baidu } from './engines/baidu';
import { bing } from './engines/bing';
import { duckduckgo } from './engines/duckduckgo';
import { google } from './engines/google';

export { SearchError, type SearchConfig, type SearchDeps, type SearchEngine, type SearchPage, type SearchResult } from './engine';

/** Every engine, in the order the settings page shows them; the first is the default. */
export const SEARCH_ENGINES = [duckduckgo, bing, baidu, google] as const;

export type SearchEngineId = (typeof SEARCH_ENGINES)[number]['id'];

export const SEARCH_ENGINE_IDS: SearchEngineId[] = SEARCH_ENGINES.map((e) => e.id);

/** The engine with this id, or undefined (an id from a message, a file, a form). */
export function engineById(id: string): SearchEngine<SearchEngineId> | undefined {
  return SEARCH_ENGINES.find((e) => e.id === id);
}

/** Where each engine is asked. Tests may point these at local servers (settings.ts `searchEndpoints`). */
export const DEFAULT_ENDPOINTS = Object.fromEntries(SEARCH_ENGINES.map((e) => [e.id, e.endpoint])) as Record<SearchEngineId, string>;

export const DEFAULT_RESULTS = 5;
export const MAX_RESULTS = 10;
const MAX_QUERY_CHARS = 400;
const SEARCH_TIMEOUT_MS = 20_000;

/** 5 by default; anything above 10 is 10, anything below 1 is 1. Larger asks are clamped, not refused. */
export function clampResults(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return DEFAULT_RESULTS;
  return Math.min(MAX_RESULTS, Math.max(1, Math.round(value)));
}

/** Reads an engine's HTML results page (in a document with a DOM: the offscreen document, a test's). */
export function parseSearchPage(engine: string, doc: Document, url: string): SearchPage {
  const readPage = engineById(engine)?.readPage;
  if (!readPage) return { kind: 'unrecognized', detail: `${engine} has no results page reader` };
  return readPage(doc, url);
}

/** Runs one search with the engine the settings name. Throws `SearchError`, never returns a made-up empty list. */
export async function search(query: string, count: number, config: SearchConfig, deps: SearchDeps, signal?: AbortSignal): Promise<SearchResult[]> {
  const engine = engineById(config.engine);
  if (!engine) throw new SearchError(config.engine, `There is no search engine "${config.engine}". The user can pick one in Settings → Agent → Search engines.`);
  const name = engine.name;
  const q = query.replace(/\s+/g, ' ').trim();
  if (!q) throw new SearchError(engine.id, 'The query is empty: give the words to search for.');
  if (q.length > MAX_QUERY_CHARS) {
    throw new SearchError(engine.id, `The query is ${q.length} characters long; ${name} takes at most ${MAX_QUERY_CHARS}. Search with fewer, more specific words.`);
  }
  const n = clampResults(count);
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return await engine.search(q, n, { engine, config, deps, signal: combined });
  } catch (error) {
    if (error instanceof SearchError) throw error;
    if (signal?.aborted) throw error;
    if (timeout.aborted) {
      throw new SearchError(engine.id, `${name} did not answer within ${SEARCH_TIMEOUT_MS / 1000} s. Try again in a moment.`);
    }
    throw new SearchError(engine.id, `${name} could not be reached (${(error as Error)?.message ?? error}). Check the network connection, then try again.`);
  }
}

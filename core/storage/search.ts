import { storage } from 'wxt/utils/storage';
import { DEFAULT_ENDPOINTS, SEARCH_ENGINE_IDS, SEARCH_ENGINES, type SearchEngineId } from '@/core/search/engines';
import type { SidequestDb } from './db';

/** The engine `web_search` uses, and the one setting of it that is not a secret. */
export interface SearchSettings {
  engine: SearchEngineId;
  /** Google Custom Search's search engine ID (`cx`). Public (it is in the engine's own URL). */
  googleCseId: string;
}

export const searchSettings = storage.defineItem<SearchSettings>('local:search', {
  fallback: { engine: 'duckduckgo', googleCseId: '' },
  version: 1,
});

/** The API keys an engine can need; kept with the provider key in the extension's IndexedDB. */
export type SearchKeyName = 'bing' | 'google';

const SECRET_KEYS: Record<SearchKeyName, string> = { bing: 'search.bing.apiKey', google: 'search.google.apiKey' };

export class SearchSecrets {
  constructor(private readonly db: SidequestDb) {}

  async getKey(name: SearchKeyName): Promise<string | undefined> {
    return (await this.db.secrets.get(SECRET_KEYS[name]))?.value || undefined;
  }

  /** Saves the key; an empty string removes it. */
  async setKey(name: SearchKeyName, value: string): Promise<void> {
    const key = value.trim();
    if (key) await this.db.secrets.put({ key: SECRET_KEYS[name], value: key });
    else await this.db.secrets.delete(SECRET_KEYS[name]);
  }
}

/** A settings value that cannot be saved; `field` names the form field for the page to mark. */
export class SearchSettingsError extends Error {
  override name = 'SearchSettingsError';
  constructor(
    readonly field: 'engine' | 'bingApiKey' | 'googleApiKey' | 'googleCseId',
    message: string,
  ) {
    super(message);
  }
}

/** What the options page sends: `*ApiKey` undefined keeps the saved key, '' removes it. */
export interface SearchSettingsInput {
  engine: string;
  googleCseId?: string;
  bingApiKey?: string;
  googleApiKey?: string;
}

/** Bing subscription keys are 32 hexadecimal characters; accept any plain token of sane length. */
const BING_KEY = /^[A-Za-z0-9_-]{16,128}$/;
/** Google API keys: "AIza" and 35 more characters. */
const GOOGLE_KEY = /^AIza[0-9A-Za-z_-]{35}$/;
/** Search engine IDs: the old "0123…:abcd" form or the newer plain one. */
const CSE_ID = /^[A-Za-z0-9][A-Za-z0-9:_-]{4,99}$/;

/**
 * Checks the form before anything is saved: the engine exists, the keys it needs are there
 * (typed now or saved before), and what was typed has the shape such keys have.
 * Returns the cleaned values; throws `SearchSettingsError` naming the field.
 */
export function validateSearchSettings(
  input: SearchSettingsInput,
  saved: { hasBingKey: boolean; hasGoogleKey: boolean },
): { engine: SearchEngineId; googleCseId: string; bingApiKey?: string; googleApiKey?: string } {
  const engine = input.engine as SearchEngineId;
  if (!SEARCH_ENGINE_IDS.includes(engine)) {
    throw new SearchSettingsError('engine', `There is no search engine "${input.engine}". Choose one of: ${SEARCH_ENGINE_IDS.map((id) => SEARCH_ENGINES[id].name).join(', ')}.`);
  }
  const bingApiKey = input.bingApiKey?.trim();
  const googleApiKey = input.googleApiKey?.trim();
  const googleCseId = (input.googleCseId ?? '').trim();
  if (bingApiKey && !BING_KEY.test(bingApiKey)) {
    throw new SearchSettingsError('bingApiKey', 'This does not look like a Bing API key: it should be a long string of letters and digits (32 characters for Azure keys), without spaces.');
  }
  if (googleApiKey && !GOOGLE_KEY.test(googleApiKey)) {
    throw new SearchSettingsError('googleApiKey', 'This does not look like a Google API key: those start with "AIza" and are 39 characters long.');
  }
  if (googleCseId && !CSE_ID.test(googleCseId)) {
    throw new SearchSettingsError('googleCseId', 'This does not look like a search engine ID: copy the "cx" value from the Programmable Search Engine control panel (letters, digits, and maybe a colon).');
  }
  const willHaveBing = bingApiKey !== undefined ? bingApiKey !== '' : saved.hasBingKey;
  const willHaveGoogle = googleApiKey !== undefined ? googleApiKey !== '' : saved.hasGoogleKey;
  if (engine === 'bing' && !willHaveBing) {
    throw new SearchSettingsError('bingApiKey', 'Bing needs an API key: enter your Bing Web Search subscription key.');
  }
  if (engine === 'google' && !willHaveGoogle) {
    throw new SearchSettingsError('googleApiKey', 'Google Custom Search needs an API key: enter the key from the Google Cloud console.');
  }
  if (engine === 'google' && !googleCseId) {
    throw new SearchSettingsError('googleCseId', 'Google Custom Search needs a search engine ID (cx): enter it.');
  }
  return { engine, googleCseId, bingApiKey, googleApiKey };
}

// ——— Test endpoints ———

/** Where the overrides are kept: the extension's own IndexedDB, beside the API keys. */
export const TEST_ENDPOINTS_KEY = 'test.searchEndpoints';

/**
 * Only addresses on this computer may replace an engine's endpoint, so an override can never
 * send the agent's searches (or an API key) anywhere else.
 */
export function isLoopbackEndpoint(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
}

/**
 * The engines' endpoints: the real ones, unless the end-to-end tests replaced some. How tests do
 * it: they write `{engine: url}` as JSON under `test.searchEndpoints` in the `secrets` table
 * from an extension page (see tests/e2e/web.test.mjs). No message, setting or UI reads or writes
 * that entry, web pages and content scripts cannot reach the extension's IndexedDB, and only
 * loopback (127.0.0.1 / localhost) addresses are taken, anything else is ignored.
 */
export async function searchEndpoints(db: SidequestDb): Promise<Record<SearchEngineId, string>> {
  const endpoints = { ...DEFAULT_ENDPOINTS };
  let raw: string | undefined;
  try {
    raw = (await db.secrets.get(TEST_ENDPOINTS_KEY))?.value;
  } catch {
    raw = undefined;
  }
  if (!raw) return endpoints;
  let overrides: Record<string, unknown>;
  try {
    overrides = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return endpoints;
  }
  for (const id of SEARCH_ENGINE_IDS) {
    const value = overrides?.[id];
    if (typeof value === 'string' && isLoopbackEndpoint(value)) endpoints[id] = value;
  }
  return endpoints;
}

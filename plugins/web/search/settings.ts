import { z } from 'zod';
import { said, SaidError, type MessageKey, type SaidParams } from '@/core/i18n/catalog';
import type { ImportRow, PluginSettingsFile } from '@/core/data/settings-import';
import { isLoopbackHost } from '@/core/net/local-network';
import type { PluginItem, PluginStorage } from '@/core/storage/plugin-data';
import { DEFAULT_ENDPOINTS, SEARCH_ENGINE_IDS, SEARCH_ENGINES, type SearchEngineId } from './engines';

/** The engine `web_search` uses, and the one setting of it that is not a secret. */
export interface SearchSettings {
  engine: SearchEngineId;
  /** Google Custom Search's search engine ID (`cx`). Public (it is in the engine's own URL). */
  googleCseId: string;
}

/** The API keys an engine can need. */
export type SearchKeyName = 'bing' | 'google';

/**
 * Where the web plugin keeps its search settings: the plugin's storage in IndexedDB (earlier
 * versions kept the settings in `storage.local` and the keys under other names: both move on first
 * use). The keys are secrets: never sent to a page, never shown again.
 */
export interface SearchStore {
  settings: PluginItem<SearchSettings>;
  keys: Record<SearchKeyName, PluginItem<string | undefined>>;
  /** Test-only endpoint overrides, JSON `{engine: url}` (see `searchEndpoints`). */
  testEndpoints: PluginItem<string | undefined>;
}

/** The shape of the stored search settings (`web/search`), checked when read and when a settings file brings them. */
export const searchSettingsSchema: z.ZodType<SearchSettings> = z.object({ engine: z.enum(SEARCH_ENGINE_IDS as [SearchEngineId, ...SearchEngineId[]]), googleCseId: z.string() });

/** The secrets' names of the engines' keys (`storage.secret`). */
export const SEARCH_KEY_NAMES: Record<SearchKeyName, string> = { bing: 'search.bing.apiKey', google: 'search.google.apiKey' };

export function searchStore(storage: PluginStorage): SearchStore {
  return {
    settings: storage.item<SearchSettings>('search', {
      fallback: { engine: 'duckduckgo', googleCseId: '' },
      schema: searchSettingsSchema,
      legacyKey: 'local:search',
    }),
    keys: {
      bing: storage.secret(SEARCH_KEY_NAMES.bing, { legacyKey: 'search.bing.apiKey' }),
      google: storage.secret(SEARCH_KEY_NAMES.google, { legacyKey: 'search.google.apiKey' }),
    },
    testEndpoints: storage.secret(TEST_ENDPOINTS_NAME),
  };
}

/** A settings value that cannot be saved; `field` names the form field for the page to mark. */
export class SearchSettingsError extends SaidError {
  override name = 'SearchSettingsError';
  constructor(
    readonly field: 'engine' | 'bingApiKey' | 'googleApiKey' | 'googleCseId',
    key: MessageKey,
    params?: SaidParams,
  ) {
    super(key, params);
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
    throw new SearchSettingsError('engine', 'search.errors.noEngine', { engine: String(input.engine), engines: SEARCH_ENGINE_IDS.map((id) => SEARCH_ENGINES[id].name).join(', ') });
  }
  const bingApiKey = input.bingApiKey?.trim();
  const googleApiKey = input.googleApiKey?.trim();
  const googleCseId = (input.googleCseId ?? '').trim();
  if (bingApiKey && !BING_KEY.test(bingApiKey)) {
    throw new SearchSettingsError('bingApiKey', 'search.errors.bingKeyShape');
  }
  if (googleApiKey && !GOOGLE_KEY.test(googleApiKey)) {
    throw new SearchSettingsError('googleApiKey', 'search.errors.googleKeyShape');
  }
  if (googleCseId && !CSE_ID.test(googleCseId)) {
    throw new SearchSettingsError('googleCseId', 'search.errors.cseIdShape');
  }
  const willHaveBing = bingApiKey !== undefined ? bingApiKey !== '' : saved.hasBingKey;
  const willHaveGoogle = googleApiKey !== undefined ? googleApiKey !== '' : saved.hasGoogleKey;
  if (engine === 'bing' && !willHaveBing) {
    throw new SearchSettingsError('bingApiKey', 'search.errors.bingKeyMissing');
  }
  if (engine === 'google' && !willHaveGoogle) {
    throw new SearchSettingsError('googleApiKey', 'search.errors.googleKeyMissing');
  }
  if (engine === 'google' && !googleCseId) {
    throw new SearchSettingsError('googleCseId', 'search.errors.cseIdMissing');
  }
  return { engine, googleCseId, bingApiKey, googleApiKey };
}

// ——— Test endpoints ———

/** Where the overrides are kept: a secret of the web plugin (`web.test.searchEndpoints` in IndexedDB). */
export const TEST_ENDPOINTS_NAME = 'test.searchEndpoints';

/**
 * Only addresses on this computer may replace an engine's endpoint, so an override can never
 * send the agent's searches (or an API key) anywhere else.
 */
export function isLoopbackEndpoint(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/**
 * The engines' endpoints: the real ones, unless the end-to-end tests replaced some. How tests do
 * it: they write `{engine: url}` as JSON under `web.test.searchEndpoints` in the `secrets` table
 * from an extension page (see tests/e2e/web.test.mjs). No message, setting or UI reads or writes
 * that entry, web pages and content scripts cannot reach the extension's IndexedDB, and only
 * loopback (127/8, localhost, ::1) addresses are taken, anything else is ignored.
 */
export async function searchEndpoints(store: SearchStore): Promise<Record<SearchEngineId, string>> {
  const endpoints = { ...DEFAULT_ENDPOINTS };
  let raw: string | undefined;
  try {
    raw = await store.testEndpoints.getValue();
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

/**
 * The search settings in a settings file. The engines' keys go only to their engines' fixed
 * addresses (a file cannot change where an engine is asked: the test endpoints never enter), so
 * no key rule is needed here; the preview shows the engine chosen and the keys the file carries.
 */
export const searchSettingsFile: PluginSettingsFile = {
  items: {
    search: {
      schema: searchSettingsSchema,
      title: said('search.import.title'),
      rows: (file: SearchSettings, now: SearchSettings | undefined): ImportRow[] => {
        const rows: ImportRow[] = [];
        if (file.engine !== now?.engine) rows.push({ change: 'changed', name: '', detail: said('search.import.engine', { engine: SEARCH_ENGINES[file.engine].name }) });
        if (file.googleCseId !== (now?.googleCseId ?? '')) rows.push({ change: 'changed', name: '', detail: said('search.import.cx', { id: file.googleCseId || '—' }) });
        return rows;
      },
    },
  },
  secret: (name) => (name === SEARCH_KEY_NAMES.bing ? said('search.import.bingKey') : name === SEARCH_KEY_NAMES.google ? said('search.import.googleKey') : undefined),
};

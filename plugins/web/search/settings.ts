import { z } from 'zod';
import { said, SaidError, type MessageKey, type SaidParams } from '@/core/i18n/catalog';
import type { ImportRow, PluginSettingsFile } from '@/core/data/settings-import';
import { lazy } from '@/core/storage/setting';
import { isLoopbackHost } from '@/core/net/local-network';
import type { PluginItem, PluginStorage } from '@/core/storage/plugin-data';
import type { EngineKey } from './engine';
import { DEFAULT_ENDPOINTS, engineById, SEARCH_ENGINE_IDS, SEARCH_ENGINES, type SearchEngineId } from './engines';

/** The engine `web_search` uses, and the one setting of it that is not a secret. */
export interface SearchSettings {
  engine: SearchEngineId;
  /** Google Custom Search's search engine ID (`cx`). Public (it is in the engine's own URL). */
  googleCseId: string;
}

/**
 * Where the web plugin keeps its search settings: the plugin's storage in IndexedDB (earlier
 * versions kept the settings in `storage.local` and the keys under other names: both move on first
 * use). The keys are secrets: never sent to a page, never shown again. One key per engine that
 * needs one (its `key.secretName`).
 */
export interface SearchStore {
  settings: PluginItem<SearchSettings>;
  keys: Partial<Record<SearchEngineId, PluginItem<string | undefined>>>;
  /** Test-only endpoint overrides, JSON `{engine: url}` (see `searchEndpoints`). */
  testEndpoints: PluginItem<string | undefined>;
}

/**
 * The shape of the stored search settings (`web/search`), checked when read and when a settings
 * file brings them; made at the first such check (`lazy`), not at every start of the background.
 */
export const searchSettingsSchema = lazy((): z.ZodType<SearchSettings> => z.object({ engine: z.enum(SEARCH_ENGINE_IDS as [SearchEngineId, ...SearchEngineId[]]), googleCseId: z.string() }));

/** The engines that need an API key, with it. */
export const KEYED_ENGINES = SEARCH_ENGINES.filter((e): e is typeof e & { key: EngineKey } => Boolean(e.key));

/** The form field of an engine's key (`bingApiKey`): in what the options page sends, and in the error that marks it. */
export type SearchKeyField = `${string}ApiKey`;
export const keyField = (id: string): SearchKeyField => `${id}ApiKey`;

export function searchStore(storage: PluginStorage): SearchStore {
  return {
    settings: storage.item<SearchSettings>('search', {
      fallback: { engine: SEARCH_ENGINES[0].id, googleCseId: '' },
      schema: searchSettingsSchema,
      legacyKey: 'local:search',
    }),
    // Earlier versions kept each key in storage.local under the same name.
    keys: Object.fromEntries(KEYED_ENGINES.map((e) => [e.id, storage.secret(e.key.secretName, { legacyKey: e.key.secretName })])),
    testEndpoints: storage.secret(TEST_ENDPOINTS_NAME),
  };
}

/** A settings value that cannot be saved; `field` names the form field for the page to mark. */
export class SearchSettingsError extends SaidError {
  override name = 'SearchSettingsError';
  constructor(
    readonly field: 'engine' | 'googleCseId' | SearchKeyField,
    key: MessageKey,
    params?: SaidParams,
  ) {
    super(key, params);
  }
}

/** What the options page sends: an engine's key (`<id>ApiKey`) undefined keeps the saved key, '' removes it. */
export interface SearchSettingsInput {
  engine: string;
  googleCseId?: string;
  [field: SearchKeyField]: string | undefined;
}

/** Which engines have a key saved (the options page is told only that). */
export type SavedKeys = Partial<Record<SearchEngineId, boolean>>;
/** Search engine IDs: the old "0123…:abcd" form or the newer plain one. */
const CSE_ID = /^[A-Za-z0-9][A-Za-z0-9:_-]{4,99}$/;

/**
 * Checks the form before anything is saved: the engine exists, the keys it needs are there
 * (typed now or saved before), and what was typed has the shape such keys have.
 * Returns the cleaned values; throws `SearchSettingsError` naming the field.
 */
export function validateSearchSettings(
  input: SearchSettingsInput,
  saved: { hasKey: SavedKeys },
): { engine: SearchEngineId; googleCseId: string; keys: Partial<Record<SearchEngineId, string>> } {
  const engine = engineById(input.engine);
  if (!engine) {
    throw new SearchSettingsError('engine', 'search.errors.noEngine', { engine: String(input.engine), engines: SEARCH_ENGINES.map((e) => e.name).join(', ') });
  }
  const keys: Partial<Record<SearchEngineId, string>> = {};
  for (const keyed of KEYED_ENGINES) {
    const typed = input[keyField(keyed.id)]?.trim();
    if (typed && !keyed.key.shape.test(typed)) throw new SearchSettingsError(keyField(keyed.id), keyed.key.words.badShape);
    if (typed !== undefined) keys[keyed.id] = typed;
  }
  const googleCseId = (input.googleCseId ?? '').trim();
  if (googleCseId && !CSE_ID.test(googleCseId)) {
    throw new SearchSettingsError('googleCseId', 'search.errors.cseIdShape');
  }
  const typed = keys[engine.id];
  if (engine.key && !(typed !== undefined ? typed !== '' : saved.hasKey[engine.id])) {
    throw new SearchSettingsError(keyField(engine.id), engine.key.words.missing);
  }
  if (engine.needsCseId && !googleCseId) {
    throw new SearchSettingsError('googleCseId', 'search.errors.cseIdMissing');
  }
  return { engine: engine.id, googleCseId, keys };
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
 * loopback addresses (`isLoopbackHost`, the one test in core/net) are taken, anything else is ignored.
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
    const value: unknown = overrides?.[id];
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
        if (file.engine !== now?.engine) rows.push({ change: 'changed', name: '', detail: said('search.import.engine', { engine: engineById(file.engine)?.name ?? file.engine }) });
        if (file.googleCseId !== (now?.googleCseId ?? '')) rows.push({ change: 'changed', name: '', detail: said('search.import.cx', { id: file.googleCseId || '—' }) });
        return rows;
      },
    },
  },
  secret: (name) => {
    const keyed = KEYED_ENGINES.find((e) => e.key.secretName === name);
    return keyed ? said(keyed.key.words.imported) : undefined;
  },
};

import { engineById, search, SearchError, type SearchConfig, type SearchDeps, type SearchEngineId, type SearchResult } from './engines';
import { KEYED_ENGINES, keyField, searchEndpoints, validateSearchSettings, type SavedKeys, type SearchSettingsInput, type SearchStore } from './settings';

/** Search settings as the options page sees them: never the keys, only which engines have one saved. */
export interface SearchSettingsView {
  engine: SearchEngineId;
  googleCseId: string;
  hasKey: SavedKeys;
}

/** The outcome of the settings page's Test button. */
export type SearchTestResult =
  | { ok: true; engine: SearchEngineId; query: string; results: SearchResult[] }
  | { ok: false; engine: SearchEngineId; query: string; error: string };

/** What the Test button sends: the form as it is now (keys left empty use the saved ones). */
export interface SearchTestInput extends SearchSettingsInput {
  query: string;
}

/**
 * The background's search: reads the chosen engine and its keys at every call (so a change in
 * Settings applies to the very next search), runs it, and serves the options page.
 */
export class SearchService {
  constructor(
    private readonly store: SearchStore,
    private readonly deps: SearchDeps,
  ) {}

  async view(): Promise<SearchSettingsView> {
    const settings = await this.store.settings.getValue();
    const hasKey: SavedKeys = {};
    for (const { id } of KEYED_ENGINES) hasKey[id] = Boolean(await this.store.keys[id]?.getValue());
    return { engine: settings.engine, googleCseId: settings.googleCseId, hasKey };
  }

  /** Validates, then saves. Throws `SearchSettingsError` (with the field) and saves nothing when invalid. */
  async save(input: SearchSettingsInput): Promise<SearchSettingsView> {
    const before = await this.view();
    const clean = validateSearchSettings(input, before);
    await this.store.settings.setValue({ engine: clean.engine, googleCseId: clean.googleCseId });
    for (const { id } of KEYED_ENGINES) {
      const key = clean.keys[id];
      if (key !== undefined) await this.store.keys[id]?.setValue(key);
    }
    return this.view();
  }

  /** The engine configuration as saved (or as the form has it, for the Test button). */
  async config(form?: SearchSettingsInput): Promise<SearchConfig> {
    const settings = await this.store.settings.getValue();
    const engine = (form?.engine ?? settings.engine) as SearchEngineId;
    const { key, needsCseId } = engineById(engine) ?? {};
    const endpoints = await searchEndpoints(this.store);
    const apiKey = key ? form?.[keyField(engine)]?.trim() || (await this.store.keys[engine]?.getValue()) : undefined;
    const cseId = needsCseId ? (form ? form.googleCseId?.trim() : settings.googleCseId) || undefined : undefined;
    return { engine, apiKey, cseId, endpoint: endpoints[engine] };
  }

  /**
   * Where a search with the saved engine sends the query (the engine's address with the query;
   * never its key): the approval gate's target, as the card shows it.
   */
  async target(query: string): Promise<string> {
    const config = await this.config();
    const url = new URL(config.endpoint);
    url.searchParams.set(engineById(config.engine)?.queryParam ?? 'q', query.replace(/\s+/g, ' ').trim());
    return url.href;
  }

  /** Runs `web_search` with the saved engine. */
  async search(query: string, count: number, signal?: AbortSignal): Promise<SearchResult[]> {
    return search(query, count, await this.config(), this.deps, signal);
  }

  /** The Test button: a real query with the form's engine and keys; the error in words when it fails. */
  async test(input: SearchTestInput): Promise<SearchTestResult> {
    const engine = input.engine as SearchEngineId;
    const query = input.query.trim() || 'Sidequest browser extension';
    if (!engineById(engine)) return { ok: false, engine, query, error: `There is no search engine "${input.engine}".` };
    try {
      validateSearchSettings(input, await this.view());
      const results = await search(query, 3, await this.config(input), this.deps);
      return { ok: true, engine, query, results };
    } catch (error) {
      const message = error instanceof SearchError || error instanceof Error ? error.message : String(error);
      return { ok: false, engine, query, error: message };
    }
  }
}

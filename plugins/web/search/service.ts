import { searchEndpoints, validateSearchSettings, type SearchSettingsInput, type SearchStore } from './settings';
import { search, SearchError, SEARCH_ENGINES, type SearchConfig, type SearchDeps, type SearchEngineId, type SearchResult } from './engines';

/** Search settings as the options page sees them: never the keys, only whether they are set. */
export interface SearchSettingsView {
  engine: SearchEngineId;
  googleCseId: string;
  hasBingKey: boolean;
  hasGoogleKey: boolean;
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
    return {
      engine: settings.engine,
      googleCseId: settings.googleCseId,
      hasBingKey: Boolean(await this.store.keys.bing.getValue()),
      hasGoogleKey: Boolean(await this.store.keys.google.getValue()),
    };
  }

  /** Validates, then saves. Throws `SearchSettingsError` (with the field) and saves nothing when invalid. */
  async save(input: SearchSettingsInput): Promise<SearchSettingsView> {
    const before = await this.view();
    const clean = validateSearchSettings(input, before);
    await this.store.settings.setValue({ engine: clean.engine, googleCseId: clean.googleCseId });
    if (clean.bingApiKey !== undefined) await this.store.keys.bing.setValue(clean.bingApiKey);
    if (clean.googleApiKey !== undefined) await this.store.keys.google.setValue(clean.googleApiKey);
    return this.view();
  }

  /** The engine configuration as saved (or as the form has it, for the Test button). */
  async config(form?: SearchSettingsInput): Promise<SearchConfig> {
    const settings = await this.store.settings.getValue();
    const engine = (form?.engine ?? settings.engine) as SearchEngineId;
    const endpoints = await searchEndpoints(this.store);
    const typed = engine === 'bing' ? form?.bingApiKey?.trim() : engine === 'google' ? form?.googleApiKey?.trim() : undefined;
    const apiKey = engine === 'bing' || engine === 'google' ? typed || (await this.store.keys[engine].getValue()) : undefined;
    const cseId = engine === 'google' ? (form ? form.googleCseId?.trim() : settings.googleCseId) || undefined : undefined;
    return { engine, apiKey, cseId, endpoint: endpoints[engine] };
  }

  /**
   * Where a search with the saved engine sends the query (the engine's address with the query;
   * never its key): the approval gate's target, as the card shows it.
   */
  async target(query: string): Promise<string> {
    const config = await this.config();
    const url = new URL(config.endpoint);
    url.searchParams.set(config.engine === 'baidu' ? 'wd' : 'q', query.replace(/\s+/g, ' ').trim());
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
    if (!SEARCH_ENGINES[engine]) return { ok: false, engine, query, error: `There is no search engine "${input.engine}".` };
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

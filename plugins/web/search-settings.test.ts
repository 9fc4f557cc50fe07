// Search engine settings: validation before saving, where keys live, the service the options page
// and web_search use (against the fixture engines), and the test-only endpoint overrides.
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { parseSearchPage } from '@/plugins/web/search/engines';
import { SearchService } from '@/plugins/web/search/service';
import { openDb, type SidequestDb } from '@/core/storage/db';
import { pluginStorage } from '@/core/storage/plugin-data';
import { storage } from 'wxt/utils/storage';
import {
  isLoopbackEndpoint,
  searchEndpoints,
  searchStore,
  SearchSettingsError,
  validateSearchSettings,
} from '@/plugins/web/search/settings';
import { BING_KEY, GOOGLE_CX, GOOGLE_KEY, startSearchEngines } from '@/tests/fixtures/search-engines.mjs';
import { parseHtml } from '@/tests/unit/helpers/dom';

const none = { hasKey: {} };
/** Where the web plugin's test-only endpoint overrides live (its secret `test.searchEndpoints`). */
const TEST_ENDPOINTS_KEY = 'web.test.searchEndpoints';

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SearchSettingsError);
    return (error as SearchSettingsError).field;
  }
  return undefined;
}

describe('validateSearchSettings', () => {
  test('DuckDuckGo and Baidu need nothing', () => {
    expect(validateSearchSettings({ engine: 'duckduckgo' }, none)).toMatchObject({ engine: 'duckduckgo' });
    expect(validateSearchSettings({ engine: 'baidu' }, none)).toMatchObject({ engine: 'baidu' });
  });

  test('Bing needs a key, typed now or saved before', () => {
    expect(fieldOf(() => validateSearchSettings({ engine: 'bing' }, none))).toBe('bingApiKey');
    expect(validateSearchSettings({ engine: 'bing', bingApiKey: ` ${BING_KEY} ` }, none).keys.bing).toBe(BING_KEY);
    expect(validateSearchSettings({ engine: 'bing' }, { hasKey: { bing: true } }).engine).toBe('bing');
    // Removing the saved key while choosing Bing is refused.
    expect(fieldOf(() => validateSearchSettings({ engine: 'bing', bingApiKey: '' }, { hasKey: { bing: true } }))).toBe('bingApiKey');
  });

  test('Google needs a key and an engine ID, each of the right shape', () => {
    expect(fieldOf(() => validateSearchSettings({ engine: 'google', googleCseId: GOOGLE_CX }, none))).toBe('googleApiKey');
    expect(fieldOf(() => validateSearchSettings({ engine: 'google', googleApiKey: GOOGLE_KEY }, none))).toBe('googleCseId');
    expect(fieldOf(() => validateSearchSettings({ engine: 'google', googleApiKey: 'not-a-key', googleCseId: GOOGLE_CX }, none))).toBe('googleApiKey');
    expect(fieldOf(() => validateSearchSettings({ engine: 'google', googleApiKey: GOOGLE_KEY, googleCseId: 'cx with spaces' }, none))).toBe('googleCseId');
    expect(validateSearchSettings({ engine: 'google', googleApiKey: GOOGLE_KEY, googleCseId: GOOGLE_CX }, none)).toMatchObject({ engine: 'google', googleCseId: GOOGLE_CX });
  });

  test('a malformed key is refused even for an engine not chosen; an unknown engine is refused', () => {
    expect(fieldOf(() => validateSearchSettings({ engine: 'duckduckgo', bingApiKey: 'has spaces in it' }, none))).toBe('bingApiKey');
    expect(fieldOf(() => validateSearchSettings({ engine: 'altavista' }, none))).toBe('engine');
  });
});

describe('test endpoints', () => {
  test('only loopback http addresses are accepted', () => {
    expect(isLoopbackEndpoint('http://127.0.0.1:8080/duckduckgo/html/')).toBe(true);
    expect(isLoopbackEndpoint('http://localhost:3000/s')).toBe(true);
    expect(isLoopbackEndpoint('https://evil.example.com/s')).toBe(false);
    expect(isLoopbackEndpoint('http://127.0.0.1.evil.example/s')).toBe(false);
    expect(isLoopbackEndpoint('file:///tmp/x')).toBe(false);
  });

  test('overrides come from the extension\'s IndexedDB, and anything not on this computer is ignored', async () => {
    const db = openDb(`endpoints-${Math.random()}`);
    const store = searchStore(pluginStorage(db, 'web'));
    expect((await searchEndpoints(store)).duckduckgo).toBe('https://html.duckduckgo.com/html/');
    await db.secrets.put({ key: TEST_ENDPOINTS_KEY, value: JSON.stringify({ duckduckgo: 'http://127.0.0.1:9999/ddg', bing: 'https://attacker.example/steal' }) });
    const endpoints = await searchEndpoints(store);
    expect(endpoints.duckduckgo).toBe('http://127.0.0.1:9999/ddg');
    expect(endpoints.bing).toBe('https://api.bing.microsoft.com/v7.0/search');
    await db.secrets.put({ key: TEST_ENDPOINTS_KEY, value: 'not json' });
    expect((await searchEndpoints(store)).duckduckgo).toBe('https://html.duckduckgo.com/html/');
    db.close();
  });
});

describe('SearchService', () => {
  let engines: Awaited<ReturnType<typeof startSearchEngines>>;
  let db: SidequestDb;
  let service: SearchService;
  let store: ReturnType<typeof searchStore>;

  beforeAll(async () => {
    engines = await startSearchEngines();
  });
  afterAll(async () => {
    await engines.close();
  });
  beforeEach(async () => {
    db = openDb(`search-${Math.random()}`);
    await db.secrets.put({ key: TEST_ENDPOINTS_KEY, value: JSON.stringify(engines.endpoints) });
    store = searchStore(pluginStorage(db, 'web'));
    service = new SearchService(store, {
      fetch: (input, init) => fetch(input, init),
      parsePage: async (engine, html, url) => parseSearchPage(engine, parseHtml(html), url),
    });
  });

  test('DuckDuckGo by default, with no key', async () => {
    expect(await service.view()).toEqual({ engine: 'duckduckgo', googleCseId: '', hasKey: { bing: false, google: false } });
    const results = await service.search('sidequest', 2);
    expect(results).toHaveLength(2);
    expect(engines.requests.at(-1)).toMatchObject({ engine: 'duckduckgo', query: 'sidequest' });
  });

  test('a saved choice is used by the very next search; keys stay in IndexedDB, out of storage.local', async () => {
    const view = await service.save({ engine: 'bing', bingApiKey: BING_KEY });
    expect(view).toEqual({ engine: 'bing', googleCseId: '', hasKey: { bing: true, google: false } });
    expect(await store.settings.getValue()).toEqual({ engine: 'bing', googleCseId: '' });
    expect(JSON.stringify(await db.pluginData.toArray())).not.toContain(BING_KEY);
    expect(JSON.stringify(await storage.snapshot('local'))).not.toContain(BING_KEY);
    expect((await db.secrets.get('web.search.bing.apiKey'))?.value).toBe(BING_KEY);
    await service.search('switched', 3);
    expect(engines.requests.at(-1)).toMatchObject({ engine: 'bing', query: 'switched' });

    // Saving again without typing the key keeps it; '' removes it (and then Bing cannot be chosen).
    await service.save({ engine: 'baidu' });
    expect((await service.view()).hasKey.bing).toBe(true);
    await service.save({ engine: 'baidu', bingApiKey: '' });
    expect((await service.view()).hasKey.bing).toBe(false);
  });

  test('invalid settings save nothing', async () => {
    await expect(service.save({ engine: 'google', googleApiKey: GOOGLE_KEY })).rejects.toThrow(/search engine ID/);
    expect(await service.view()).toMatchObject({ engine: 'duckduckgo', hasKey: { google: false } });
  });

  test('Test runs a real query with the form\'s values and shows the results or the error', async () => {
    const ok = await service.test({ engine: 'google', googleApiKey: GOOGLE_KEY, googleCseId: GOOGLE_CX, query: 'web agents' });
    expect(ok).toMatchObject({ ok: true, engine: 'google', query: 'web agents' });
    expect(ok.ok && ok.results[0]?.title).toBe('web agents — the official site');
    // Nothing was saved by testing.
    expect((await service.view()).engine).toBe('duckduckgo');

    const bad = await service.test({ engine: 'bing', bingApiKey: 'ffffffffffffffffffffffffffffffff', query: 'x' });
    expect(bad).toMatchObject({ ok: false, engine: 'bing' });
    expect(!bad.ok && bad.error).toMatch(/Bing refused the API key/);

    const missing = await service.test({ engine: 'bing', query: 'x' });
    expect(!missing.ok && missing.error).toMatch(/Bing needs an API key/);

    const blocked = await service.test({ engine: 'duckduckgo', query: 'captcha' });
    expect(!blocked.ok && blocked.error).toMatch(/CAPTCHA/);
  });
});

describe('search settings of an earlier version', () => {
  test('move from storage.local and the old key names into the plugin\'s storage, once', async () => {
    const db = openDb(`legacy-${Math.random()}`);
    await storage.setItem('local:search', { engine: 'bing', googleCseId: '' });
    await db.secrets.put({ key: 'search.bing.apiKey', value: BING_KEY });
    const store = searchStore(pluginStorage(db, 'web'));
    expect(await store.settings.getValue()).toEqual({ engine: 'bing', googleCseId: '' });
    expect(await store.keys.bing?.getValue()).toBe(BING_KEY);
    expect(await storage.getItem('local:search')).toBeNull();
    expect(await db.secrets.get('search.bing.apiKey')).toBeUndefined();
    db.close();
  });

  test('a stored value that does not fit is reported and the default used', async () => {
    const db = openDb(`invalid-${Math.random()}`);
    await db.pluginData.put({ key: 'web/search', value: { engine: 'altavista', googleCseId: 3 } });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await searchStore(pluginStorage(db, 'web')).settings.getValue()).toEqual({ engine: 'duckduckgo', googleCseId: '' });
    expect(warn.mock.calls[0]?.[0]).toMatch(/The setting db:web\/search is not valid \(engine: .*googleCseId: .*\); using the default instead/);
    warn.mockRestore();
    db.close();
  });
});

describe('the engine list is the one source', () => {
  test('each engine once, with what the settings page, the store and the gate take from it', async () => {
    const { SEARCH_ENGINES, SEARCH_ENGINE_IDS, DEFAULT_ENDPOINTS } = await import('@/plugins/web/search/engines');
    const { KEYED_ENGINES, searchSettingsFile, searchSettingsSchema } = await import('@/plugins/web/search/settings');
    expect(new Set(SEARCH_ENGINE_IDS).size).toBe(SEARCH_ENGINES.length);
    for (const engine of SEARCH_ENGINES) {
      expect(searchSettingsSchema().safeParse({ engine: engine.id, googleCseId: '' }).success, engine.id).toBe(true);
      expect(DEFAULT_ENDPOINTS[engine.id]).toMatch(/^https:\/\//);
      expect(engine.hint).toMatch(/^search\./);
    }
    expect(searchSettingsSchema().safeParse({ engine: 'altavista', googleCseId: '' }).success).toBe(false);
    expect(KEYED_ENGINES.map((e) => e.id)).toEqual(['bing', 'google']);
    for (const engine of KEYED_ENGINES) expect(searchSettingsFile.secret?.(engine.key.secretName), engine.id).toBeDefined();
    expect(searchSettingsFile.secret?.('search.altavista.apiKey')).toBeUndefined();
  });

  test('the gate\'s target puts the query where the engine takes it, never a key', async () => {
    const db = openDb(`target-${Math.random()}`);
    const store = searchStore(pluginStorage(db, 'web'));
    const service = new SearchService(store, { fetch: () => Promise.reject(new Error('no network')), parsePage: async () => ({ kind: 'empty' }) });
    expect(await service.target('tide  pools')).toBe('https://html.duckduckgo.com/html/?q=tide+pools');
    await store.settings.setValue({ engine: 'baidu', googleCseId: '' });
    expect(await service.target('tide pools')).toBe('https://www.baidu.com/s?wd=tide+pools');
    await store.keys.bing?.setValue(BING_KEY);
    await store.settings.setValue({ engine: 'bing', googleCseId: '' });
    expect(await service.target('x')).not.toContain(BING_KEY);
    db.close();
  });
});

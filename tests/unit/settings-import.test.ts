// Importing a settings file: the key rule (a thing moved to another origin loses its saved secrets
// unless the file carries its own), the `imported` mark (an address from a file is not one the user
// configured), the preview, and the two steps (a token bound to the text and to the preview).
// Hostile files are built as text: an object literal's `__proto__` never reaches JSON.
import { describe, expect, it } from 'vitest';
import { ProviderService } from '@/core/background/providers';
import { ImportError } from '@/core/data/archive';
import { exportSettingsFile } from '@/core/data/settings-file';
import {
  applySettingsImport,
  planSettingsImport,
  SettingsImports,
  type ImportRow,
  type PendingImport,
  type PendingStore,
  type SettingsImportPreview,
} from '@/core/data/settings-import';
import { english } from '@/core/i18n/catalog';
import { keepsSecret } from '@/core/net/key-origin';
import { originOf } from '@/core/net/origin';
import { openDb, type SidequestDb } from '@/core/storage/db';
import { agentSettings, ProviderSecrets, providerSettingsStore, type ProviderProfile } from '@/core/storage/settings';
import { builtinPlugins } from '@/plugins';

let n = 0;
const freshDb = () => openDb(`test-settings-import-${++n}-${Math.random()}`);
const plugins = builtinPlugins;

const ONE: ProviderProfile = { id: 'default', name: 'Work', type: 'openai-compatible', baseUrl: 'https://api.one.example/v1', model: 'm' };
const TWO: ProviderProfile = { id: 'p2', name: 'Home', type: 'ollama', baseUrl: 'http://127.0.0.1:11434', model: 'llama3.2' };

/** A database holding these profiles, their keys and other secrets and values. */
async function seeded(profiles: ProviderProfile[], secrets: Record<string, string> = {}, rows: Record<string, unknown> = {}): Promise<SidequestDb> {
  const db = freshDb();
  await providerSettingsStore(db).setValue({ activeId: profiles[0]!.id, profiles });
  await db.secrets.bulkPut(Object.entries(secrets).map(([key, value]) => ({ key, value })));
  await db.pluginData.bulkPut(Object.entries(rows).map(([key, value]) => ({ key, value })));
  return db;
}

/** A settings file's text: the provider profiles, limits, plugin rows and keys given. */
function fileText(profiles: unknown[], { rows = [] as unknown[], keys, limits = { maxSteps: 25 } as unknown, activeId = 'default' } = {} as { rows?: unknown[]; keys?: unknown[]; limits?: unknown; activeId?: string }): string {
  return JSON.stringify({ format: 'sidequest-settings', version: 1, exportedAt: 'now', provider: { activeId, profiles }, limits, pluginData: rows, ...(keys ? { keys } : {}) });
}

const secretsOf = async (db: SidequestDb) => Object.fromEntries((await db.secrets.toArray()).map((r) => [r.key, r.value]));
const section = (preview: SettingsImportPreview, id: string): ImportRow[] => preview.sections.find((s) => s.id === id)?.rows ?? [];

async function importNow(db: SidequestDb, text: string) {
  const plan = await planSettingsImport(db, text, { plugins });
  await applySettingsImport(db, plan);
  return plan;
}

describe('the key rule (core/net/key-origin.ts)', () => {
  it('keeps a secret only for the same http(s) origin', () => {
    expect(keepsSecret('https://api.one.example/v1', 'https://api.one.example/v2/')).toBe(true);
    expect(keepsSecret('https://api.one.example/v1', 'http://api.one.example/v1')).toBe(false);
    expect(keepsSecret('https://api.one.example/v1', 'https://api.one.example:8443/v1')).toBe(false);
    expect(keepsSecret('https://api.one.example/v1', 'https://api.one.example.evil.example/v1')).toBe(false);
    expect(keepsSecret('https://api.one.example/v1', 'https://user@api.two.example/v1')).toBe(false);
    expect(keepsSecret('not a url', 'not a url')).toBe(false);
    expect(keepsSecret('file:///etc/passwd', 'file:///etc/passwd')).toBe(false);
    expect(keepsSecret(undefined, undefined)).toBe(false);
    expect(originOf('HTTPS://API.One.Example:443/v1')).toBe('https://api.one.example');
  });

  it('is the provider form\'s rule too: a profile saved at another origin loses its key, and the save confirms an imported address', async () => {
    const db = await seeded([{ ...ONE, imported: true }], { 'provider.apiKey': 'sk-one' });
    const providers = new ProviderService(new ProviderSecrets(db));
    expect(await providers.origins()).toEqual([]);
    expect(await providers.save({ id: 'default', baseUrl: 'https://api.one.example/v2', model: 'm' })).toMatchObject({ hasApiKey: true });
    expect((await providers.settings.getValue()).profiles[0]!.imported).toBeUndefined();
    expect(await providers.origins()).toEqual(['https://api.one.example']);
    expect(await providers.save({ id: 'default', baseUrl: 'https://api.two.example/v1', model: 'm' })).toMatchObject({ hasApiKey: false });
  });
});

describe('importing provider profiles', () => {
  it('a profile moved to another origin loses its saved key and is marked imported; the next request carries no key', async () => {
    const db = await seeded([ONE, TWO], { 'provider.apiKey': 'sk-one', 'provider.apiKey.p2': 'sk-two' });
    const moved = { ...ONE, baseUrl: 'https://collect.evil.example/v1' };
    const plan = await planSettingsImport(db, fileText([moved, TWO]), { plugins });
    expect(section(plan.preview, 'profiles')).toEqual([
      { change: 'changed', name: 'Work', address: 'https://collect.evil.example/v1', before: 'https://api.one.example/v1', local: false, key: 'loses' },
    ]);
    // The preview wrote nothing.
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-one', 'provider.apiKey.p2': 'sk-two' });
    await applySettingsImport(db, plan);
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey.p2': 'sk-two' });
    const providers = new ProviderService(new ProviderSecrets(db));
    expect(await providers.config()).toMatchObject({ baseUrl: 'https://collect.evil.example/v1', apiKey: undefined });
    const profiles = (await providers.settings.getValue()).profiles;
    expect(profiles.find((p) => p.id === 'default')!.imported).toBe(true);
    // The unchanged local profile stays the user's own: its origin is still configured.
    expect(profiles.find((p) => p.id === 'p2')!.imported).toBeUndefined();
    expect(await providers.origins()).toEqual(['http://127.0.0.1:11434']);
  });

  it('the same origin keeps the key; a key in the file replaces it; a file cannot claim an address is confirmed', async () => {
    const db = await seeded([ONE, { ...TWO, imported: true }], { 'provider.apiKey': 'sk-one' });
    const plan = await importNow(
      db,
      fileText([{ ...ONE, baseUrl: 'https://api.one.example/v2', imported: false }, { ...TWO, model: 'qwen3', imported: false }], { keys: [{ key: 'provider.apiKey.p2', value: 'sk-file' }] }),
    );
    expect(section(plan.preview, 'profiles')).toEqual([
      { change: 'changed', name: 'Work', address: 'https://api.one.example/v2', before: 'https://api.one.example/v1', local: false, key: 'keeps' },
      { change: 'changed', name: 'Home', address: 'http://127.0.0.1:11434', local: true, key: 'fromFile' },
    ]);
    expect(section(plan.preview, 'keys').map((r) => english(r.detail!))).toEqual(['API key of Home']);
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-one', 'provider.apiKey.p2': 'sk-file' });
    const profiles = (await providerSettingsStore(db).getValue()).profiles;
    expect(profiles.map((p) => p.imported)).toEqual([undefined, true]);
  });

  it('a moved profile the file carries a key for gets the file\'s key', async () => {
    const db = await seeded([ONE], { 'provider.apiKey': 'sk-one' });
    const plan = await importNow(db, fileText([{ ...ONE, baseUrl: 'https://api.two.example/v1' }], { keys: [{ key: 'provider.apiKey', value: 'sk-two' }] }));
    expect(section(plan.preview, 'profiles')[0]).toMatchObject({ change: 'changed', key: 'fromFile' });
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-two' });
  });

  it('a profile brought back under an id whose key outlived it does not get that key; removed profiles lose theirs', async () => {
    // A key left under an id no profile has (an earlier import removed its profile, say).
    const db = await seeded([ONE, TWO], { 'provider.apiKey': 'sk-one', 'provider.apiKey.p2': 'sk-two', 'provider.apiKey.ghost': 'sk-ghost' });
    const ghost: ProviderProfile = { id: 'ghost', name: 'Ghost', type: 'openai-compatible', baseUrl: 'http://10.0.0.9/v1', model: 'm' };
    const plan = await importNow(db, fileText([ONE, ghost]));
    expect(section(plan.preview, 'profiles')).toEqual([
      { change: 'added', name: 'Ghost', address: 'http://10.0.0.9/v1', local: true, key: 'loses' },
      { change: 'removed', name: 'Home', address: 'http://127.0.0.1:11434', local: true, key: 'loses' },
    ]);
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-one' });
    expect((await providerSettingsStore(db).getValue()).profiles.map((p) => [p.id, p.imported])).toEqual([['default', undefined], ['ghost', true]]);
  });

  it('re-importing one\'s own export changes nothing and keeps everything confirmed', async () => {
    const db = await seeded([ONE, TWO], { 'provider.apiKey': 'sk-one' }, { 'core/pluginSwitches': { scripting: false } });
    await agentSettings.setValue({ maxSteps: 25 });
    const own = JSON.stringify(await exportSettingsFile(db, false));
    const plan = await importNow(db, own);
    expect(plan.preview.sections).toEqual([]);
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-one' });
    expect(await new ProviderService(new ProviderSecrets(db)).origins()).toEqual(['https://api.one.example', 'http://127.0.0.1:11434']);
  });

  it('refuses a file that gives one profile id twice, writing nothing', async () => {
    const db = await seeded([ONE], { 'provider.apiKey': 'sk-one' });
    await expect(planSettingsImport(db, fileText([ONE, { ...ONE, baseUrl: 'https://evil.example/v1' }]), { plugins })).rejects.toThrow(/lists the id default twice/);
  });
});

describe('importing MCP servers', () => {
  const server = (id: string, url: string, extra: Record<string, unknown> = {}) => ({ id, url, name: '', slug: id, addedAt: 1, tools: [], ...extra });

  it('a server moved to another origin, or brought back, loses its credentials and OAuth tokens; every imported address is marked', async () => {
    const db = await seeded([ONE], {
      'mcp.server.a': '{"Authorization":"Bearer tok-a"}',
      'mcp.server.a.oauth': '{"tokens":{"access_token":"at-a"}}',
      'mcp.server.b': '{"Authorization":"Bearer tok-b"}',
      'mcp.server.c': '{"Authorization":"Bearer tok-c"}',
      'mcp.server.orphan': '{"Authorization":"Bearer tok-orphan"}',
    }, { 'mcp/servers': [server('a', 'https://mcp.one.example/mcp'), server('b', 'https://mcp.two.example/mcp'), server('c', 'https://mcp.three.example/mcp')] });
    const text = fileText([ONE], {
      rows: [{ key: 'mcp/servers', value: [server('a', 'http://127.0.0.1:7777/mcp'), server('b', 'https://mcp.two.example/other'), server('orphan', 'https://mcp.orphan.example/mcp', { name: 'Back' })] }],
    });
    const plan = await importNow(db, text);
    expect(section(plan.preview, 'mcp/servers')).toEqual([
      { change: 'changed', name: '127.0.0.1:7777', address: 'http://127.0.0.1:7777/mcp', before: 'https://mcp.one.example/mcp', local: true, key: 'loses' },
      { change: 'changed', name: 'mcp.two.example', address: 'https://mcp.two.example/other', before: 'https://mcp.two.example/mcp', local: false, key: 'keeps' },
      { change: 'added', name: 'Back', address: 'https://mcp.orphan.example/mcp', local: false, key: 'loses' },
      { change: 'removed', name: 'mcp.three.example', address: 'https://mcp.three.example/mcp', local: false, key: 'loses' },
    ]);
    expect(await secretsOf(db)).toEqual({ 'mcp.server.b': '{"Authorization":"Bearer tok-b"}' });
    const stored = (await db.pluginData.get('mcp/servers'))!.value as Array<{ id: string; imported?: boolean }>;
    expect(stored.map((s) => [s.id, s.imported])).toEqual([['a', true], ['b', undefined], ['orphan', true]]);
  });

  it('a server value that does not fit is refused, naming the place, and nothing is written', async () => {
    const db = await seeded([ONE], { 'provider.apiKey': 'sk-one' });
    const text = fileText([{ ...ONE, baseUrl: 'https://evil.example/v1' }], { rows: [{ key: 'mcp/servers', value: [{ id: 'x', url: 5 }] }] });
    const error = await planSettingsImport(db, text, { plugins }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toMatch(/pluginData "mcp\/servers"\[0\]\.url/);
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-one' });
  });
});

describe('the preview', () => {
  it('names limits, plugin switches, remembered sites, the search engine, keys in the file and other values', async () => {
    const db = await seeded([ONE], { 'web.search.bing.apiKey': 'old' }, {
      'core/pluginSwitches': { scripting: false, web: true },
      'page_tools/sitePermissions': { 'https://a.example': { origin: 'https://a.example', decision: 'never', at: 1 }, 'https://gone.example': { origin: 'https://gone.example', decision: 'always', at: 1 } },
    });
    await agentSettings.setValue({ maxSteps: 25 });
    const text = fileText([ONE], {
      limits: { maxSteps: 40, runTokenBudget: 5000 },
      rows: [
        { key: 'core/pluginSwitches', value: { scripting: true, web: true } },
        { key: 'page_tools/sitePermissions', value: { 'https://a.example': { origin: 'https://a.example', decision: 'always', at: 2 }, 'http://192.168.1.1': { origin: 'http://192.168.1.1', decision: 'always', at: 2 } } },
        { key: 'web/search', value: { engine: 'bing', googleCseId: '' } },
        { key: 'someplugin/thing', value: 1 },
      ],
      keys: [{ key: 'web.search.bing.apiKey', value: 'new-bing-key' }, { key: 'unknown.secret', value: 'x' }],
    });
    const { preview } = await planSettingsImport(db, text, { plugins, pluginName: (id) => (id === 'scripting' ? 'Scripting' : undefined) });
    const words = (rows: ImportRow[]) => rows.map((r) => [r.change, r.name, r.detail && english(r.detail), r.address, r.local].filter((x) => x !== undefined && x !== ''));
    expect(words(section(preview, 'limits'))).toEqual([['changed', 'Step limit per run: 25 → 40'], ['changed', 'Token budget per run: none → 5000']]);
    expect(words(section(preview, 'switches'))).toEqual([['changed', 'Scripting', 'on']]);
    expect(words(section(preview, 'page_tools/sitePermissions'))).toEqual([
      ['changed', 'tools always allowed', 'https://a.example', false],
      ['added', 'tools always allowed', 'http://192.168.1.1', true],
      ['removed', 'tools always allowed', 'https://gone.example', false],
    ]);
    expect(words(section(preview, 'web/search'))).toEqual([['changed', 'Search engine: Bing']]);
    expect(words(section(preview, 'keys'))).toEqual([['changed', 'Bing API key'], ['added', 'unknown.secret']]);
    expect(words(section(preview, 'other'))).toEqual([['added', 'someplugin/thing']]);
    expect(preview.sections.map((s) => english(s.title))).toEqual(['Limits', 'Plugins', 'Page tools: remembered sites', 'Web search', 'Other stored values', 'Keys in the file']);
  });

  it('hostile text: __proto__ keys pollute nothing, a site kept under another origin\'s name is refused, test-only entries never enter', async () => {
    const db = await seeded([ONE], { 'provider.apiKey': 'sk-one' });
    const head = '{"format":"sidequest-settings","version":1,"exportedAt":"now","limits":{"maxSteps":25,"__proto__":{"polluted":1}},';
    const text =
      head +
      '"provider":{"activeId":"default","__proto__":{"polluted":1},"profiles":[{"id":"default","name":"Work","type":"openai-compatible","baseUrl":"https://api.one.example/v1","model":"m","__proto__":{"imported":false,"polluted":1}}]},' +
      '"pluginData":[{"key":"page_tools/sitePermissions","value":{"__proto__":{"origin":"https://x.example","decision":"always","at":1},"https://a.example":{"origin":"https://a.example","decision":"always","at":1}}},' +
      '{"key":"__proto__","value":{"polluted":1}},{"key":"web/test.localOrigins","value":"x"}],' +
      '"keys":[{"key":"__proto__","value":"x"},{"key":"web.test.localOrigins","value":"[\\"http://127.0.0.1:1\\"]"}]}';
    expect(text).toContain('"__proto__"');
    const plan = await importNow(db, text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(section(plan.preview, 'page_tools/sitePermissions').map((r) => r.address)).toEqual(['https://a.example']);
    expect(Object.keys((await db.pluginData.get('page_tools/sitePermissions'))!.value as object)).toEqual(['https://a.example']);
    expect(await db.pluginData.get('web/test.localOrigins')).toBeUndefined();
    expect(await db.secrets.get('web.test.localOrigins')).toBeUndefined();
    // A secret named "__proto__" is only a string key in the table.
    expect(await db.secrets.toArray()).toEqual([{ key: '__proto__', value: 'x' }, { key: 'provider.apiKey', value: 'sk-one' }]);

    const sneaky = fileText([ONE], { rows: [{ key: 'page_tools/sitePermissions', value: { 'https://bank.example': { origin: 'https://evil.example', decision: 'always', at: 1 } } }] });
    await expect(planSettingsImport(db, sneaky, { plugins })).rejects.toThrow(/each site must be kept under its own origin/);
  });
});

describe('the two steps', () => {
  function memoryPending(): PendingStore & { value: PendingImport | null } {
    const store = {
      value: null as PendingImport | null,
      getValue: async () => store.value,
      setValue: async (v: PendingImport | null) => void (store.value = v),
    };
    return store;
  }
  const moved = () => fileText([{ ...ONE, baseUrl: 'https://api.two.example/v1' }]);

  it('the preview writes nothing; Import applies exactly the previewed text, once', async () => {
    const db = await seeded([ONE], { 'provider.apiKey': 'sk-one' });
    const imports = new SettingsImports(db, { plugins, pending: memoryPending() });
    const { token, preview } = await imports.preview(moved());
    expect(section(preview, 'profiles')[0]).toMatchObject({ key: 'loses' });
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-one' });
    await expect(imports.apply('not-the-token', moved())).rejects.toThrow(/can no longer be imported/);
    const applied = await imports.apply(token, moved());
    expect(applied.map(english)).toContain('provider profiles');
    expect(await secretsOf(db)).toEqual({});
    await expect(imports.apply(token, moved())).rejects.toThrow(/can no longer be imported/);
  });

  it('other text than the previewed one is refused and uses up the token', async () => {
    const db = await seeded([ONE], { 'provider.apiKey': 'sk-one' });
    const imports = new SettingsImports(db, { plugins, pending: memoryPending() });
    const { token } = await imports.preview(fileText([ONE]));
    await expect(imports.apply(token, moved())).rejects.toThrow(/can no longer be imported/);
    await expect(imports.apply(token, fileText([ONE]))).rejects.toThrow(/can no longer be imported/);
    expect((await providerSettingsStore(db).getValue()).profiles[0]!.baseUrl).toBe(ONE.baseUrl);
  });

  it('settings changed since the preview: nothing is imported', async () => {
    const db = await seeded([ONE]);
    const imports = new SettingsImports(db, { plugins, pending: memoryPending() });
    const { token, preview } = await imports.preview(moved());
    expect(section(preview, 'profiles')[0]!.key).toBeUndefined();
    // Meanwhile a key is saved for the profile: the preview's "no key" would no longer be true.
    await db.secrets.put({ key: 'provider.apiKey', value: 'sk-new' });
    await expect(imports.apply(token, moved())).rejects.toThrow(/changed since this preview/);
    expect((await providerSettingsStore(db).getValue()).profiles[0]!.baseUrl).toBe(ONE.baseUrl);
    expect(await secretsOf(db)).toEqual({ 'provider.apiKey': 'sk-new' });
  });

  it('Cancel and expiry leave nothing to import; two Imports at once apply once', async () => {
    const db = await seeded([ONE]);
    let now = 1_000;
    const imports = new SettingsImports(db, { plugins, pending: memoryPending(), now: () => now });
    const first = await imports.preview(moved());
    await imports.cancel(first.token);
    await expect(imports.apply(first.token, moved())).rejects.toThrow(/can no longer be imported/);
    const second = await imports.preview(moved());
    now += 31 * 60_000;
    await expect(imports.apply(second.token, moved())).rejects.toThrow(/can no longer be imported/);
    const third = await imports.preview(moved());
    const results = await Promise.allSettled([imports.apply(third.token, moved()), imports.apply(third.token, moved())]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await providerSettingsStore(db).getValue()).profiles[0]!.baseUrl).toBe('https://api.two.example/v1');
  });
});

// One way to store a value (`defineSetting`, core/storage/setting.ts): every setting registers
// itself; the settings file (core/data/settings-file.ts) takes every exported one and checks each
// against its schema on import; secrets never go into it unless asked; old values move once.
import { describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { storage } from 'wxt/utils/storage';
import { z } from 'zod/mini';
import { exportSettingsFile } from '@/core/data/settings-file';
import { applySettingsImport, planSettingsImport, pendingSettingsImport } from '@/core/data/settings-import';
import { english } from '@/core/i18n/catalog';
import { openDb } from '@/core/storage/db';
import { pluginStorage } from '@/core/storage/plugin-data';
import { defineSetting, findSetting, lazy, registeredSettings } from '@/core/storage/setting';
import { agentSettings, drafts, uiLanguage } from '@/core/storage/settings';
import { builtinPlugins } from '@/plugins';

let n = 0;
const freshDb = () => openDb(`test-setting-registry-${++n}-${Math.random()}`);
const plugins = builtinPlugins;

async function importText(db: ReturnType<typeof openDb>, text: string) {
  const plan = await planSettingsImport(db, text, { plugins });
  await applySettingsImport(db, plan);
  return plan;
}

describe('the registry', () => {
  it('lists every setting; the exported ones are the user\'s preferences, not drafts, ids or per-conversation choices', () => {
    void pendingSettingsImport;
    const ids = registeredSettings().map((s) => s.id);
    for (const id of ['local:agent', 'local:uiLanguage', 'db:core/provider', 'local:drafts', 'local:activeConversation', 'local:sidebarRequest', 'local:conversationModels', 'session:settingsImport']) {
      expect(ids).toContain(id);
    }
    const exported = registeredSettings().filter((s) => s.exported).map((s) => s.id);
    expect(exported).toEqual(expect.arrayContaining(['local:agent', 'local:uiLanguage', 'db:core/provider']));
    for (const id of ['local:drafts', 'local:activeConversation', 'local:sidebarRequest', 'local:conversationModels', 'session:settingsImport']) {
      expect(exported).not.toContain(id);
    }
    expect(findSetting('local', 'uiLanguage')).toBe(uiLanguage);
  });

  it('a schema given lazily is made at the first check, once, and checks as a schema given at once does', async () => {
    let made = 0;
    const schema = lazy(() => {
      made++;
      return z.object({ count: z.number() });
    });
    const local = defineSetting<{ count: number }>('local:test.lazySchema', { fallback: { count: 0 }, schema, version: 1 });
    const db = freshDb();
    const inDb = pluginStorage(db, 'probe').item<{ count: number }>('lazy', { fallback: { count: 0 }, schema, exported: false });
    const records = pluginStorage(db, 'probe').collection<{ count: number }>('lazy', { schema });
    expect(made).toBe(0);
    await local.setValue({ count: 2 });
    await expect(local.setValue({ count: 'two' } as never)).rejects.toThrow();
    expect(await local.getValue()).toEqual({ count: 2 });
    await inDb.setValue({ count: 3 });
    expect(await inDb.getValue()).toEqual({ count: 3 });
    await records.put('a', { count: 4 });
    await expect(records.put('b', { count: null } as never)).rejects.toThrow();
    expect(await records.list()).toEqual([{ count: 4 }]);
    expect(local.schema).toBe(schema());
    expect(made).toBe(1);
    // A stored value that no longer fits reads as the fallback.
    await storage.setItem('local:test.lazySchema', { count: 'x' });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await local.getValue()).toEqual({ count: 0 });
    warn.mockRestore();
  });

  it('a plugin\'s items and secrets are settings too, under <plugin>/<name> and <plugin>.<name>; a secret cannot be exported', async () => {
    const db = freshDb();
    const storage = pluginStorage(db, 'demo');
    const item = storage.item('things', { fallback: [] as string[], schema: z.array(z.string()) });
    const key = storage.secret('api.key');
    expect(findSetting('db', 'demo/things')).toMatchObject({ area: 'db', exported: true, secret: false });
    expect(findSetting('secret', 'demo.api.key')).toMatchObject({ area: 'db', exported: false, secret: true });
    await item.setValue(['a']);
    await key.setValue('  sk-demo  ');
    expect(await db.pluginData.get('demo/things')).toEqual({ key: 'demo/things', value: ['a'] });
    expect(await db.secrets.get('demo.api.key')).toEqual({ key: 'demo.api.key', value: 'sk-demo' });
    await key.setValue('');
    expect(await db.secrets.get('demo.api.key')).toBeUndefined();
    expect(() => defineSetting('nope', { area: 'db', secret: true, exported: true } as never)).toThrow(/cannot be exported/);
    expect(() => defineSetting('session:nope', { exported: true, fallback: 1, schema: z.number(), version: 1 })).toThrow(/cannot be exported/);
    db.close();
  });

  it('one copy moves old values: from storage.local (migrated, checked) and from a secret\'s old name, once', async () => {
    const db = freshDb();
    await fakeBrowser.storage.local.set({ oldThing: { count: 3 }, oldBad: { count: 'x' } });
    const good = defineSetting<{ count: number }>('demo/moved', { area: 'db', fallback: { count: 0 }, schema: z.object({ count: z.number() }), legacy: { key: 'local:oldThing' } }).in(db);
    expect(await good.getValue()).toEqual({ count: 3 });
    expect(await storage.getItem('local:oldThing')).toBeNull();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const bad = defineSetting<{ count: number }>('demo/bad', { area: 'db', fallback: { count: 0 }, schema: z.object({ count: z.number() }), legacy: { key: 'local:oldBad' } }).in(db);
    expect(await bad.getValue()).toEqual({ count: 0 });
    expect(await db.pluginData.get('demo/bad')).toBeUndefined();
    expect(await storage.getItem('local:oldBad')).toBeNull();
    warn.mockRestore();
    // A value here already wins over an old one.
    await fakeBrowser.storage.local.set({ oldThing: { count: 9 } });
    const again = defineSetting<{ count: number }>('demo/moved', { area: 'db', fallback: { count: 0 }, schema: z.object({ count: z.number() }), legacy: { key: 'local:oldThing' } }).in(db);
    expect(await again.getValue()).toEqual({ count: 3 });
    // The first reads look for the old value beside reading the row: two at once both see it moved.
    await fakeBrowser.storage.local.set({ oldTwice: { count: 5 } });
    const twice = defineSetting<{ count: number }>('demo/twice', { area: 'db', fallback: { count: 0 }, schema: z.object({ count: z.number() }), legacy: { key: 'local:oldTwice' } }).in(db);
    expect(await Promise.all([twice.getValue(), twice.getValue()])).toEqual([{ count: 5 }, { count: 5 }]);
    db.close();
  });
});

describe('the settings file takes the registry', () => {
  it('exports the language (a preference) and no draft; imports it back with a preview line', async () => {
    const db = freshDb();
    await uiLanguage.setValue('he');
    await drafts.setValue({ c1: 'half a thought' });
    const file = await exportSettingsFile(db, false);
    expect(file.preferences).toEqual({ uiLanguage: 'he' });
    expect(JSON.stringify(file)).not.toContain('half a thought');

    await uiLanguage.setValue('auto');
    const plan = await importText(db, JSON.stringify(file));
    expect(plan.preview.sections.find((s) => s.id === 'preferences')?.rows.map((r) => english(r.detail!))).toEqual(['Language: auto → he']);
    expect(await uiLanguage.getValue()).toBe('he');
    // The same file again changes nothing, so it says nothing.
    const same = await planSettingsImport(db, JSON.stringify(file), { plugins });
    expect(same.preview.sections.find((s) => s.id === 'preferences')).toBeUndefined();
    db.close();
  });

  it('an older version-1 file (no preferences) still imports and leaves the language as it is', async () => {
    const db = freshDb();
    await uiLanguage.setValue('vi');
    const { preferences: _, ...old } = await exportSettingsFile(db, false);
    await agentSettings.setValue({ maxSteps: 3 });
    await importText(db, JSON.stringify(old));
    expect(await uiLanguage.getValue()).toBe('vi');
    expect((await agentSettings.getValue()).maxSteps).toBe(25);
    await uiLanguage.setValue('auto');
    db.close();
  });

  it('a preference that does not fit is refused, naming it; keys not exported or unknown are ignored', async () => {
    const db = freshDb();
    const file = await exportSettingsFile(db, false);
    const bad = JSON.stringify({ ...file, preferences: { uiLanguage: 'klingon' } });
    await expect(planSettingsImport(db, bad, { plugins })).rejects.toThrow(/preferences\.uiLanguage/);
    await drafts.setValue({});
    const text = JSON.stringify({ ...file, preferences: { drafts: { c1: 'planted' }, newerThing: 1 } }).replace('"preferences":{', '"preferences":{"__proto__":{"polluted":1},');
    const plan = await importText(db, text);
    expect(plan.preferences).toEqual([]);
    expect(await drafts.getValue()).toEqual({});
    expect(Object.prototype).not.toHaveProperty('polluted');
    db.close();
  });

  it('a database setting not exported stays out of the file both ways; an exported one is checked against its schema', async () => {
    const db = freshDb();
    defineSetting('demo/private', { area: 'db', fallback: 0, schema: z.number() });
    defineSetting('demo/shared', { area: 'db', exported: true, fallback: 0, schema: z.number() });
    await db.pluginData.bulkPut([{ key: 'demo/private', value: 1 }, { key: 'demo/shared', value: 2 }, { key: 'gone/old', value: 'kept as it is' }]);
    const file = await exportSettingsFile(db, false);
    expect(file.pluginData.map((r) => r.key)).toEqual(['demo/shared', 'gone/old']);

    const target = freshDb();
    const text = JSON.stringify({ ...file, pluginData: [...file.pluginData, { key: 'demo/private', value: 5 }] });
    await importText(target, text);
    expect(await target.pluginData.get('demo/private')).toBeUndefined();
    expect(await target.pluginData.get('demo/shared')).toEqual({ key: 'demo/shared', value: 2 });
    expect(await target.pluginData.get('gone/old')).toEqual({ key: 'gone/old', value: 'kept as it is' });
    const wrong = JSON.stringify({ ...file, pluginData: [{ key: 'demo/shared', value: 'two' }] });
    await expect(planSettingsImport(target, wrong, { plugins })).rejects.toThrow(/pluginData "demo\/shared"/);
    db.close();
    target.close();
  });

  it('secrets never go into the file unless asked', async () => {
    const db = freshDb();
    await pluginStorage(db, 'demo').secret('token').setValue('sk-very-secret');
    expect(JSON.stringify(await exportSettingsFile(db, false))).not.toContain('sk-very-secret');
    expect((await exportSettingsFile(db, true)).keys).toEqual([{ key: 'demo.token', value: 'sk-very-secret' }]);
    db.close();
  });
});

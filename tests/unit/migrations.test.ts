// Versioned storage: every step of the IndexedDB schema migrates a fixture of the shape before it,
// and settings read from storage are checked (a bad value falls back, with a clear message).
import Dexie from 'dexie';
import { describe, expect, it, vi } from 'vitest';
import { storage } from 'wxt/utils/storage';
import { z } from 'zod/mini';
import { openDb } from '@/core/storage/db';
import { applyDbVersions, DB_STEPS, DB_VERSION } from '@/core/storage/migrations/db';
import { migrateToolMessageV2 } from '@/core/storage/migrations/db-v2-tool-activity';
import { pluginStorage } from '@/core/storage/plugin-data';
import { defineSetting } from '@/core/storage/setting';
import v1 from '@/tests/fixtures/migrations/db-v1.json';
import v3 from '@/tests/fixtures/migrations/db-v3.json';
import v4 from '@/tests/fixtures/migrations/db-v4.json';
import v5 from '@/tests/fixtures/migrations/db-v5.json';
import v6 from '@/tests/fixtures/migrations/db-v6.json';
import { ConversationStore } from '@/core/storage/conversations';

/** Writes the fixture with the schema of version `version` (the steps up to it), then closes. */
async function writeOld(name: string, version: number, data: typeof v1): Promise<void> {
  const old = new Dexie(name);
  applyDbVersions(old, DB_STEPS.filter((s) => s.version <= version));
  await old.table('conversations').bulkAdd(data.conversations);
  await old.table('messages').bulkAdd(data.messages);
  await old.table('secrets').bulkAdd(data.secrets);
  old.close();
}

describe('IndexedDB migrations', () => {
  it('v1 → now: a sub-agent transcript becomes the tool message\'s generic activity; nothing else changes', async () => {
    const name = `migrate-v1-${Math.random()}`;
    await writeOld(name, 1, v1);
    const db = openDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    const messages = await db.messages.orderBy('[conversationId+seq]').toArray();
    expect(messages).toHaveLength(v1.messages.length);
    const tool = messages.find((m) => m.id === 'm3')!;
    expect(tool).not.toHaveProperty('subAgent');
    expect(tool).toMatchObject({ role: 'tool', activity: v1.messages[2]!.subAgent });
    // Messages without a transcript are left exactly as they were.
    expect(messages.find((m) => m.id === 'm4')).toEqual(v1.messages[3]);
    expect(messages.find((m) => m.id === 'm1')).toEqual(v1.messages[0]);
    expect(await db.conversations.toArray()).toEqual(v1.conversations);
    expect(await db.secrets.get('provider.apiKey')).toEqual({ key: 'provider.apiKey', value: 'sk-old' });
    db.close();
  });

  it('v2 → v3: plugins get their store, and a plugin\'s secret under its old name moves into it on first use', async () => {
    const name = `migrate-v2-${Math.random()}`;
    await writeOld(name, 2, { ...v1, messages: v1.messages.map((m) => migrateToolMessageV2(m) as (typeof v1.messages)[number]) });
    const db = openDb(name);
    const key = pluginStorage(db, 'web').secret('search.bing.apiKey', { legacyKey: 'search.bing.apiKey' });
    expect(await key.getValue()).toBe('0123456789abcdef0123456789abcdef');
    expect(await db.secrets.get('search.bing.apiKey')).toBeUndefined();
    expect(await db.secrets.get('web.search.bing.apiKey')).toMatchObject({ value: '0123456789abcdef0123456789abcdef' });
    expect(await db.pluginData.count()).toBe(0);
    db.close();
  });

  it('v3 → v4: the approval gate\'s permissions store is added, empty; everything else is kept as it was', async () => {
    const name = `migrate-v3-${Math.random()}`;
    const old = new Dexie(name);
    applyDbVersions(old, DB_STEPS.filter((s) => s.version <= 3));
    await old.table('conversations').bulkAdd(v3.conversations);
    await old.table('messages').bulkAdd(v3.messages);
    await old.table('secrets').bulkAdd(v3.secrets);
    await old.table('pluginData').bulkAdd(v3.pluginData);
    old.close();
    const db = openDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    expect(await db.permissions.count()).toBe(0);
    expect(await db.conversations.toArray()).toEqual(v3.conversations);
    expect(await db.messages.orderBy('[conversationId+seq]').toArray()).toEqual(v3.messages);
    expect(await db.pluginData.toArray()).toEqual(v3.pluginData);
    expect(await db.secrets.toArray()).toEqual(v3.secrets);
    // Keyed by tool and site: one choice per pair, found by site too.
    await db.permissions.put({ tool: 'run_script', site: 'https://shop.example', decision: 'allow', at: 1 });
    await db.permissions.put({ tool: 'run_script', site: 'https://shop.example', decision: 'deny', at: 2 });
    expect(await db.permissions.where('site').equals('https://shop.example').toArray()).toEqual([
      { tool: 'run_script', site: 'https://shop.example', decision: 'deny', at: 2 },
    ]);
    db.close();
  });

  it('v4 → v5: the traces store is added, empty; conversations with usage and sub-agent activity load as they were', async () => {
    const name = `migrate-v4-${Math.random()}`;
    const old = new Dexie(name);
    applyDbVersions(old, DB_STEPS.filter((s) => s.version <= 4));
    await old.table('conversations').bulkAdd(v4.conversations);
    await old.table('messages').bulkAdd(v4.messages);
    await old.table('secrets').bulkAdd(v4.secrets);
    await old.table('pluginData').bulkAdd(v4.pluginData);
    await old.table('permissions').bulkAdd(v4.permissions);
    old.close();
    const db = openDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    expect(await db.traces.count()).toBe(0);
    expect(await db.conversations.toArray()).toEqual(v4.conversations);
    expect(await db.messages.orderBy('[conversationId+seq]').toArray()).toEqual(v4.messages);
    expect(await db.pluginData.toArray()).toEqual(v4.pluginData);
    expect(await db.permissions.toArray()).toEqual(v4.permissions);
    expect(await db.secrets.toArray()).toEqual(v4.secrets);
    // Traces are found by conversation, so deleting a conversation deletes its traces.
    await db.traces.put({ messageId: 'm4', conversationId: 'c1', at: 1, attempts: 1, request: { method: 'POST', url: 'https://api.example/v1/chat/completions', headers: {}, body: '{}' } });
    expect(await db.traces.where('conversationId').equals('c1').count()).toBe(1);
    db.close();
  });

  it('v5 → v6: plugins get collections (pluginRecords), empty; everything else loads as it was', async () => {
    const name = `migrate-v5-${Math.random()}`;
    const old = new Dexie(name);
    applyDbVersions(old, DB_STEPS.filter((s) => s.version <= 5));
    for (const table of ['conversations', 'messages', 'secrets', 'pluginData', 'permissions', 'traces'] as const) await old.table(table).bulkAdd(v5[table]);
    old.close();
    const db = openDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    expect(await db.pluginRecords.count()).toBe(0);
    expect(await db.conversations.toArray()).toEqual(v5.conversations);
    expect(await db.messages.orderBy('[conversationId+seq]').toArray()).toEqual(v5.messages);
    expect(await db.pluginData.toArray()).toEqual(v5.pluginData);
    expect(await db.permissions.toArray()).toEqual(v5.permissions);
    expect(await db.secrets.toArray()).toEqual(v5.secrets);
    expect(await db.traces.toArray()).toEqual(v5.traces);
    db.close();
  });

  it('v6 → v7: the search index is added, marked to be built after start; nothing else changes; once built, search finds the old text', async () => {
    const name = `migrate-v6-${Math.random()}`;
    const old = new Dexie(name);
    applyDbVersions(old, DB_STEPS.filter((s) => s.version <= 6));
    for (const table of ['conversations', 'messages', 'secrets', 'pluginData', 'permissions', 'traces', 'pluginRecords'] as const) await old.table(table).bulkAdd(v6[table]);
    old.close();
    const db = openDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    // The upgrade itself writes no rows: the build runs in batches after start.
    expect(await db.searchIndex.count()).toBe(0);
    expect(await db.searchMeta.get('state')).toMatchObject({ built: false });
    expect(await db.conversations.toArray()).toEqual(v6.conversations);
    expect(await db.messages.orderBy('[conversationId+seq]').toArray()).toEqual(v6.messages);
    for (const table of ['secrets', 'pluginData', 'permissions', 'traces', 'pluginRecords'] as const) expect(await db.table(table).toArray()).toEqual(v6[table]);
    // The list's new order: newest first, by [updatedAt+id].
    expect((await db.conversations.orderBy('[updatedAt+id]').reverse().toArray()).map((c) => c.id)).toEqual(['c2', 'c1']);
    const store = new ConversationStore(db);
    // Before the build: search scans, as v6 did.
    expect(await store.search('station')).toEqual(['c2']);
    await store.index.resume();
    expect(await db.searchMeta.get('state')).toMatchObject({ built: true });
    expect(await store.search('station')).toEqual(['c2']);
    expect(await store.search('שלום 对话')).toEqual(['c2']);
    expect(await store.search('cafe')).toEqual(['c2']);
    expect(await store.search('tabs')).toEqual(['c1']);
    db.close();
  });

  it('a database made at any older version, every step declared on its own, opens with the schema of a fresh one (only the steps that upgrade data are declared now)', async () => {
    // What the database holds (IndexedDB's own stores and indexes), not what Dexie declares.
    const schemaOf = (db: Dexie) => {
      const idb = db.backendDB();
      const tx = idb.transaction([...idb.objectStoreNames], 'readonly');
      return Object.fromEntries(
        [...idb.objectStoreNames].map((name) => {
          const store = tx.objectStore(name);
          const indexes = [...store.indexNames].map((i) => `${i}:${JSON.stringify(store.index(i).keyPath)}:${store.index(i).multiEntry}`);
          return [name, { key: store.keyPath, indexes }];
        }),
      );
    };
    const fresh = openDb(`test-steps-fresh-${Math.random()}`);
    await fresh.open();
    const expected = schemaOf(fresh);
    fresh.close();
    for (const step of DB_STEPS) {
      const name = `test-steps-${step.version}-${Math.random()}`;
      const old = new Dexie(name);
      // The way the steps were declared before: each version with its own changes.
      for (const earlier of DB_STEPS.filter((s) => s.version <= step.version)) old.version(earlier.version).stores(earlier.stores);
      await old.open();
      old.close();
      const now = openDb(name);
      await now.open();
      expect(schemaOf(now), `from version ${step.version}`).toEqual(expected);
      expect(now.verno).toBe(DB_VERSION);
      now.close();
    }
  });

  it('a plugin collection checks each record, migrates old formats on read, and keeps plugins apart', async () => {
    const db = openDb(`collection-${Math.random()}`);
    const schema = z.object({ name: z.string(), steps: z.number() });
    const v1 = pluginStorage(db, 'skills').collection('skills', { schema });
    await v1.put('a', { name: 'add-todo', steps: 3 });
    await expect(v1.put('bad', { name: 3 } as never)).rejects.toThrow(/not a valid skills record/);
    // Another plugin's collection of the same name is its own.
    const other = pluginStorage(db, 'other').collection('skills', { schema });
    await other.put('a', { name: 'theirs', steps: 1 });
    expect(await v1.list()).toEqual([{ name: 'add-todo', steps: 3 }]);
    // A record that no longer fits is left out (with a message), the others still read.
    await db.pluginRecords.put({ pluginId: 'skills', collection: 'skills', id: 'broken', version: 1, value: { name: 7 }, updatedAt: 0 });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await v1.list()).toEqual([{ name: 'add-todo', steps: 3 }]);
    expect(await v1.get('broken')).toBeUndefined();
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/skills: the record skills\/broken cannot be read/);
    warn.mockRestore();
    // Format 2 reads format-1 records through `migrate` and writes them back migrated.
    const schema2 = z.object({ name: z.string(), steps: z.array(z.string()) });
    const v2 = pluginStorage(db, 'skills').collection('skills', {
      schema: schema2,
      version: 2,
      migrate: (old, from) => {
        if (from !== 1) throw new Error(`no way from ${from}`);
        const { name, steps } = old as { name: string; steps: number };
        return { name, steps: Array.from({ length: steps }, (_, i) => `step ${i + 1}`) };
      },
    });
    expect(await v2.get('a')).toEqual({ name: 'add-todo', steps: ['step 1', 'step 2', 'step 3'] });
    expect(await db.pluginRecords.get(['skills', 'skills', 'a'])).toMatchObject({ version: 2 });
    // A record from a newer format than this code reads is left out, not guessed at.
    await db.pluginRecords.put({ pluginId: 'skills', collection: 'skills', id: 'future', version: 3, value: {}, updatedAt: 0 });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await v2.get('future')).toBeUndefined();
    vi.restoreAllMocks();
    await v2.delete('a');
    await v2.clear();
    expect(await v2.list()).toEqual([]);
    expect(await other.list()).toEqual([{ name: 'theirs', steps: 1 }]);
    db.close();
  });

  it('the v2 step is a pure function of one message', () => {
    expect(migrateToolMessageV2({ role: 'tool', subAgent: { a: 1 } })).toEqual({ role: 'tool', activity: { a: 1 } });
    expect(migrateToolMessageV2({ role: 'tool', subAgent: undefined })).toEqual({ role: 'tool' });
    const user = { role: 'user', text: 'hi' };
    expect(migrateToolMessageV2(user)).toBe(user);
  });
});

describe('settings read from storage are validated', () => {
  it('a value that does not fit falls back, and the console says what is wrong', async () => {
    const setting = defineSetting('local:test-setting', { fallback: { maxSteps: 25 }, schema: z.object({ maxSteps: z.number().check(z.int(), z.minimum(1)) }), version: 1 });
    await storage.setItem('local:test-setting', { maxSteps: 'many' });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await setting.getValue()).toEqual({ maxSteps: 25 });
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/The setting local:test-setting is not valid \(maxSteps: .*\); using the default instead/);
    warn.mockRestore();
    await setting.setValue({ maxSteps: 7 });
    expect(await setting.getValue()).toEqual({ maxSteps: 7 });
    await expect(setting.setValue({ maxSteps: 0 })).rejects.toThrow();
  });

  it('a versioned setting migrates one step at a time', async () => {
    await storage.setItem('local:test-versioned', { model: 'llama3.2' });
    await storage.setMeta('local:test-versioned', { v: 1 });
    const setting = defineSetting('local:test-versioned', {
      fallback: { models: [] as string[] },
      schema: z.object({ models: z.array(z.string()) }),
      version: 2,
      migrations: { 2: (old: { model: string }) => ({ models: [old.model] }) },
    });
    expect(await setting.getValue()).toEqual({ models: ['llama3.2'] });
  });
});

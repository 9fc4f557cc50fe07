import { afterEach, describe, expect, it } from 'vitest';
import { ConversationStore, DEFAULT_TITLE, titleFrom } from '@/core/storage/conversations';
import { openDb, type AssistantMessage, type ToolMessage, type UserMessage } from '@/core/storage/db';

let dbCount = 0;
function freshStore() {
  const db = openDb(`test-conversations-${++dbCount}`);
  return new ConversationStore(db);
}

describe('ConversationStore', () => {
  let store: ConversationStore;
  afterEach(async () => {
    store?.db.close();
  });

  it('creates, lists by recent activity, renames and deletes conversations', async () => {
    store = freshStore();
    const a = await store.create();
    await new Promise((r) => setTimeout(r, 5));
    const b = await store.create('Second');
    expect(a.title).toBe(DEFAULT_TITLE);
    expect((await store.list()).map((c) => c.id)).toEqual([b.id, a.id]);
    const renamed = await store.rename(a.id, '  My   topic ');
    expect(renamed).toMatchObject({ title: 'My topic', titleEdited: true });
    expect((await store.list())[0]!.id).toBe(a.id);
    await expect(store.rename(a.id, '   ')).rejects.toThrow('A conversation needs a title.');
    await store.append<UserMessage>({ role: 'user', conversationId: a.id, text: 'hi' });
    await store.delete(a.id);
    expect(await store.get(a.id)).toBeUndefined();
    expect(await store.messages(a.id)).toEqual([]);
    await expect(store.getOrThrow(a.id)).rejects.toThrow(/does not exist/);
  });

  it('keeps messages in order, across a fresh store on the same database', async () => {
    store = freshStore();
    const c = await store.create();
    const m1 = await store.append<UserMessage>({ role: 'user', conversationId: c.id, text: 'one' });
    const m2 = await store.prepare<AssistantMessage>({ role: 'assistant', conversationId: c.id, text: 'two', status: 'complete', toolCalls: [] });
    const m3 = await store.prepare<ToolMessage>({ role: 'tool', conversationId: c.id, toolCallId: 'x', toolName: 't', input: {}, status: 'done' });
    await store.putMany([m2, m3]);
    expect([m1.seq, m2.seq, m3.seq]).toEqual([0, 1, 2]);
    // A new store (the background restarted) continues the numbering from the database.
    const again = new ConversationStore(store.db);
    const m4 = await again.append<UserMessage>({ role: 'user', conversationId: c.id, text: 'four' });
    expect(m4.seq).toBe(3);
    expect((await again.messages(c.id)).map((m) => m.seq)).toEqual([0, 1, 2, 3]);
  });

  it('marks runs the browser cut off as interrupted, keeping what was saved', async () => {
    store = freshStore();
    const c = await store.create();
    const done = await store.create();
    await store.update(c.id, { status: 'running' });
    await store.update(done.id, { status: 'running' });
    await store.append<UserMessage>({ role: 'user', conversationId: c.id, text: 'go' });
    await store.append<AssistantMessage>({
      role: 'assistant', conversationId: c.id, text: 'partial an', status: 'streaming', toolCalls: [],
    });
    await store.append<ToolMessage>({
      role: 'tool', conversationId: c.id, toolCallId: 'call_1', toolName: 'list_tabs', input: {}, status: 'running',
    });
    const recovered = await store.recoverInterrupted(new Set([done.id]));
    expect(recovered.map((r) => r.id)).toEqual([c.id]);
    expect((await store.get(c.id))?.status).toBe('interrupted');
    expect((await store.get(done.id))?.status).toBe('running');
    const [user, assistant, tool] = await store.messages(c.id);
    expect(user).toMatchObject({ text: 'go' });
    expect(assistant).toMatchObject({ text: 'partial an', status: 'interrupted' });
    expect(tool).toMatchObject({ status: 'interrupted', result: { ok: false, code: 'aborted' } });
  });

  it('makes titles from the first message', () => {
    expect(titleFrom('  hello\n  world ')).toBe('hello world');
    expect(titleFrom('')).toBe(DEFAULT_TITLE);
    const long = titleFrom('x'.repeat(200));
    expect(long.length).toBe(80);
    expect(long.endsWith('…')).toBe(true);
  });
});

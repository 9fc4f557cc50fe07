import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentRunner } from '@/core/agent/runner';
import type { ModelClient } from '@/core/agent/provider';
import { createOpenAICompatibleClient } from '@/core/agent/providers/openai-compatible-client';
import { ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type Conversation, type StoredMessage } from '@/core/storage/db';
import { startModelServer } from '../model-server/server.mjs';

// A send's writes (core/agent/runner.ts `begin`, core/storage/conversations.ts `beginRun`): the
// user's message and the running status in one transaction, on disk before the first request
// leaves; a new conversation created in that same transaction.

let server: Awaited<ReturnType<typeof startModelServer>>;
beforeAll(async () => {
  server = await startModelServer({ apiKey: 'sk-send' });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

let dbCount = 0;

async function setup() {
  const db = openDb(`test-send-writes-${++dbCount}`);
  await db.open();
  const store = new ConversationStore(db);
  // Every read-write transaction, by the stores it covers, and what storage held at each request.
  const writes: string[][] = [];
  const idb = db.backendDB();
  const transaction = idb.transaction.bind(idb);
  idb.transaction = ((names: string | string[], mode?: IDBTransactionMode, options?: IDBTransactionOptions) => {
    if (mode === 'readwrite') writes.push([names].flat().sort());
    return transaction(names, mode, options);
  }) as typeof idb.transaction;
  const atRequest: Array<{ writes: number; conversation?: Conversation; messages: StoredMessage[] }> = [];
  const events: string[] = [];
  let conversationId = '';
  const runner = new AgentRunner({
    store,
    registry: new ToolRegistry(interpretedValidators),
    getClient: async (id) => {
      conversationId = id!;
      const real = createOpenAICompatibleClient({ baseUrl: server.url, model: 'scripted-model', apiKey: 'sk-send' });
      const client: ModelClient = {
        config: real.config,
        async *stream(request) {
          const before = writes.length;
          await request.beforeSend;
          atRequest.push({ writes: before, conversation: await store.get(conversationId), messages: await store.messages(conversationId) });
          yield* real.stream(request);
        },
      };
      return client;
    },
    getMaxSteps: async () => 10,
    events: {
      conversation: (c) => events.push(`conversation:${c.status}`),
      message: (m) => events.push(`message:${m.role}`),
      delta: () => undefined,
    },
  });
  return { db, store, runner, writes, atRequest, events };
}

describe('a send\'s writes', () => {
  it('saves the message and marks the conversation running in one transaction, before the request', async () => {
    const ctx = await setup();
    const conversation = await ctx.store.create();
    ctx.writes.length = 0;
    server.queue([{ text: 'Hello.' }]);
    const message = await ctx.runner.send(conversation.id, '  Hi there  ');
    await ctx.runner.settled(conversation.id);
    // One transaction for the message and the status; the run's model is noted beside the request.
    expect(ctx.writes[0]).toEqual(['conversations', 'messages']);
    expect(ctx.writes.slice(0, ctx.atRequest[0]!.writes)).toEqual([['conversations', 'messages'], ['conversations']]);
    const at = ctx.atRequest[0]!;
    expect(at.conversation).toMatchObject({ status: 'running', title: 'Hi there' });
    expect(at.messages.map((m) => m.id)).toEqual([message.id]);
    expect(message).toMatchObject({ seq: 0, text: 'Hi there' });
    expect(ctx.events.slice(0, 2)).toEqual(['message:user', 'conversation:running']);
    expect(await ctx.store.get(conversation.id)).toMatchObject({ status: 'idle', model: 'scripted-model' });
    // A follow-up goes on after the answer.
    server.queue([{ text: 'Again.' }]);
    expect((await ctx.runner.send(conversation.id, 'More')).seq).toBe(2);
    await ctx.runner.settled(conversation.id);
    expect((await ctx.store.messages(conversation.id)).map((m) => m.seq)).toEqual([0, 1, 2, 3]);
  });

  it('creates a new conversation with its first message in that one transaction', async () => {
    const ctx = await setup();
    server.queue([{ text: 'Hello.' }]);
    const id = crypto.randomUUID();
    let prepared = 0;
    // Nothing to read for a conversation that does not exist yet: the transaction only writes.
    const reads = vi.spyOn(IDBIndex.prototype, 'getAll');
    const conversation = await ctx.runner.startConversation(id, 'A first message', async () => void prepared++);
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    await ctx.runner.settled(id);
    expect(prepared).toBe(1);
    expect(conversation).toMatchObject({ id, status: 'running', title: 'A first message' });
    expect(ctx.writes[0]).toEqual(['conversations', 'messages']);
    expect(ctx.atRequest[0]!.messages.map((m) => m.role)).toEqual(['user']);
    expect((await ctx.store.messages(id)).map((m) => m.role)).toEqual(['user', 'assistant']);
    // An id that exists is refused and nothing is written; so is an empty message.
    await expect(ctx.runner.startConversation(id, 'Again')).rejects.toThrow();
    expect(await ctx.store.messages(id)).toHaveLength(2);
    await expect(ctx.runner.startConversation(crypto.randomUUID(), '   ')).rejects.toThrow(/empty/);
  });

  it('a new conversation may start with "act without asking" on (the approval mode), written in that one transaction', async () => {
    const ctx = await setup();
    server.queue([{ text: 'Hello.' }, { text: 'Hello again.' }]);
    const id = crypto.randomUUID();
    const conversation = await ctx.runner.startConversation(id, 'A first message', undefined, Promise.resolve(true));
    await ctx.runner.settled(id);
    expect(conversation).toMatchObject({ id, status: 'running', actWithoutAsking: true });
    expect(ctx.writes[0]).toEqual(['conversations', 'messages']);
    expect((await ctx.store.get(id))!.actWithoutAsking).toBe(true);
    const plain = crypto.randomUUID();
    expect((await ctx.runner.startConversation(plain, 'Another', undefined, Promise.resolve(false))).actWithoutAsking).toBeUndefined();
    await ctx.runner.settled(plain);
  });

  it('refuses a send to a conversation that does not exist, writing nothing, and lets the next one run', async () => {
    const ctx = await setup();
    await expect(ctx.runner.send('gone', 'Hello')).rejects.toThrow(/does not exist/);
    expect(ctx.runner.isRunning('gone')).toBe(false);
    expect(await ctx.db.messages.count()).toBe(0);
  });
});

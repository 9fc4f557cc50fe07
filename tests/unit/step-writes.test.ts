import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentRunner, type AgentEvents } from '@/core/agent/runner';
import { STEP_WRITE_DELAY_MS } from '@/core/agent/loop';
import type { ModelClient } from '@/core/agent/provider';
import { createOpenAICompatibleClient } from '@/core/agent/providers/openai-compatible-client';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type StoredMessage } from '@/core/storage/db';
import type { StepTrace } from '@/core/data/trace';
import { startModelServer } from '../model-server/server.mjs';
import { registerTestTools } from './helpers/test-tools';

// The step's writes (core/agent/transcript.ts `StepWriter`): one transaction per step when its
// tools are quick, a slow tool's answer and call on disk while it runs, and every step on disk
// before the next request leaves. And the tool list kept until the registry changes.

const READ_ONLY = { readOnly: true, destructive: false, openWorld: false } as const;

let server: Awaited<ReturnType<typeof startModelServer>>;
beforeAll(async () => {
  server = await startModelServer({ apiKey: 'sk-step' });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

let dbCount = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const shape = (messages: StoredMessage[]) => messages.map((m) => (m.role === 'user' ? 'user' : `${m.role}:${m.status}`));

function setup() {
  const db = openDb(`test-step-writes-${++dbCount}`);
  const store = new ConversationStore(db);
  const registry = new ToolRegistry(interpretedValidators);
  const seenBySlow: StoredMessage[][] = [];
  // The announcements made by the time the `brief` tool ends.
  const toldByBriefEnd: number[] = [];
  registerTestTools(registry, [
    defineTool({ annotations: READ_ONLY, name: 'quick', description: 'Quick.', inputSchema: { type: 'object' }, execute: () => 'fast' }),
    defineTool({
      annotations: READ_ONLY,
      name: 'brief',
      description: 'Brief, but not synchronous.',
      inputSchema: { type: 'object' },
      async execute() {
        await sleep(3);
        toldByBriefEnd.push(events.length);
        return 'brief';
      },
    }),
    defineTool({
      annotations: READ_ONLY,
      name: 'slow',
      description: 'Slow.',
      inputSchema: { type: 'object' },
      async execute(_input, { conversationId }) {
        await sleep(STEP_WRITE_DELAY_MS * 4);
        seenBySlow.push(await store.messages(conversationId!));
        return 'slow';
      },
    }),
  ]);
  // Every write of the loop's hot path, as it went to IndexedDB.
  const writes: string[][] = [];
  const putMany = store.putMany.bind(store);
  vi.spyOn(store, 'putMany').mockImplementation((messages) => {
    writes.push(shape(messages));
    return putMany(messages);
  });
  // What storage held when each model request left (after `beforeSend`).
  const onDiskAtRequest: StoredMessage[][] = [];
  let conversationId = '';
  const events: Array<{ type: string; message?: StoredMessage; at: number }> = [];
  const sink: AgentEvents = {
    conversation: () => undefined,
    message: (message) => events.push({ type: 'message', message: structuredClone(message), at: events.length }),
    delta: () => events.push({ type: 'delta', at: events.length }),
  };
  const runner = new AgentRunner({
    store,
    registry,
    keepTraces: true,
    getClient: async () => {
      const real = createOpenAICompatibleClient({ baseUrl: server.url, model: 'scripted-model', apiKey: 'sk-step' });
      const client: ModelClient = {
        config: real.config,
        async *stream(request) {
          await request.beforeSend;
          onDiskAtRequest.push(await store.messages(conversationId));
          yield* real.stream(request);
        },
      };
      return client;
    },
    getMaxSteps: async () => 10,
    events: sink,
  });
  async function run(text: string) {
    conversationId = (await store.create()).id;
    await runner.send(conversationId, text);
    await runner.settled(conversationId);
    return store.messages(conversationId);
  }
  return { db, store, registry, run, writes, onDiskAtRequest, seenBySlow, events, toldByBriefEnd };
}

describe('the step writes', () => {
  it('writes a step with quick tools in one transaction: the answer and every result (its trace apart)', async () => {
    const ctx = setup();
    server.queue([{ toolCalls: [{ name: 'quick', arguments: { n: 1 } }, { name: 'quick', arguments: { n: 2 } }] }, { toolCalls: [{ name: 'quick', arguments: { n: 3 } }] }, { text: 'Done.' }]);
    const messages = await ctx.run('Go');
    expect(shape(messages)).toEqual(['user', 'assistant:complete', 'tool:done', 'tool:done', 'assistant:complete', 'tool:done', 'assistant:complete']);
    expect(ctx.writes).toEqual([['assistant:complete', 'tool:done', 'tool:done'], ['assistant:complete', 'tool:done'], ['assistant:complete']]);
    const traces = await ctx.db.traces.toArray();
    expect(traces.map((t) => t.messageId).sort()).toEqual(messages.filter((m) => m.role === 'assistant').map((m) => m.id).sort());
    expect(JSON.stringify(traces)).not.toContain('sk-step');
  });

  it('has every step on disk before the next request leaves (a worker stopped then loses nothing)', async () => {
    const ctx = setup();
    server.queue([{ toolCalls: [{ name: 'quick', arguments: { n: 1 } }] }, { toolCalls: [{ name: 'quick', arguments: { n: 2 } }] }, { text: 'Done.' }]);
    await ctx.run('Go');
    expect(ctx.onDiskAtRequest.map(shape)).toEqual([
      ['user'],
      ['user', 'assistant:complete', 'tool:done'],
      ['user', 'assistant:complete', 'tool:done', 'assistant:complete', 'tool:done'],
    ]);
  });

  it('writes a slow tool\'s answer and call while it runs, then its result', async () => {
    const ctx = setup();
    server.queue([{ text: 'Looking.', toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'Done.' }]);
    const messages = await ctx.run('Go');
    expect(ctx.seenBySlow.map(shape)).toEqual([['user', 'assistant:complete', 'tool:running']]);
    expect(ctx.writes.slice(0, 2)).toEqual([['assistant:complete', 'tool:running'], ['tool:done']]);
    expect(shape(messages)).toEqual(['user', 'assistant:complete', 'tool:done', 'assistant:complete']);
  });

  it('announces a quick tool once, done, and each step\'s changes before the next answer streams', async () => {
    const ctx = setup();
    server.queue([{ toolCalls: [{ name: 'quick', arguments: {} }] }, { text: 'All done now.', chunkSize: 4 }]);
    const messages = await ctx.run('Go');
    const tool = messages.find((m) => m.role === 'tool')!;
    const told = ctx.events.filter((e) => e.message?.id === tool.id);
    expect(told.at(-1)!.message).toMatchObject({ status: 'done', result: { ok: true } });
    expect(told.length).toBeLessThanOrEqual(2);
    const firstDelta = ctx.events.find((e) => e.type === 'delta')!;
    expect(told.at(-1)!.at).toBeLessThan(firstDelta.at);
    // The pages end up with every message as stored.
    for (const m of messages.filter((x) => x.role !== 'user')) {
      expect(ctx.events.filter((e) => e.message?.id === m.id).at(-1)!.message).toMatchObject({ status: m.status });
    }
  });
});

describe('the step announcements', () => {
  it('tells the pages of a brief tool\'s step once it is over (no page work while it runs), and of a slow tool while it runs', async () => {
    const ctx = setup();
    server.queue([{ toolCalls: [{ name: 'brief', arguments: {} }] }, { toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'Done.' }]);
    const messages = await ctx.run('Go');
    const [brief, slow] = messages.filter((m) => m.role === 'tool');
    const answer = messages.find((m) => m.role === 'assistant' && m.toolCalls.some((c) => c.id === brief!.toolCallId))!;
    const status = (e: { message?: StoredMessage }) => (e.message && 'status' in e.message ? e.message.status : undefined);
    // While `brief` ran, nothing of its step had gone out but the answer's start (streaming).
    const toldBefore = ctx.events.slice(0, ctx.toldByBriefEnd[0]);
    expect(toldBefore.filter((e) => e.message?.id === brief!.id)).toEqual([]);
    expect(toldBefore.filter((e) => e.message?.id === answer.id).map(status)).toEqual(['streaming']);
    // Then its result, once, done.
    expect(ctx.events.filter((e) => e.message?.id === brief!.id).map(status)).toEqual(['done']);
    // A slow tool is shown running, then done.
    expect(ctx.events.filter((e) => e.message?.id === slow!.id).map(status)).toEqual(['running', 'done']);
  });
});

describe('ConversationStore writes of the hot path', () => {
  it('writes messages in one IndexedDB transaction, traces in another; a trace that cannot be kept costs only itself', async () => {
    const store = new ConversationStore(openDb(`test-step-writes-${++dbCount}`));
    const c = await store.create();
    const first = await store.prepare({ role: 'user', conversationId: c.id, text: 'hi' });
    const second = await store.prepare({ role: 'user', conversationId: c.id, text: 'again' });
    const spy = vi.spyOn(IDBDatabase.prototype, 'transaction');
    await store.putMany([first, second]);
    expect(spy.mock.calls.map((call) => call.slice(0, 2))).toEqual([['messages', 'readwrite']]);
    spy.mockClear();
    const trace: StepTrace = { messageId: first.id, conversationId: c.id, at: 1, attempts: 1, request: { method: 'POST', url: 'x', headers: {}, body: '' } };
    await store.putTraces([trace]);
    expect(spy.mock.calls.map((call) => call.slice(0, 2))).toEqual([['traces', 'readwrite']]);
    spy.mockRestore();
    expect((await store.messages(c.id)).map((m) => m.id)).toEqual([first.id, second.id]);
    expect(await store.db.traces.get(first.id)).toMatchObject({ attempts: 1 });

    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(store.putTraces([{ ...trace, messageId: undefined as unknown as string }])).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });

  it('commits a write-only transaction at once, not after its requests come back; one that reads first (a follow-up\'s send) is left to commit itself', async () => {
    const store = new ConversationStore(openDb(`test-step-writes-${++dbCount}`));
    const c = await store.create();
    const message = await store.prepare({ role: 'user', conversationId: c.id, text: 'hi' });
    const commit = vi.spyOn(IDBTransaction.prototype, 'commit');
    await store.putMany([message]);
    expect(commit).toHaveBeenCalledTimes(1);
    commit.mockClear();
    // A follow-up's send reads the history before it writes: committing early would end it.
    const begun = await store.beginRun({ role: 'user', conversationId: c.id, text: 'again' }, () => ({}));
    expect(commit).not.toHaveBeenCalled();
    commit.mockRestore();
    expect((await store.messages(c.id)).map((m) => m.id)).toEqual([message.id, begun.message.id]);
  });
});

describe('ToolRegistry.listTools', () => {
  it('gives the same list until plugins, tools, switches or the question change', async () => {
    const registry = new ToolRegistry(interpretedValidators);
    const tool = (name: string) => defineTool({ annotations: READ_ONLY, name, description: name, inputSchema: { type: 'object' }, execute: () => name });
    registry.register({ id: 'a', name: 'A', description: 'A', source: 'builtin', tools: [tool('one')] });
    const first = registry.listTools();
    expect(registry.listTools()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const dispose = registry.register({ id: 'b', name: 'B', description: 'B', source: 'builtin', tools: [tool('two')] });
    const second = registry.listTools();
    expect(second.map((t) => t.name)).toEqual(['one', 'two']);
    await registry.setEnabled('b', false);
    expect(registry.listTools().map((t) => t.name)).toEqual(['one']);
    registry.applyState({ b: true });
    expect(registry.listTools().map((t) => t.name)).toEqual(['one', 'two']);
    dispose();
    expect(registry.listTools().map((t) => t.name)).toEqual(['one']);
    const onlyOne = (spec: { name: string }) => spec.name === 'one';
    expect(registry.listTools(onlyOne)).not.toBe(registry.listTools());
    registry.register({ id: 'page', name: 'Page', description: 'P', source: 'page', scope: { tabId: 7, origin: 'https://x.example' }, tools: [tool('page7_t')] });
    expect(registry.listTools(undefined, new Set([1])).map((t) => t.name)).toEqual(['one']);
    expect(registry.listTools(undefined, new Set([7])).map((t) => t.name)).toEqual(['one', 'page7_t']);
  });
});

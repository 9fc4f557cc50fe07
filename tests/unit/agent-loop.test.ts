import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentRunner, type AgentDeps, type AgentEvents, type RunDriver } from '@/core/agent/runner';
import type { ModelClient, ModelEvent } from '@/core/agent/provider';
import { StepTimer } from '@/core/agent/step-timing';
import { createOpenAICompatibleClient } from '@/core/agent/providers/openai-compatible-client';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type AssistantMessage, type StoredMessage, type ToolMessage } from '@/core/storage/db';
import { startModelServer } from '../model-server/server.mjs';
import { registerTestTools } from './helpers/test-tools';

const READ_ONLY = { readOnly: true, destructive: false, openWorld: false } as const;

type Server = Awaited<ReturnType<typeof startModelServer>>;


let server: Server;
beforeAll(async () => {
  server = await startModelServer({ apiKey: 'sk-good' });
});
afterAll(() => server.close());

let dbCount = 0;

/** A runner wired like the background's, against the scripted server, with a recording event sink. */
function setup({ apiKey = 'sk-good', maxSteps = 10, baseUrl, claim }: { apiKey?: string; maxSteps?: number; baseUrl?: string; claim?: AgentDeps['claim'] } = {}) {
  const ended: Array<{ id: string; running: boolean; status?: string }> = [];
  const store = new ConversationStore(openDb(`test-loop-${++dbCount}`));
  const registry = new ToolRegistry(interpretedValidators);
  const seenAtToolStart: StoredMessage[][] = [];
  registerTestTools(registry, [
    defineTool<{ city: string }>({
      annotations: READ_ONLY,
      name: 'get_weather',
      description: 'Weather of a city.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
      async execute({ city }, { conversationId }) {
        // What the database holds when a tool starts: the step before it must be saved.
        seenAtToolStart.push(await store.messages(conversationId!));
        return { city, sky: 'clear', celsius: 21 };
      },
    }),
    defineTool({
      annotations: READ_ONLY,
      name: 'fail',
      description: 'Always fails.',
      inputSchema: { type: 'object' },
      execute() {
        throw new Error('The weather service is down; try again later.');
      },
    }),
  ]);
  const events: Array<{ type: string; [k: string]: unknown }> = [];
  const sink: AgentEvents = {
    conversation: (conversation) => events.push({ type: 'conversation', status: conversation.status, conversation }),
    message: (message) => events.push({ type: 'message', message: structuredClone(message) }),
    delta: (conversationId, messageId, text, offset) => events.push({ type: 'delta', messageId, text, offset }),
  };
  const timer = new StepTimer();
  const runner = new AgentRunner({
    store,
    registry,
    getClient: async () => createOpenAICompatibleClient({ baseUrl: baseUrl ?? server.url, model: 'scripted-model', apiKey }),
    getMaxSteps: async () => maxSteps,
    events: sink,
    observe: () => timer.observe(),
    // What a run-end listener sees: the run gone, its final status written.
    afterRun: (id) => ended.push({ id, running: runner.isRunning(id), status: events.filter((e) => e.type === 'conversation').at(-1)?.status as string }),
    claim,
  });
  return { store, registry, runner, events, ended, get timings() { return timer.recent(); }, seenAtToolStart };
}

async function run(ctx: ReturnType<typeof setup>, text: string) {
  const conversation = await ctx.store.create();
  await ctx.runner.send(conversation.id, text);
  await ctx.runner.settled(conversation.id);
  return { conversation: (await ctx.store.get(conversation.id))!, messages: await ctx.store.messages(conversation.id) };
}

beforeEach(() => server.reset());

describe('AgentRunner', () => {
  it('streams a plain answer, saves it, and ends idle', async () => {
    const ctx = setup();
    server.queue([{ text: 'Hello there, friend.', chunkSize: 5 }]);
    const { conversation, messages } = await run(ctx, 'Say hello');
    expect(conversation).toMatchObject({ status: 'idle', title: 'Say hello', model: 'scripted-model' });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]).toMatchObject({ text: 'Hello there, friend.', status: 'complete', usage: { inputTokens: 10, outputTokens: 5 } });
    const deltas = ctx.events.filter((e) => e.type === 'delta');
    expect(deltas.map((d) => d.text).join('')).toBe('Hello there, friend.');
    expect(deltas.map((d) => d.offset)).toEqual([0, 5, 10, 15]);
    expect(server.requests[0]!.body.messages[0]).toMatchObject({ role: 'system' });
    expect(server.requests[0]!.toolNames).toEqual(['get_weather', 'fail']);
  });

  it('runs tool calls through the registry, sends results back, and persists each step first', async () => {
    const ctx = setup();
    server.queue([
      { text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] },
    ]);
    const { conversation, messages } = await run(ctx, 'Weather in Oslo and Rome?');
    expect(conversation.status).toBe('idle');
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const tool = messages[2] as ToolMessage;
    expect(tool).toMatchObject({ toolName: 'get_weather', status: 'done', input: { city: 'Oslo' }, pluginId: 'test' });
    expect(tool.result).toEqual({ ok: true, output: { city: 'Oslo', sky: 'clear', celsius: 21 } });
    // The default script quotes the last tool result.
    expect((messages[5] as AssistantMessage).text).toContain('"city":"Rome"');
    // The model got the result as a tool message tied to its call.
    const third = server.requests[2]!.messages;
    expect(third.at(-1)).toMatchObject({ role: 'tool', tool_call_id: (messages[3] as AssistantMessage).toolCalls[0]!.id });
    // When each tool started, every step before it was saved whole (the request that asked for
    // it waited for that); its own answer goes in one write with its result (a quick tool).
    expect(ctx.seenAtToolStart).toHaveLength(2);
    expect(ctx.seenAtToolStart[0]!.map((m) => m.role)).toEqual(['user']);
    expect(ctx.seenAtToolStart[1]!.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(ctx.seenAtToolStart[1]![1]).toMatchObject({ status: 'complete', text: 'Checking.' });
    expect(ctx.seenAtToolStart[1]![2]).toMatchObject({ status: 'done' });
    // One timing per tool step that was followed by another request.
    expect(ctx.timings).toHaveLength(2);
    for (const t of ctx.timings) {
      expect(t.toolStartDelay).toBeGreaterThanOrEqual(0);
      expect(t.nextRequestDelay).toBeGreaterThanOrEqual(0);
    }
  });

  it('gives the model a readable error for a failing tool, bad arguments or an unknown tool, and goes on', async () => {
    const ctx = setup();
    server.queue([
      {
        toolCalls: [
          { name: 'fail', arguments: {} },
          { name: 'get_weather', arguments: { town: 'Oslo' } },
          { name: 'get_weather', arguments: '{"city": "Os' },
          { name: 'no_such_tool', arguments: {} },
        ],
      },
      { text: 'Sorry, the tools failed.' },
    ]);
    const { conversation, messages } = await run(ctx, 'Try the tools');
    expect(conversation.status).toBe('idle');
    const results = messages.filter((m): m is ToolMessage => m.role === 'tool').map((m) => m.result);
    expect(results[0]).toEqual({ ok: false, code: 'failed', error: 'The weather service is down; try again later.' });
    expect(results[1]).toMatchObject({ ok: false, code: 'invalid_input', error: expect.stringMatching(/^Invalid parameters for tool get_weather: .*city/) });
    expect(results[2]).toMatchObject({ ok: false, code: 'invalid_input', error: expect.stringMatching(/not valid JSON/) });
    expect(results[3]).toMatchObject({ ok: false });
    const toolMessages = server.requests[1]!.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages).toHaveLength(4);
    expect(toolMessages[0].content).toContain('The weather service is down');
    expect((messages.at(-1) as AssistantMessage).text).toBe('Sorry, the tools failed.');
  });

  it.each([
    [{ status: 401, errorBody: { error: { message: 'Incorrect API key provided.' } } }, 'auth', /API key is missing or wrong/],
    [{ status: 404 }, 'not_found', /HTTP 404/],
    [{ status: 400, errorBody: { error: { message: 'model does not support tools' } } }, 'bad_request', /rejected the request \(HTTP 400\)/],
    [{ malformed: true }, 'malformed', /could not be read/],
  ])('reports provider failure %j as %s, keeping the user message', async (reply, kind, message) => {
    const ctx = setup();
    server.queue([reply]);
    const { conversation, messages } = await run(ctx, 'Hello');
    expect(conversation.status).toBe('error');
    expect(conversation.error).toMatchObject({ kind, message: expect.stringMatching(message) });
    expect(messages[0]).toMatchObject({ role: 'user', text: 'Hello' });
  });

  it('retries a 429 or 500 once, then reports it', async () => {
    const ctx = setup();
    server.queue([{ status: 429 }, { status: 429 }]);
    const first = await run(ctx, 'One');
    expect(first.conversation.error).toMatchObject({ kind: 'rate_limit', status: 429 });
    server.queue([{ status: 503 }, { text: 'Recovered.' }]);
    const second = await run(ctx, 'Two');
    expect(second.conversation.status).toBe('idle');
    expect((second.messages.at(-1) as AssistantMessage).text).toBe('Recovered.');
  });

  it('reports a provider that cannot be reached, and one that drops the connection', async () => {
    const unreachable = setup({ baseUrl: 'http://127.0.0.1:9/v1' });
    const { conversation } = await run(unreachable, 'Anyone there?');
    expect(conversation.error).toMatchObject({ kind: 'network', message: expect.stringContaining('Could not reach the model provider at http://127.0.0.1:9/v1') });

    const ctx = setup();
    server.queue([{ text: 'Half an ans', disconnect: true }, { text: 'again' }]);
    const dropped = await run(ctx, 'Go');
    expect(dropped.conversation.status).toBe('error');
    expect(dropped.conversation.error).toMatchObject({ kind: 'network', message: expect.stringMatching(/broke off in the middle/) });
    expect(dropped.messages[1]).toMatchObject({ role: 'assistant', status: 'error', text: 'Half an ans' });
  });

  it('stops on request, keeping the streamed text, and can continue', async () => {
    const ctx = setup();
    server.queue([{ text: 'one two three four five six', chunkSize: 4, delayMs: 40 }]);
    const conversation = await ctx.store.create();
    await ctx.runner.send(conversation.id, 'Count');
    await expect.poll(() => ctx.events.filter((e) => e.type === 'delta').length).toBeGreaterThan(1);
    expect(ctx.runner.stop(conversation.id)).toBe(true);
    await ctx.runner.settled(conversation.id);
    const stopped = await ctx.store.get(conversation.id);
    expect(stopped?.status).toBe('stopped');
    const [, answer] = await ctx.store.messages(conversation.id);
    expect(answer).toMatchObject({ status: 'stopped' });
    expect((answer as AssistantMessage).text.length).toBeGreaterThan(0);
    expect((answer as AssistantMessage).text).not.toBe('one two three four five six');
    expect(ctx.runner.stop(conversation.id)).toBe(false);
    expect(ctx.ended).toEqual([{ id: conversation.id, running: false, status: 'stopped' }]);

    await ctx.runner.resume(conversation.id);
    await ctx.runner.settled(conversation.id);
    expect((await ctx.store.get(conversation.id))?.status).toBe('idle');
    // Each run's end is told once, after its status was written, however it ended.
    expect(ctx.ended).toEqual([
      { id: conversation.id, running: false, status: 'stopped' },
      { id: conversation.id, running: false, status: 'idle' },
    ]);
  });

  it('refuses a second message while a run is going, and an empty one', async () => {
    const ctx = setup();
    server.queue([{ text: 'slow answer', chunkSize: 2, delayMs: 30 }]);
    const conversation = await ctx.store.create();
    await ctx.runner.send(conversation.id, 'First');
    await expect(ctx.runner.send(conversation.id, 'Second')).rejects.toThrow(/still working/);
    await expect(ctx.runner.send(conversation.id, '   ')).rejects.toThrow(/empty/);
    await ctx.runner.settled(conversation.id);
  });

  it('stops at the step limit and says so', async () => {
    const ctx = setup({ maxSteps: 2 });
    server.setScript(() => ({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }));
    const { conversation, messages } = await run(ctx, 'Loop forever');
    expect(conversation.status).toBe('step_limit');
    expect(server.requests).toHaveLength(2);
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('answers tool calls left without results (an interrupted run) when it continues', async () => {
    const ctx = setup();
    const conversation = await ctx.store.create();
    await ctx.store.append({ role: 'user', conversationId: conversation.id, text: 'Weather?' });
    await ctx.store.append<AssistantMessage>({
      role: 'assistant', conversationId: conversation.id, text: '', status: 'interrupted',
      toolCalls: [{ id: 'call_lost', name: 'get_weather', input: { city: 'Oslo' } }],
    });
    server.queue([{ text: 'Continuing.' }]);
    await ctx.runner.resume(conversation.id);
    await ctx.runner.settled(conversation.id);
    const sent = server.requests[0]!.messages;
    expect(sent.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_lost' });
    expect(sent.at(-1).content).toMatch(/did not run/);
    expect((await ctx.store.get(conversation.id))?.status).toBe('idle');
  });

  describe('a run a plugin drives (RunDriver)', () => {
    const by = { key: 'chatMessage.stopped' as const, params: { by: 'test' } };
    /** A driver that calls get_weather once, then answers, then hands over to the real client. */
    function driver(seen: { real?: ModelClient; error?: unknown }): RunDriver {
      return {
        client(real, realError) {
          seen.real = real;
          seen.error = realError;
          let step = 0;
          return {
            config: real?.config ?? { baseUrl: '', model: '' },
            async *stream(request): AsyncGenerator<ModelEvent> {
              await request.beforeSend;
              step++;
              if (step === 1) {
                yield { type: 'tool-call', id: 'replay-1', name: 'get_weather', input: { city: 'Oslo' } };
                yield { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 0, outputTokens: 0 }, by };
              } else if (step === 2) {
                yield { type: 'text', text: 'Replayed 1 step.' };
                yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 }, by };
              } else if (real) {
                yield* real.stream(request);
              }
            },
          };
        },
      };
    }

    it('a claimed message runs through the same registry and transcript, without a model request, marked by the driver', async () => {
      const seen: { real?: ModelClient; error?: unknown } = {};
      const claimed: string[] = [];
      const ctx = setup({ claim: async (_id, text) => (claimed.push(text), text.startsWith('/weather') ? driver(seen) : undefined) });
      const { conversation, messages } = await run(ctx, '/weather');
      expect(claimed).toEqual(['/weather']);
      expect(server.requests).toHaveLength(0);
      expect(seen.real?.config.model).toBe('scripted-model');
      expect(conversation.status).toBe('idle');
      const answers = messages.filter((m): m is AssistantMessage => m.role === 'assistant');
      expect(answers.map((a) => a.by)).toEqual([by, by]);
      expect(answers.map((a) => a.usage)).toEqual([{ inputTokens: 0, outputTokens: 0 }, { inputTokens: 0, outputTokens: 0 }]);
      expect((messages.find((m) => m.role === 'tool') as ToolMessage).result).toMatchObject({ ok: true, output: { city: 'Oslo', sky: 'clear' } });
      // A message no one claims goes to the model, as always.
      server.queue([{ text: 'Hello.' }]);
      const plain = await run(ctx, 'hello');
      expect(server.requests).toHaveLength(1);
      expect((plain.messages.at(-1) as AssistantMessage).by).toBeUndefined();
    });

    it('a driver runs without a provider (it gets why there is none); a claim that throws counts as none', async () => {
      const seen: { real?: ModelClient; error?: unknown } = {};
      const ctx = setup({ baseUrl: 'not a url', claim: async (_id, text) => (text === '/boom' ? Promise.reject(new Error('bad claim')) : driver(seen)) });
      (ctx.runner as unknown as { deps: AgentDeps }).deps.getClient = async () => {
        throw new Error('No provider is set up.');
      };
      const { conversation } = await run(ctx, '/weather');
      expect(seen.real).toBeUndefined();
      expect(seen.error).toMatchObject({ message: expect.stringMatching(/No provider/) });
      expect(conversation.status).toBe('idle');
      const warn = console.warn;
      console.warn = () => undefined;
      const failed = await run(ctx, '/boom');
      console.warn = warn;
      // Unclaimed, it needs the model, and there is none: the run says so.
      expect(failed.conversation.status).toBe('error');
    });
  });
});

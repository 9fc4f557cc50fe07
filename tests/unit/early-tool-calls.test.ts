import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunner, type AgentEvents } from '@/core/agent/runner';
import type { ProviderConfig, ProviderType } from '@/core/agent/provider';
import { createModelClient } from '@/core/agent/clients';
import { StepTimer } from '@/core/agent/step-timing';
import { NOT_RUN } from '@/core/agent/transcript';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type AssistantMessage, type ToolMessage } from '@/core/storage/db';
import { startAnthropicServer, type ProviderReply } from '../model-server/anthropic.mjs';
import { startGeminiServer } from '../model-server/gemini.mjs';
import { startOllamaServer } from '../model-server/ollama.mjs';
import { startModelServer } from '../model-server/server.mjs';
import { READ_ONLY, registerTestTools, weatherTool } from './helpers/test-tools';

// A tool call starts as the model's answer names it (the loop's `ToolQueue`), not after the
// answer's last event: against each provider's scripted server, in its real wire format, with
// time between the server's writes (`delayMs`) so that "before the last byte" is plain to see.

type Server = Awaited<ReturnType<typeof startModelServer>>;

const SERVERS: Record<ProviderType, { model: string; start(): Promise<Server> }> = {
  'openai-compatible': { model: 'scripted-model', start: () => startModelServer() },
  anthropic: { model: 'claude-scripted', start: () => startAnthropicServer() },
  google: { model: 'gemini-scripted', start: () => startGeminiServer({ apiKey: 'key-1' }) },
  ollama: { model: 'scripted-model', start: () => startOllamaServer() },
};

const servers = new Map<ProviderType, Server>();
beforeAll(async () => {
  for (const [type, { start }] of Object.entries(SERVERS)) servers.set(type as ProviderType, await start());
});
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

let dbCount = 0;

/** A runner on one provider's server, with a quick tool and a slow one that record when they run. */
function setup(type: ProviderType) {
  const server = servers.get(type)!;
  server.reset();
  const store = new ConversationStore(openDb(`test-early-calls-${++dbCount}`));
  const registry = new ToolRegistry(interpretedValidators);
  // performance.now() of each tool's start and end: the clock the scripted servers stamp their bytes with.
  const ran: Array<{ name: string; startedAt: number; endedAt?: number }> = [];
  const record = async <T,>(name: string, work: () => Promise<T> | T): Promise<T> => {
    const entry: (typeof ran)[number] = { name, startedAt: performance.now() };
    ran.push(entry);
    try {
      return await work();
    } finally {
      entry.endedAt = performance.now();
    }
  };
  registerTestTools(registry, [
    weatherTool(({ city }) => record('get_weather', () => ({ city, sky: 'clear' }))),
    defineTool<{ ms?: number }>({
      annotations: READ_ONLY,
      name: 'slow',
      description: 'Takes a while (150 ms unless told).',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
      execute: ({ ms = 150 }) => record('slow', () => new Promise((resolve) => setTimeout(() => resolve('slow done'), ms))),
    }),
  ]);
  // What the pages were told of answers and tool messages, and when (performance.now()).
  const told: Array<{ role: string; status: string; toolName?: string; calls?: number; at: number }> = [];
  const events: AgentEvents = {
    conversation() {},
    message: (message) =>
      void told.push({
        role: message.role,
        status: 'status' in message ? message.status : '',
        ...(message.role === 'tool' && { toolName: message.toolName }),
        ...(message.role === 'assistant' && { calls: message.toolCalls.length }),
        at: performance.now(),
      }),
    delta() {},
  };
  const config: ProviderConfig = { type, baseUrl: server.url, model: SERVERS[type].model, apiKey: type === 'ollama' ? undefined : 'key-1' };
  const timer = new StepTimer();
  const runner = new AgentRunner({ store, registry, getClient: async () => createModelClient(config), getMaxSteps: async () => 5, events, observe: () => timer.observe() });
  return {
    server,
    store,
    runner,
    ran,
    told,
    get timings() {
      return timer.recent();
    },
    async start(text: string) {
      const conversation = await store.create();
      await runner.send(conversation.id, text);
      return conversation.id;
    },
    async run(text: string) {
      const id = await this.start(text);
      await runner.settled(id);
      return { conversation: (await store.get(id))!, messages: await store.messages(id) };
    },
  };
}

describe('tool calls start as the answer names them', () => {
  // Anthropic ends a call's block (content_block_stop) and Ollama sends a call's line before the
  // answer's last events; their packages give the call at once.
  for (const type of ['anthropic', 'ollama'] as const) {
    it(`${type}: the tool runs before the answer's last byte; the step is written whole, its timing without the tool's time`, async () => {
      const ctx = setup(type);
      ctx.server.queue([{ text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], delayMs: 30 }, { text: 'Clear in Oslo.' }]);
      const { conversation, messages } = await ctx.run('Weather in Oslo?');
      expect(conversation.status).toBe('idle');
      expect(ctx.ran.map((r) => r.name)).toEqual(['get_weather']);
      expect(ctx.ran[0]!.endedAt!).toBeLessThan(ctx.server.requests[0]!.lastByteAt!);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(messages[1]).toMatchObject({ status: 'complete', text: 'Checking.', usage: { inputTokens: 10, outputTokens: 5 } });
      expect(messages[2]).toMatchObject({ status: 'done', result: { ok: true, output: { city: 'Oslo', sky: 'clear' } } });
      expect(ctx.server.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool' });
      expect(ctx.timings).toHaveLength(1);
      expect(ctx.timings[0]!.toolStartDelay).toBe(0);
      // From the last byte (the tool was over by then) to the next request: only the loop's own time.
      expect(ctx.timings[0]!.nextRequestDelay).toBeGreaterThanOrEqual(0);
      expect(ctx.timings[0]!.nextRequestDelay).toBeLessThan(ctx.server.requests[1]!.receivedAt - ctx.server.requests[0]!.lastByteAt!);
    });
  }

  // The OpenAI-compatible package (its StreamingToolCallTracker) holds calls until its stream ends,
  // and Gemini sends its calls in the answer's last chunk: a lone call starts after the last byte.
  for (const type of ['openai-compatible', 'google'] as const) {
    it(`${type}: a lone call comes with the answer's end, and the tool starts after its last byte`, async () => {
      const ctx = setup(type);
      ctx.server.queue([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], delayMs: 30 }, { text: 'Clear in Oslo.' }]);
      const { conversation, messages } = await ctx.run('Weather in Oslo?');
      expect(conversation.status).toBe('idle');
      expect(ctx.ran[0]!.startedAt).toBeGreaterThan(ctx.server.requests[0]!.lastByteAt!);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(ctx.timings[0]!.toolStartDelay).toBeGreaterThan(0);
    });
  }

  it('OpenAI-compatible: of two calls, the first starts as the second begins (its input is whole JSON by then)', async () => {
    const ctx = setup('openai-compatible');
    ctx.server.queue([{ toolCalls: [{ name: 'slow' }, { name: 'get_weather', arguments: { city: 'Rome' } }], delayMs: 30 }, { text: 'Both done.' }]);
    const { conversation, messages } = await ctx.run('Two things');
    expect(conversation.status).toBe('idle');
    const [slow, weather] = ctx.ran;
    // After the second call's start: its two pieces, the finish and the usage, 30 ms apart.
    expect(slow!.startedAt).toBeLessThan(ctx.server.requests[0]!.lastByteAt! - 60);
    expect(weather!.startedAt).toBeGreaterThanOrEqual(Math.max(slow!.endedAt!, ctx.server.requests[0]!.lastByteAt!));
    expect(messages.map((m) => (m.role === 'tool' ? (m as ToolMessage).toolName : m.role))).toEqual(['user', 'assistant', 'slow', 'get_weather', 'assistant']);
    expect((messages[1] as AssistantMessage).toolCalls).toMatchObject([{ name: 'slow', input: {} }, { name: 'get_weather', input: { city: 'Rome' } }]);
  });

  it('OpenAI-compatible: a call given early still gets what the provider attaches at the end (a Gemini thought signature), and sends it back', async () => {
    const ctx = setup('openai-compatible');
    const signature = 'c2lnbmF0dXJlIG9mIHRoZSBmaXJzdCBjYWxs';
    ctx.server.queue([
      { toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' }, thoughtSignature: signature }, { id: 'call_b', name: 'get_weather', arguments: { city: 'Rome' } }], delayMs: 10 },
      { text: 'Clear in both.' },
    ]);
    const { messages } = await ctx.run('Oslo and Rome?');
    expect(ctx.ran[0]!.startedAt).toBeLessThan(ctx.server.requests[0]!.lastByteAt!);
    const calls = (messages[1] as AssistantMessage).toolCalls;
    expect(calls.map((c) => c.id)).toEqual(['call_a', 'call_b']);
    expect(calls[0]!.providerMetadata).toEqual({ type: 'openai-compatible', model: 'scripted-model', value: { google: { thoughtSignature: signature } } });
    expect(calls[1]!.providerMetadata).toBeUndefined();
    const sent = ctx.server.requests[1]!.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(sent.tool_calls[0]).toMatchObject({ id: 'call_a', extra_content: { google: { thought_signature: signature } } });
  });

  it('OpenAI-compatible: a call whose input is not whole JSON is not given early; at the end it is refused as invalid', async () => {
    const ctx = setup('openai-compatible');
    ctx.server.queue([{ toolCalls: [{ name: 'get_weather', arguments: '{"city": "Os' }, { name: 'slow' }], delayMs: 10 }, { text: 'Once more.' }]);
    const { messages } = await ctx.run('Oslo?');
    expect(ctx.ran.map((r) => r.name)).toEqual(['slow']);
    const tools = messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(tools.map((m) => m.toolName)).toEqual(['get_weather', 'slow']);
    expect(tools[0]).toMatchObject({ status: 'error', result: { ok: false, code: 'invalid_input' } });
    expect(tools[1]).toMatchObject({ status: 'done' });
  });

  it('OpenAI-compatible: only a whole JSON object is given early (an array waits for the end, and is refused there)', async () => {
    const ctx = setup('openai-compatible');
    ctx.server.queue([{ toolCalls: [{ name: 'get_weather', arguments: '["Oslo"]' }, { name: 'slow' }], delayMs: 10 }, { text: 'Once more.' }]);
    const { messages } = await ctx.run('Oslo?');
    const first = ctx.told.find((t) => t.toolName === 'get_weather');
    expect(first!.at).toBeGreaterThan(ctx.server.requests[0]!.lastByteAt!);
    const tools = messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(tools[0]).toMatchObject({ toolName: 'get_weather', status: 'error', result: { ok: false } });
    expect(ctx.ran.map((r) => r.name)).toEqual(['slow']);
  });

  it('runs the first of two calls while the second is still being written, one at a time, kept in the order asked', async () => {
    const ctx = setup('anthropic');
    ctx.server.queue([{ toolCalls: [{ name: 'slow' }, { name: 'get_weather', arguments: { city: 'Rome' } }], delayMs: 30 }, { text: 'Both done.' }]);
    const { conversation, messages } = await ctx.run('Two things');
    expect(conversation.status).toBe('idle');
    const [slow, weather] = ctx.ran;
    expect([slow!.name, weather!.name]).toEqual(['slow', 'get_weather']);
    // The second call's four events and the answer's end take 30 ms each: the slow tool began
    // before the answer was over, and the second tool only after the first ended.
    expect(slow!.startedAt).toBeLessThan(ctx.server.requests[0]!.lastByteAt! - 60);
    expect(weather!.startedAt).toBeGreaterThanOrEqual(slow!.endedAt!);
    expect(messages.map((m) => (m.role === 'tool' ? (m as ToolMessage).toolName : m.role))).toEqual(['user', 'assistant', 'slow', 'get_weather', 'assistant']);
    expect((messages[1] as AssistantMessage).toolCalls.map((c) => c.name)).toEqual(['slow', 'get_weather']);
    const results = ctx.server.requests[1]!.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(results.map((m: { content: string }) => m.content)).toEqual([expect.stringContaining('slow done'), expect.stringContaining('Rome')]);
  });

  it("tells the pages of an early call and its result within a moment, while the answer still streams", async () => {
    const ctx = setup('anthropic');
    ctx.server.queue([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }, { name: 'slow' }], delayMs: 30 }, { text: 'Both done.' }]);
    await ctx.run('Two things');
    const done = ctx.told.find((t) => t.toolName === 'get_weather' && t.status === 'done');
    // The second call's four events and the answer's end still took 150 ms after it.
    expect(done!.at).toBeLessThan(ctx.server.requests[0]!.lastByteAt! - 60);
    // The pages show a call from its answer's list: the answer, still streaming, was told with it.
    const answer = ctx.told.find((t) => t.role === 'assistant' && t.status === 'streaming' && t.calls === 1);
    expect(answer!.at).toBeLessThanOrEqual(done!.at);
  });

  it('keeps a call that had started when the answer broke off, runs none after it, and goes on from there', async () => {
    const ctx = setup('anthropic');
    const cut: ProviderReply = { toolCalls: [{ name: 'slow' }, { name: 'get_weather', arguments: { city: 'Rome' } }], cutAfterCalls: true };
    ctx.server.queue([cut]);
    const { conversation, messages } = await ctx.run('Two things');
    expect(conversation.status).toBe('error');
    expect(ctx.ran.map((r) => r.name)).toEqual(['slow']);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(messages[1]).toMatchObject({ status: 'error', toolCalls: [{ name: 'slow' }, { name: 'get_weather' }] });
    expect(messages[2]).toMatchObject({ toolName: 'slow', status: 'done', result: { ok: true, output: 'slow done' } });
    expect(messages[3]).toMatchObject({ toolName: 'get_weather', status: 'error', result: { ok: false, code: 'aborted', error: NOT_RUN.brokenOff } });
    // The next message continues: the model gets both calls answered, in order.
    ctx.server.queue([{ text: 'Once more, then.' }]);
    await ctx.runner.send(conversation.id, 'Go on');
    await ctx.runner.settled(conversation.id);
    const results = ctx.server.requests.at(-1)!.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(results.map((m: { content: string }) => m.content)).toEqual([expect.stringContaining('slow done'), NOT_RUN.brokenOff]);
  });

  it('stopped while an early call runs: that call ends, the call named after it is not run, the answer is kept as stopped', async () => {
    const ctx = setup('anthropic');
    // The second call is complete 240 ms after the slow tool starts (four events 60 ms apart), the
    // answer's end would come at 360 ms; the stop comes at 300 ms, while the slow tool (900 ms) runs.
    ctx.server.queue([{ toolCalls: [{ name: 'slow', arguments: { ms: 900 } }, { name: 'get_weather', arguments: { city: 'Rome' } }], delayMs: 60 }]);
    const id = await ctx.start('Two things');
    for (let i = 0; i < 400 && !ctx.ran.length; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 300));
    ctx.runner.stop(id);
    await ctx.runner.settled(id);
    expect((await ctx.store.get(id))!.status).toBe('stopped');
    expect(ctx.ran.map((r) => r.name)).toEqual(['slow']);
    const messages = await ctx.store.messages(id);
    expect(messages.map((m) => (m.role === 'tool' ? (m as ToolMessage).toolName : m.role))).toEqual(['user', 'assistant', 'slow', 'get_weather']);
    expect(messages[1]).toMatchObject({ status: 'stopped', toolCalls: [{ name: 'slow' }, { name: 'get_weather' }] });
    expect(messages[3]).toMatchObject({ status: 'error', result: { ok: false, code: 'aborted', error: NOT_RUN.stopped } });
  });
});

import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentRunner, type AgentEvents } from '@/core/agent/runner';
import type { ProviderConfig, ProviderType } from '@/core/agent/provider';
import { createModelClient } from '@/core/agent/clients';
import { cachePrompt, cacheTools } from '@/core/agent/providers/anthropic-cache';
import { ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type AssistantMessage } from '@/core/storage/db';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { startGeminiServer } from '../model-server/gemini.mjs';
import { startModelServer } from '../model-server/server.mjs';
import { readPageTool, registerTestTools, weatherTool } from './helpers/test-tools';

// Issue 40, caching: Anthropic's requests mark tools, instructions and the conversation so far
// as cacheable (cache_control on the wire); every provider's request keeps its prefix from one
// step to the next; the cache's share of the input tokens is read from each wire format.

type Server = Awaited<ReturnType<typeof startModelServer>>;

let dbCount = 0;

function runnerFor(config: ProviderConfig) {
  const store = new ConversationStore(openDb(`test-prompt-cache-${++dbCount}`));
  const registry = new ToolRegistry(interpretedValidators);
  registerTestTools(registry, [weatherTool(({ city }) => ({ city, sky: 'clear' })), readPageTool((n) => `page ${n}`)]);
  const events: AgentEvents = { conversation() {}, message() {}, delta() {} };
  const runner = new AgentRunner({ store, registry, getClient: async () => createModelClient(config), getMaxSteps: async () => 5, events });
  return {
    async run(text: string) {
      const conversation = await store.create();
      await runner.send(conversation.id, text);
      await runner.settled(conversation.id);
      return { conversation: (await store.get(conversation.id))!, messages: await store.messages(conversation.id) };
    },
  };
}

const EPHEMERAL = { type: 'ephemeral' };
const TWO_STEPS = [
  { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
  { text: 'And Rome.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] },
];

/** Where an Anthropic request body has `cache_control`: "tools[i]", "system[i]", "messages[i][j]". */
function breakpoints(body: { tools?: Array<{ cache_control?: unknown }>; system?: Array<{ cache_control?: unknown }>; messages: Array<{ content: Array<{ cache_control?: unknown }> }> }): string[] {
  const at: string[] = [];
  body.tools?.forEach((t, i) => t.cache_control && at.push(`tools[${i}]`));
  body.system?.forEach((b, i) => b.cache_control && at.push(`system[${i}]`));
  body.messages.forEach((m, i) => m.content.forEach((b, j) => b.cache_control && at.push(`messages[${i}][${j}]`)));
  return at;
}

/** The body without its cache breakpoints: what the provider's cache compares. */
function withoutBreakpoints(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body, (key, value: unknown) => (key === 'cache_control' ? undefined : value)));
}

describe('Anthropic: cache breakpoints on the wire', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startAnthropicServer({ apiKey: 'key-1' });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  it('marks the last tool, the system block, the last message and, after an answer, where the previous request ended', async () => {
    server.queue(TWO_STEPS);
    const { conversation } = await runnerFor({ type: 'anthropic', baseUrl: server.url, model: 'claude-scripted', apiKey: 'key-1' }).run('Weather in Paris?');
    expect(conversation.status).toBe('idle');
    const bodies = server.requests.map((r) => r.body);
    expect(bodies).toHaveLength(3);
    const [first, second, third] = bodies;

    // The first request: the tools, the instructions, the user's message.
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual(['get_weather', 'read_page']);
    expect(first.tools[1].cache_control).toEqual(EPHEMERAL);
    expect(first.tools[0].cache_control).toBeUndefined();
    expect(first.system).toEqual([{ type: 'text', text: expect.stringContaining('You are Sidequest'), cache_control: EPHEMERAL }]);
    expect(first.messages.at(-1).content.at(-1)).toMatchObject({ type: 'text', text: 'Weather in Paris?', cache_control: EPHEMERAL });
    expect(breakpoints(first)).toEqual(['tools[1]', 'system[0]', 'messages[0][0]']);

    // Then: the last tool result, and the user's message (where the first request ended).
    expect(breakpoints(second)).toEqual(['tools[1]', 'system[0]', 'messages[0][0]', 'messages[2][0]']);
    expect(second.messages[2].content[0]).toMatchObject({ type: 'tool_result', cache_control: EPHEMERAL });
    // The third: the user's message is no longer marked (the markers are on copies, the history's messages stay as they were).
    expect(breakpoints(third)).toEqual(['tools[1]', 'system[0]', 'messages[2][0]', 'messages[4][0]']);
  });

  it('keeps the prefix: each request begins with the previous one (markers aside)', async () => {
    server.queue(TWO_STEPS);
    await runnerFor({ type: 'anthropic', baseUrl: server.url, model: 'claude-scripted', apiKey: 'key-1' }).run('Weather in Paris?');
    const bodies = server.requests.map((r) => withoutBreakpoints(r.body) as { tools: unknown; system: unknown; messages: unknown[] });
    for (let i = 1; i < bodies.length; i++) {
      expect(JSON.stringify(bodies[i]!.tools)).toBe(JSON.stringify(bodies[0]!.tools));
      expect(JSON.stringify(bodies[i]!.system)).toBe(JSON.stringify(bodies[0]!.system));
      const before = bodies[i - 1]!.messages;
      expect(JSON.stringify(bodies[i]!.messages.slice(0, before.length))).toBe(JSON.stringify(before));
    }
  });

  it('marks nothing in a one-off request (a summary: `cache: false`)', async () => {
    server.queue([{ text: 'A summary.' }]);
    const client = createModelClient({ type: 'anthropic', baseUrl: server.url, model: 'claude-scripted', apiKey: 'key-1' });
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: 'Summarize.' },
      { role: 'user', content: [{ type: 'text', text: 'A long page.' }] },
    ];
    for await (const event of client.stream({ prompt, tools: [], cache: false, signal: new AbortController().signal })) void event;
    expect(breakpoints(server.requests[0]!.body)).toEqual([]);
  });

  it('reads the cache tokens from message_start: input_tokens is the uncached part', async () => {
    server.queue([{ text: 'Hello.', usage: { prompt_tokens: 12, completion_tokens: 7, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200 } }]);
    const { messages } = await runnerFor({ type: 'anthropic', baseUrl: server.url, model: 'claude-scripted', apiKey: 'key-1' }).run('Hi');
    expect((messages.at(-1) as AssistantMessage).usage).toEqual({ inputTokens: 1212, outputTokens: 7, cachedInputTokens: 1000, cacheWriteTokens: 200 });
  });
});

describe.each<{ type: ProviderType; model: string; start: () => Promise<Server> }>([
  { type: 'openai-compatible', model: 'scripted-model', start: () => startModelServer({ apiKey: 'key-1' }) },
  { type: 'google', model: 'gemini-scripted', start: () => startGeminiServer({ apiKey: 'key-1' }) },
])('$type: automatic prefix caching', ({ type, model, start }) => {
  let server: Server;
  const config = (): ProviderConfig => ({ type, baseUrl: server.url, model, apiKey: 'key-1' });
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  it('sends no cache markers, and each request begins byte for byte with the previous one', async () => {
    server.queue(TWO_STEPS);
    await runnerFor(config()).run('Weather in Paris?');
    expect(server.requests).toHaveLength(3);
    const raw = server.requests.map((r) => JSON.stringify(r.body));
    for (const body of raw) expect(body).not.toMatch(/cache_control|cacheControl/);
    // Everything but the conversation (tools, instructions, settings) is the same; the conversation only grows.
    const list = type === 'google' ? 'contents' : 'messages';
    const bodies = server.requests.map((r) => r.body as Record<string, unknown[]>);
    const rest = (body: Record<string, unknown>) => JSON.stringify({ ...body, [list]: undefined });
    for (let i = 1; i < bodies.length; i++) {
      expect(rest(bodies[i]!)).toBe(rest(bodies[0]!));
      const before = bodies[i - 1]![list]!;
      expect(JSON.stringify(bodies[i]![list]!.slice(0, before.length))).toBe(JSON.stringify(before));
    }
  });

  it('reads the cached tokens from the wire (prompt_tokens_details.cached_tokens, cachedContentTokenCount)', async () => {
    server.queue([{ text: 'Hello.', usage: { prompt_tokens: 1234, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 1000 } } }]);
    const { messages } = await runnerFor(config()).run('Hi');
    expect((messages.at(-1) as AssistantMessage).usage).toEqual({ inputTokens: 1234, outputTokens: 7, cachedInputTokens: 1000 });
  });

  it('says nothing of a cache the provider did not mention', async () => {
    server.queue([{ text: 'Hello.', usage: { prompt_tokens: 20, completion_tokens: 3 } }]);
    const { messages } = await runnerFor(config()).run('Hi');
    expect((messages.at(-1) as AssistantMessage).usage).toEqual({ inputTokens: 20, outputTokens: 3 });
  });
});

describe('cachePrompt and cacheTools', () => {
  const tool = (name: string): LanguageModelV3FunctionTool => ({ type: 'function', name, inputSchema: { type: 'object' } });
  const marker = { anthropic: { cacheControl: EPHEMERAL } };

  it('marks the last tool of a copy, the same copy for the same list', () => {
    const tools = [tool('a'), tool('b')];
    const marked = cacheTools(tools);
    expect(marked.map((t) => t.providerOptions)).toEqual([undefined, marker]);
    expect(tools[1]!.providerOptions).toBeUndefined();
    expect(marked[0]).toBe(tools[0]);
    expect(cacheTools(tools)).toBe(marked);
    expect(cacheTools([])).toEqual([]);
  });

  it('marks copies of at most three messages and never the others, keeping their own options', () => {
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
      { role: 'user', content: [{ type: 'text', text: 'three' }], providerOptions: { anthropic: { other: 1 } } },
      { role: 'assistant', content: [{ type: 'text', text: 'four' }] },
      { role: 'user', content: [{ type: 'text', text: 'five' }] },
    ];
    const frozen = JSON.stringify(prompt);
    const out = cachePrompt(prompt);
    expect(out.map((m) => m.providerOptions)).toEqual([marker, undefined, undefined, { anthropic: { other: 1, cacheControl: EPHEMERAL } }, undefined, marker]);
    expect(JSON.stringify(prompt)).toBe(frozen);
    expect(out[1]).toBe(prompt[1]);
    // A prompt of instructions alone: one marker; nothing to mark: the prompt as it was.
    expect(cachePrompt([{ role: 'system', content: 'x' }]).map((m) => m.providerOptions)).toEqual([marker]);
    expect(cachePrompt([])).toEqual([]);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentRunner, type AgentEvents } from '@/core/agent/runner';
import type { ProviderConfig, ProviderType } from '@/core/agent/provider';
import { createModelClient } from '@/core/agent/clients';
import { checkProvider, listModels } from '@/core/agent/providers';
import { ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type AssistantMessage } from '@/core/storage/db';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { startGeminiServer } from '../model-server/gemini.mjs';
import { startOllamaServer } from '../model-server/ollama.mjs';
import { startModelServer } from '../model-server/server.mjs';
import { registerTestTools, weatherTool } from './helpers/test-tools';


// Each provider type against a scripted server that speaks its real wire format.
type Server = Awaited<ReturnType<typeof startModelServer>>;

interface Case {
  type: ProviderType;
  model: string;
  start(): Promise<Server>;
}

const CASES: Case[] = [
  { type: 'openai-compatible', model: 'scripted-model', start: () => startModelServer({ apiKey: 'key-1' }) },
  { type: 'anthropic', model: 'claude-scripted', start: () => startAnthropicServer({ apiKey: 'key-1' }) },
  { type: 'google', model: 'gemini-scripted', start: () => startGeminiServer({ apiKey: 'key-1' }) },
  { type: 'ollama', model: 'scripted-model', start: () => startOllamaServer({ contextLength: 32768 }) },
];

let dbCount = 0;

function runnerFor(config: ProviderConfig) {
  const store = new ConversationStore(openDb(`test-providers-${++dbCount}`));
  const registry = new ToolRegistry(interpretedValidators);
  registerTestTools(registry, [
    weatherTool(({ city }) => ({ city, sky: 'clear', celsius: 21 })),
  ]);
  const events: AgentEvents = { conversation() {}, message() {}, delta() {} };
  const runner = new AgentRunner({ store, registry, getClient: async () => createModelClient(config), getMaxSteps: async () => 5, events });
  return {
    store,
    async run(text: string) {
      const conversation = await store.create();
      await runner.send(conversation.id, text);
      await runner.settled(conversation.id);
      return { conversation: (await store.get(conversation.id))!, messages: await store.messages(conversation.id) };
    },
  };
}

for (const c of CASES) {
  describe(`${c.type} provider`, () => {
    let server: Server;
    const config = (extra: Partial<ProviderConfig> = {}): ProviderConfig => ({
      type: c.type,
      baseUrl: server.url,
      model: c.model,
      apiKey: c.type === 'ollama' ? undefined : 'key-1',
      ...extra,
    });
    beforeAll(async () => {
      server = await c.start();
    });
    afterAll(() => server.close());
    beforeEach(() => server.reset());

    it('streams text, makes a tool call, sends the result back and reports usage', async () => {
      server.queue([{ text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: { prompt_tokens: 42, completion_tokens: 7 } }]);
      const { conversation, messages } = await runnerFor(config()).run('Weather in Paris?');
      expect(conversation.status).toBe('idle');
      const first = messages[1] as AssistantMessage;
      expect(first).toMatchObject({ role: 'assistant', text: 'Let me check.', toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] });
      expect(first.usage).toMatchObject({ inputTokens: 42, outputTokens: 7 });
      expect(messages[2]).toMatchObject({ role: 'tool', status: 'done', result: { ok: true, output: { city: 'Paris', sky: 'clear' } } });
      const answer = messages.at(-1) as AssistantMessage;
      expect(answer.text).toContain('The tool answered:');
      expect(answer.text).toContain('clear');
      // The request carried the tools, the system prompt and, second time, the tool result.
      expect(server.requests[0]!.toolNames).toContain('get_weather');
      expect(server.requests[0]!.messages[0]).toMatchObject({ role: 'system' });
      expect(server.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool' });
      expect(server.requests[1]!.messages.at(-1).content).toContain('Paris');
    });

    it('lists the models', async () => {
      const models = await listModels(config());
      expect(models.map((m) => m.id)[0]).toMatch(/scripted/);
      expect((await checkProvider(config())).ok).toBe(true);
    });

    if (c.type !== 'openai-compatible') {
      it.each([
        ['not_found', 'not_found', /does not know this model/],
        ['rate_limit', 'rate_limit', /limiting requests/],
        ['overloaded', 'overloaded', /overloaded/],
        ['context', 'context_length', /too long for the model's context window/],
      ])('words the %s error like the others', async (error, kind, message) => {
        // Retryable errors are tried twice.
        server.queue([{ error }, { error }] as never);
        const { conversation } = await runnerFor(config()).run('Hello');
        expect(conversation.status).toBe('error');
        expect(conversation.error).toMatchObject({ kind, message: expect.stringMatching(message) });
      });
    }

    if (c.type !== 'ollama') {
      it('says a bad key is a bad key', async () => {
        const { conversation } = await runnerFor(config({ apiKey: 'wrong' })).run('Hello');
        expect(conversation.error).toMatchObject({ kind: 'auth', message: expect.stringMatching(/API key is missing or wrong/) });
        const check = await checkProvider(config({ apiKey: 'wrong' }));
        expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/refused the API key/) });
      });

      it('never sends a key over plain http to another computer', () => {
        expect(() => createModelClient(config({ baseUrl: 'http://models.example.com/v1' }))).toThrow(/will not send the API key over plain http/);
      });
    }

    it('reports a malformed stream', async () => {
      server.queue([{ malformed: true }]);
      const { conversation } = await runnerFor(config()).run('Hello');
      expect(conversation.status).toBe('error');
      expect(conversation.error?.kind).toMatch(/malformed|network/);
    });
  });
}

describe('provider specifics', () => {
  it('Anthropic: the browser-access header, the version header and the key header', async () => {
    const server = await startAnthropicServer({ apiKey: 'key-1' });
    try {
      await runnerFor({ type: 'anthropic', baseUrl: server.url, model: 'claude-scripted', apiKey: 'key-1' }).run('Hi');
      expect(server.requests[0]!.headers).toMatchObject({
        'anthropic-dangerous-direct-browser-access': 'true',
        'anthropic-version': '2023-06-01',
        'x-api-key': 'key-1',
      });
      expect(server.requests[0]!.body.stream).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('Anthropic: an overloaded error in the middle of the stream', async () => {
    const server = await startAnthropicServer({ apiKey: 'key-1' });
    try {
      server.queue([{ text: 'Starting…', streamError: 'overloaded' } as never]);
      const { conversation, messages } = await runnerFor({ type: 'anthropic', baseUrl: server.url, model: 'claude-scripted', apiKey: 'key-1' }).run('Hi');
      expect(conversation.error).toMatchObject({ kind: 'overloaded' });
      expect((messages.at(-1) as AssistantMessage).text).toBe('Starting…');
    } finally {
      await server.close();
    }
  });

  it('Gemini: the context window comes from the model list', async () => {
    const server = await startGeminiServer({ apiKey: 'key-1', models: [{ name: 'models/gemini-small', inputTokenLimit: 4000 }] });
    try {
      const client = createModelClient({ type: 'google', baseUrl: server.url, model: 'gemini-small', apiKey: 'key-1' });
      expect(await client.contextLength?.()).toBe(4000);
      expect(await listModels({ type: 'google', baseUrl: server.url, model: '', apiKey: 'key-1' })).toEqual([
        { id: 'gemini-small', name: undefined, contextLength: 4000 },
      ]);
    } finally {
      await server.close();
    }
  });

  it('Ollama: num_ctx is the model context length from /api/show, unless the profile overrides it', async () => {
    const server = await startOllamaServer({ contextLength: 16384 });
    try {
      // Whatever address form the user typed: the root, /api or /v1.
      await runnerFor({ type: 'ollama', baseUrl: `${server.url}/v1`, model: 'scripted-model' }).run('Hi');
      expect(server.requests[0]!.body.options).toEqual({ num_ctx: 16384 });
      expect(server.requests[0]!.body.stream).toBe(true);
      expect(server.shows[0]).toEqual({ model: 'scripted-model' });
      await runnerFor({ type: 'ollama', baseUrl: `${server.url}/api`, model: 'scripted-model', numCtx: 8192 }).run('Hi');
      expect(server.requests[1]!.body.options).toEqual({ num_ctx: 8192 });
      const client = createModelClient({ type: 'ollama', baseUrl: server.url, model: 'scripted-model' });
      expect(await client.contextLength?.()).toBe(16384);
    } finally {
      await server.close();
    }
  });

  it('Ollama: a model without tools is refused in Ollama words', async () => {
    const server = await startOllamaServer({ noTools: true });
    try {
      const { conversation } = await runnerFor({ type: 'ollama', baseUrl: server.url, model: 'scripted-model', toolMode: 'native' }).run('Hi');
      expect(conversation.error).toMatchObject({ kind: 'bad_request', detail: expect.stringMatching(/does not support tools/) });
    } finally {
      await server.close();
    }
  });
});

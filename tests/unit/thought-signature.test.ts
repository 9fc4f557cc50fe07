// Gemini 3 refuses a function call sent back without its thought signature: each tool call keeps
// its provider metadata from the stream, stored with the call, and goes back to the same provider
// type and model only. Conversations stored before the field existed still run.
import Dexie from 'dexie';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toModelPrompt } from '@/core/agent/history';
import type { ProviderConfig } from '@/core/agent/provider';
import { createAgentClient } from '@/core/agent/clients';
import { AgentRunner, type AgentEvents } from '@/core/agent/runner';
import { makeArchive, parseArchive } from '@/core/data/archive';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type AssistantMessage, type StoredMessage } from '@/core/storage/db';
import { applyDbVersions, DB_STEPS } from '@/core/storage/migrations/db';
import v4 from '@/tests/fixtures/migrations/db-v4.json';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { startGeminiServer } from '../model-server/gemini.mjs';
import { startModelServer } from '../model-server/server.mjs';

const SIGNATURE = Buffer.from('a thought signature, opaque to Sidequest').toString('base64');
const SKIP = 'skip_thought_signature_validator';

function registry() {
  const r = new ToolRegistry(interpretedValidators);
  const tool = (name: string) =>
    defineTool<{ city?: string; task?: string }>({
      annotations: { readOnly: true, destructive: false, openWorld: false },
      name,
      description: `The ${name} tool.`,
      inputSchema: { type: 'object', properties: { city: { type: 'string' }, task: { type: 'string' } } },
      execute: (input) => ({ ...input, sky: 'clear' }),
    });
  r.register({ id: 'test', name: 'Test', description: '', source: 'builtin', tools: [tool('get_weather'), tool('agent')] });
  return r;
}

const events: AgentEvents = { conversation() {}, message() {}, delta() {} };

function runner(store: ConversationStore, config: ProviderConfig) {
  const agent = new AgentRunner({ store, registry: registry(), getClient: async () => createAgentClient(config), getMaxSteps: async () => 5, events });
  return async (conversationId: string, text: string) => {
    await agent.send(conversationId, text);
    await agent.settled(conversationId);
    return { conversation: (await store.get(conversationId))!, messages: await store.messages(conversationId) };
  };
}

let gemini: Awaited<ReturnType<typeof startGeminiServer>>;
let anthropic: Awaited<ReturnType<typeof startAnthropicServer>>;
let openai: Awaited<ReturnType<typeof startModelServer>>;
let dbCount = 0;

beforeAll(async () => {
  gemini = await startGeminiServer({ apiKey: 'k', signatures: true, models: [{ name: 'models/gemini-3-pro-preview' }, { name: 'models/gemini-2.5-flash' }] });
  anthropic = await startAnthropicServer({ apiKey: 'k' });
  openai = await startModelServer();
});
afterAll(async () => {
  await gemini.close();
  await anthropic.close();
  await openai.close();
});

const g3: ProviderConfig = { type: 'google', baseUrl: '', model: 'gemini-3-pro-preview', apiKey: 'k' };
const modelTurns = () => gemini.requests.at(-1)!.body.contents.filter((c: { role: string }) => c.role === 'model');

describe('Gemini thought signatures', () => {
  it('are kept with the tool call and sent back as Gemini 3 wants them', async () => {
    gemini.reset();
    gemini.queue([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, thoughtSignature: SIGNATURE }] }, { text: 'Clear in Paris.' }]);
    const store = new ConversationStore(openDb(`test-signature-${++dbCount}`));
    const conversation = await store.create();
    const { conversation: done, messages } = await runner(store, { ...g3, baseUrl: gemini.url })(conversation.id, 'Weather in Paris?');
    expect(done.status).toBe('idle');
    const call = (messages.find((m) => m.role === 'assistant') as AssistantMessage).toolCalls[0]!;
    expect(call.providerMetadata).toEqual({ type: 'google', model: 'gemini-3-pro-preview', value: { google: { thoughtSignature: SIGNATURE } } });
    // The second request carried the signature itself, not the SDK's "skip" stand-in.
    const turn = modelTurns()[0];
    expect(turn.parts[0]).toMatchObject({ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE });
    expect((messages.at(-1) as AssistantMessage).text).toBe('Clear in Paris.');

    // Another model of the same type, or another provider type, never gets Google's metadata.
    await runner(store, { ...g3, baseUrl: gemini.url, model: 'gemini-2.5-flash' })(conversation.id, 'And now?');
    expect(modelTurns()[0].parts[0]).not.toHaveProperty('thoughtSignature');
    await runner(store, { type: 'anthropic', baseUrl: anthropic.url, model: 'claude-scripted', apiKey: 'k' })(conversation.id, 'And now?');
    expect(JSON.stringify(anthropic.requests.at(-1)!.body)).not.toContain(SIGNATURE);
    await runner(store, { type: 'openai-compatible', baseUrl: openai.url, model: 'gemini-3-pro-preview' })(conversation.id, 'And now?');
    expect(JSON.stringify(openai.requests.at(-1)!.body)).not.toContain(SIGNATURE);
  });

  it('a signature the server makes up round-trips too; a call without one is refused like Gemini 3 does', async () => {
    gemini.reset();
    gemini.queue([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Clear in Oslo.' }]);
    const store = new ConversationStore(openDb(`test-signature-${++dbCount}`));
    const conversation = await store.create();
    const { conversation: done } = await runner(store, { ...g3, baseUrl: gemini.url })(conversation.id, 'Weather in Oslo?');
    expect(done.status).toBe('idle');
    const sent = modelTurns()[0].parts[0].thoughtSignature;
    expect(Buffer.from(sent, 'base64').toString()).toMatch(/^signature of get_weather #\d+$/);
    // The scripted server refuses what the real one refuses (checked against the raw wire).
    const response = await fetch(`${gemini.url}/models/gemini-3-pro-preview:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: {} } }] }] }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('missing a thought_signature');
  });

  it('Gemini through its OpenAI-compatible endpoint: `extra_content` goes back as it came', async () => {
    openai.reset();
    openai.queue([{ toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Rome' }, thoughtSignature: SIGNATURE }] }, { text: 'Clear in Rome.' }]);
    const store = new ConversationStore(openDb(`test-signature-${++dbCount}`));
    const conversation = await store.create();
    const { messages } = await runner(store, { type: 'openai-compatible', baseUrl: openai.url, model: 'gemini-3-pro-preview' })(conversation.id, 'Rome?');
    expect((messages.find((m) => m.role === 'assistant') as AssistantMessage).toolCalls[0]!.providerMetadata).toEqual({
      type: 'openai-compatible',
      model: 'gemini-3-pro-preview',
      value: { google: { thoughtSignature: SIGNATURE } },
    });
    const assistant = openai.requests.at(-1)!.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(assistant.tool_calls[0]).toMatchObject({ id: 'call_9', extra_content: { google: { thought_signature: SIGNATURE } } });
  });

  it('only the provider type and model that gave it get it back (the prompt as built)', () => {
    const base = { conversationId: 'c', createdAt: 0, seq: 0 };
    const messages = [
      { ...base, id: 'u', role: 'user', text: 'Hi' },
      {
        ...base,
        id: 'a',
        role: 'assistant',
        text: '',
        status: 'complete',
        toolCalls: [{ id: 'c1', name: 't', input: {}, providerMetadata: { type: 'google', model: 'gemini-3-pro-preview', value: { google: { thoughtSignature: 'sig' } } } }],
      },
    ] as StoredMessage[];
    const callOf = (to?: { type: string; model: string }) => toModelPrompt('s', messages, to)[2]!.content[0];
    expect(callOf({ type: 'google', model: 'gemini-3-pro-preview' })).toMatchObject({ type: 'tool-call', providerOptions: { google: { thoughtSignature: 'sig' } } });
    expect(callOf({ type: 'google', model: 'gemini-2.5-pro' })).not.toHaveProperty('providerOptions');
    expect(callOf({ type: 'openai-compatible', model: 'gemini-3-pro-preview' })).not.toHaveProperty('providerOptions');
    expect(callOf()).not.toHaveProperty('providerOptions');
  });

  it('survive an export and import of the conversation', () => {
    const conversation = { id: 'c', title: 'T', createdAt: 1, updatedAt: 1, status: 'idle' as const };
    const call = { id: 'c1', name: 't', input: {}, providerMetadata: { type: 'google', model: 'gemini-3-pro-preview', value: { google: { thoughtSignature: SIGNATURE } } } };
    const messages = [{ id: 'a', conversationId: 'c', seq: 0, createdAt: 1, role: 'assistant', text: '', status: 'complete', toolCalls: [call] }] as StoredMessage[];
    const back = parseArchive(JSON.stringify(makeArchive([{ conversation, messages }])));
    expect((back.conversations[0]!.messages[0] as AssistantMessage).toolCalls[0]).toEqual(call);
  });

  it('a conversation stored before the field existed still runs on a Gemini 3 model', async () => {
    const name = `test-signature-old-${Math.random()}`;
    const old = new Dexie(name);
    applyDbVersions(old, DB_STEPS.filter((s) => s.version <= 4));
    await old.table('conversations').bulkAdd(v4.conversations);
    await old.table('messages').bulkAdd(v4.messages);
    old.close();
    gemini.reset();
    gemini.queue([{ text: 'Still about cats.' }]);
    const store = new ConversationStore(openDb(name));
    const { conversation, messages } = await runner(store, { ...g3, baseUrl: gemini.url })('c1', 'Anything else?');
    expect(conversation.status).toBe('idle');
    // The old call goes back with Gemini's documented stand-in, which Gemini 3 accepts.
    expect(modelTurns()[0].parts[0]).toMatchObject({ functionCall: { name: 'agent' }, thoughtSignature: SKIP });
    expect(messages.slice(0, v4.messages.length)).toEqual(v4.messages);
    expect((messages.at(-1) as AssistantMessage).text).toBe('Still about cats.');
  });
});

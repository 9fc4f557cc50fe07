import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '@/core/agent/provider';
import { createAgentClient, createModelClient } from '@/core/agent/clients';
import { listModels, PROVIDERS, providerOf } from '@/core/agent/providers';
import { anthropic } from '@/core/agent/providers/anthropic';
import type { ProviderClient } from '@/core/agent/providers/client';
import type { ProviderCapabilities } from '@/core/agent/providers/define';
import { openaiCompatible } from '@/core/agent/providers/openai-compatible';
import { english, source } from '@/core/i18n/catalog';
import { providerSettingsSchema, validateProviderProfile } from '@/core/storage/settings';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { contentText, startModelServer } from '../model-server/server.mjs';

// The provider list is the one place a provider type is named: the settings schema, the form's
// facts and the background's clients all follow from it.

const CLIENT_FILES = import.meta.glob<ProviderClient>('/core/agent/providers/*-client.ts', { eager: true, import: 'default' });

const TOOLS = [{ name: 'list_tabs', description: 'Tabs.', inputSchema: { type: 'object' } } as never];

function request(text: string): ModelRequest {
  return { prompt: [{ role: 'system', content: 'You help.' }, { role: 'user', content: [{ type: 'text', text }] }], tools: TOOLS, signal: new AbortController().signal };
}

/** Changes a listed type's capabilities for one test (the values are shared module state). */
const restore: Array<() => void> = [];
function withCapabilities(provider: { capabilities: ProviderCapabilities }, change: Partial<ProviderCapabilities>): void {
  const before = provider.capabilities;
  provider.capabilities = { ...before, ...change };
  restore.push(() => (provider.capabilities = before));
}
afterEach(() => restore.splice(0).forEach((undo) => undo()));

describe('the provider list', () => {
  it('each listed type has its client beside it, and each client file a listed type', () => {
    const types = PROVIDERS.map((p) => p.type);
    expect(new Set(types).size).toBe(types.length);
    const files = Object.keys(CLIENT_FILES).map((f) => f.replace(/^.*\/(.+)-client\.ts$/, '$1'));
    expect(files.sort()).toEqual([...types].sort());
    for (const client of Object.values(CLIENT_FILES)) {
      expect(typeof client.createClient).toBe('function');
      expect(typeof client.listModels).toBe('function');
    }
  });

  it('the facts pages show are words of the locales, addresses and unique presets', () => {
    const presets = PROVIDERS.flatMap((p) => p.presets.map((preset) => preset.id));
    expect(new Set(presets).size).toBe(presets.length);
    for (const p of PROVIDERS) {
      for (const words of [p.label, p.baseUrlHint, ...(p.keyHint ? [p.keyHint] : [])]) expect(source('en', words.key), words.key).toBeTypeOf('string');
      expect(new URL(p.defaultBaseUrl).protocol).toMatch(/^https?:$/);
      for (const preset of p.presets) expect(new URL(preset.baseUrl).protocol).toMatch(/^https?:$/);
    }
  });

  it('the settings schema takes every listed type and no other; a profile of no known type is OpenAI-compatible', () => {
    const settings = (type: string) => ({ activeId: 'p', profiles: [{ id: 'p', name: 'P', type, baseUrl: 'https://x.example/v1', model: 'm' }] });
    for (const p of PROVIDERS) expect(providerSettingsSchema().safeParse(settings(p.type)).success).toBe(true);
    expect(providerSettingsSchema().safeParse(settings('carrier-pigeon')).success).toBe(false);
    const clean = validateProviderProfile({ type: 'carrier-pigeon' as never, baseUrl: 'https://x.example/v1', model: 'm' });
    expect(clean).toMatchObject({ type: 'openai-compatible', name: 'OpenAI-compatible (x.example)' });
    expect(providerOf(undefined)).toBe(openaiCompatible);
  });

  it('num_ctx is kept only for a type that has it; the default name is the type label', () => {
    for (const p of PROVIDERS) {
      const clean = validateProviderProfile({ type: p.type, baseUrl: 'https://x.example/v1', model: 'm', numCtx: 4096 });
      expect(clean.numCtx).toBe(p.numCtx ? 4096 : undefined);
      expect(clean.name).toBe(`${english(p.label)} (x.example)`);
    }
  });
});

describe('needsKey', () => {
  it('a type that needs a key refuses before any request when the profile has none', async () => {
    const server = await startModelServer();
    try {
      const config = { type: 'anthropic' as const, baseUrl: server.url, model: 'm' };
      expect(() => createModelClient(config)).toThrow(/Anthropic needs an API key/);
      await expect(listModels(config)).rejects.toThrow(/Anthropic needs an API key/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('capabilities', () => {
  it('tools: a type without native tool calling describes the tools in the prompt from the first request', async () => {
    withCapabilities(openaiCompatible, { tools: false });
    const server = await startModelServer();
    try {
      server.queue([{ text: 'Fine.' }]);
      const notices: string[] = [];
      const client = createAgentClient({ type: 'openai-compatible', baseUrl: server.url, model: 'scripted-model' }, (kind) => notices.push(kind));
      for await (const event of client.stream(request('Hi'))) void event;
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.body.tools).toBeUndefined();
      expect(contentText(server.requests[0]!.messages[0])).toContain('### list_tabs');
      expect(notices).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('contextWindow: the window assumed when neither the provider nor the profile says', async () => {
    // A window far too small for the instructions: refused before anything is sent.
    withCapabilities(anthropic, { contextWindow: 300 });
    const big = request('Hi');
    big.prompt[0] = { role: 'system', content: 'x'.repeat(3000) };
    const server = await startAnthropicServer({ apiKey: 'k' });
    const config = { type: 'anthropic' as const, baseUrl: server.url, model: 'claude-scripted', apiKey: 'k' };
    const failure = async (client: ReturnType<typeof createAgentClient>) => {
      try {
        for await (const event of client.stream(big)) void event;
      } catch (error) {
        return (error as { info?: { kind: string } }).info?.kind;
      }
      return 'none';
    };
    try {
      expect(await failure(createAgentClient(config))).toBe('context_length');
      expect(server.requests).toHaveLength(0);
      // The profile's own figure comes first; without either, nothing is assumed.
      server.queue([{ text: 'Fine.' }, { text: 'Fine.' }]);
      expect(await failure(createAgentClient({ ...config, contextLength: 1_000_000 }))).toBe('none');
      withCapabilities(anthropic, { contextWindow: undefined });
      expect(await failure(createAgentClient(config))).toBe('none');
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { estimateTokens } from '@/core/agent/context-window';
import { toModelPrompt } from '@/core/agent/history';
import type { ImageChoice, ProviderConfig, ProviderType } from '@/core/agent/provider';
import { createAgentClient, createModelClient } from '@/core/agent/clients';
import { knownTextOnly, leftOutNote, toolImagesAsUserMessages, toolImagesFor, withoutToolImages } from '@/core/agent/tool-images';
import { withAttachments } from '@/core/registry/attachments';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import type { ToolResult, ToolSpec } from '@/core/registry/types';
import type { StoredMessage } from '@/core/storage/db';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { startGeminiServer } from '../model-server/gemini.mjs';
import { startOllamaServer } from '../model-server/ollama.mjs';
import { startModelServer } from '../model-server/server.mjs';

// A 1×1 PNG and a 1×1 JPEG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const JPEG =
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=';

function registryWith(output: unknown) {
  const registry = new ToolRegistry(interpretedValidators);
  registry.register({
    id: 't',
    name: 'T',
    description: '',
    source: 'builtin',
    tools: [defineTool({ name: 'snap', description: '', inputSchema: { type: 'object' }, annotations: { readOnly: true, destructive: false, openWorld: false }, execute: () => output })],
  });
  return registry;
}

function history(result: ToolResult): StoredMessage[] {
  const base = { conversationId: 'c', createdAt: 0 };
  return [
    { ...base, id: 'u', role: 'user', text: 'Show me' },
    { ...base, id: 'a', role: 'assistant', text: '', status: 'complete', toolCalls: [{ id: 'call-1', name: 'snap', input: {} }] },
    { ...base, id: 't', role: 'tool', toolCallId: 'call-1', toolName: 'snap', input: {}, status: 'done', result },
  ] as unknown as StoredMessage[];
}

const IMAGE_RESULT: ToolResult = { ok: true, output: { shown: 'the page' }, attachments: [{ type: 'image', mediaType: 'image/jpeg', data: JPEG }] };
const prompt = () => toModelPrompt('sys', history(IMAGE_RESULT));

describe('images in tool results', () => {
  it('the registry keeps accepted images beside the output, and drops the rest', async () => {
    const result = await registryWith(
      withAttachments('A chart (image 1).', [
        { type: 'image', mediaType: 'image/png', data: PNG },
        { type: 'image', mediaType: 'image/svg+xml', data: PNG },
        { type: 'image', mediaType: 'image/png', data: 'not base64 at all!' },
      ]),
    ).invoke('snap', {});
    expect(result).toEqual({ ok: true, output: 'A chart (image 1).', attachments: [{ type: 'image', mediaType: 'image/png', data: PNG }] });
    expect(await registryWith(withAttachments('none', [])).invoke('snap', {})).toEqual({ ok: true, output: 'none' });
  });

  it('reach the prompt as image parts; without them the output is what it always was', () => {
    const plain = toModelPrompt('sys', history({ ok: true, output: { a: 1 } }));
    const withImage = toModelPrompt('sys', history({ ok: true, output: { a: 1 }, attachments: [{ type: 'image', mediaType: 'image/png', data: PNG }] }));
    const part = (p: LanguageModelV3Prompt) => (p.at(-1)!.content as Array<{ output: unknown }>)[0]!.output;
    expect(part(withImage)).toEqual({ type: 'content', value: [{ type: 'text', text: '{"a":1}' }, { type: 'image-data', data: PNG, mediaType: 'image/png' }] });
    expect(part(plain)).toEqual({ type: 'json', value: { a: 1 } });
  });

  it('left out: the JSON and a note the model reads, no image bytes', () => {
    const out = withoutToolImages(prompt());
    expect(out.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'snap', output: { type: 'text', value: `{"shown":"the page"}\n${leftOutNote(1)}` } }],
    });
    expect(leftOutNote(2)).toBe('[2 images left out: this model does not take images]');
    expect(JSON.stringify(out)).not.toContain(JPEG.slice(0, 30));
  });

  it('as a user message: after the step’s tool message, each image named by its call', () => {
    const out = toolImagesAsUserMessages(prompt());
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect((out[3]!.content[0] as { output: unknown }).output).toEqual({ type: 'json', value: { shown: 'the page' } });
    expect(out[4]!.content).toEqual([
      { type: 'text', text: 'Image 1 of 1 returned by the call call-1 (snap):' },
      { type: 'file', mediaType: 'image/jpeg', data: JPEG },
    ]);
  });

  it('an image costs the estimate about what it costs a model; a left-out one only its note', () => {
    const big = toModelPrompt('sys', history({ ok: true, output: 'x', attachments: [{ type: 'image', mediaType: 'image/png', data: 'A'.repeat(3_000_000) }] }));
    const text = toModelPrompt('sys', history({ ok: true, output: 'x' }));
    expect(estimateTokens(big) - estimateTokens(text)).toBeGreaterThan(1200);
    expect(estimateTokens(big)).toBeLessThan(3000);
    expect(estimateTokens(big, [], 0) - estimateTokens(text)).toBeLessThan(40);
    // The same once moved to a user message.
    expect(Math.abs(estimateTokens(toolImagesAsUserMessages(big)) - estimateTokens(big))).toBeLessThan(100);
  });

  it('knows the usual text-only model names, and not the ones that see', () => {
    for (const name of ['deepseek-chat', 'deepseek-reasoner', 'deepseek/deepseek-chat-v3', 'deepseek-r1:8b', 'gpt-3.5-turbo', 'o3-mini', 'gpt-oss:20b', 'llama3.2', 'llama3.1:8b', 'meta-llama/llama-3.3-70b-instruct', 'qwen3:8b', 'qwen2.5:7b', 'qwen/qwen3-235b-a22b', 'mistral:7b', 'mixtral:8x7b', 'phi4', 'gemma2:9b', 'gemma3:1b', 'qwq'])
      expect(knownTextOnly(name), name).toBe(true);
    for (const name of ['gpt-4o-mini', 'openai/gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'llama3.2-vision', 'meta-llama/Llama-3.2-11B-Vision-Instruct', 'llama-4-scout', 'qwen2.5vl:7b', 'qwen3-vl:8b', 'qwen-vl-max', 'gemma3:4b', 'llava:13b', 'phi-4-multimodal-instruct', 'mistral-small3.1', 'pixtral-12b', 'minicpm-v'])
      expect(knownTextOnly(name), name).toBe(false);
  });

  it('the mode: the type’s way; the profile’s No; Auto asks the provider, then the name', async () => {
    const cfg = (type: ProviderType, model: string, images?: ImageChoice): ProviderConfig => ({ type, baseUrl: 'http://x', model, images });
    expect(await toolImagesFor(cfg('anthropic', 'claude-sonnet-4-5'))).toBe('in-result');
    expect(await toolImagesFor(cfg('google', 'gemini-2.5-flash'))).toBe('in-result');
    expect(await toolImagesFor(cfg('openai-compatible', 'gpt-4o'))).toBe('as-user-message');
    expect(await toolImagesFor(cfg('ollama', 'llava'))).toBe('as-user-message');
    expect(await toolImagesFor(cfg('anthropic', 'claude-sonnet-4-5', 'no'))).toBe('none');
    expect(await toolImagesFor(cfg('openai-compatible', 'deepseek-chat'))).toBe('none');
    expect(await toolImagesFor(cfg('openai-compatible', 'deepseek-chat', 'yes'))).toBe('as-user-message');
    expect(await toolImagesFor(cfg('ollama', 'llama3.2'), { supportsImages: async () => true })).toBe('as-user-message');
    expect(await toolImagesFor(cfg('ollama', 'mystery'), { supportsImages: async () => false })).toBe('none');
    expect(await toolImagesFor(cfg('ollama', 'llava'), { supportsImages: () => Promise.reject(new Error('down')) })).toBe('as-user-message');
  });
});

// Each provider type against its scripted server: the image on the real wire, or the note and no bytes.
type Server = Awaited<ReturnType<typeof startModelServer>>;
const servers: Partial<Record<string, Server>> = {};

beforeAll(async () => {
  servers.openai = await startModelServer({ apiKey: 'k' });
  servers.anthropic = await startAnthropicServer({ apiKey: 'k' });
  servers.gemini = await startGeminiServer({ apiKey: 'k', models: [{ name: 'models/gemini-2.5-flash' }, { name: 'models/gemini-3-flash-preview' }] });
  servers.ollama = await startOllamaServer({ vision: true });
  servers.ollamaText = await startOllamaServer();
});
afterAll(async () => {
  for (const s of Object.values(servers)) await s?.close();
});

const SNAP: ToolSpec = { name: 'snap', description: 'Shows the page.', inputSchema: { type: 'object' }, pluginId: 't', source: 'builtin', annotations: { readOnly: true, destructive: false, openWorld: false } };

async function send(config: ProviderConfig, p: LanguageModelV3Prompt = prompt(), agent = false) {
  const client = agent ? createAgentClient(config) : createModelClient(config);
  for await (const event of client.stream({ prompt: p, tools: agent ? [SNAP] : [], signal: new AbortController().signal })) void event;
}

const body = (name: string) => servers[name]!.requests.at(-1)!.body;
const sent = (name: string) => JSON.stringify(body(name));
/** What a scripted model reads: the tool result is still the last message; the step's images beside it. */
const seen = (name: string) => {
  const request = servers[name]!.requests.at(-1)!;
  expect(request.last.role).toBe('tool');
  return request.images.map((i) => ({ mediaType: i.mediaType, data: i.data }));
};

describe('tool images on each provider’s wire', () => {
  it('OpenAI-compatible: the tool message holds the JSON, a user message after it the image_url', async () => {
    await send({ type: 'openai-compatible', baseUrl: servers.openai!.url, model: 'gpt-4o', apiKey: 'k' });
    const messages = body('openai').messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call-1', content: '{"shown":"the page"}' });
    expect(messages[4].content).toEqual([
      { type: 'text', text: 'Image 1 of 1 returned by the call call-1 (snap):' },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${JPEG}` } },
    ]);
    expect(servers.openai!.requests.at(-1)!.images).toEqual([{ mediaType: 'image/jpeg', data: JPEG, callId: 'call-1' }]);
    expect(seen('openai')).toHaveLength(1);
  });

  it('Anthropic: an image block inside the tool_result', async () => {
    await send({ type: 'anthropic', baseUrl: servers.anthropic!.url, model: 'claude-scripted', apiKey: 'k' });
    const result = body('anthropic').messages.at(-1).content[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'call-1' });
    expect(result.content).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: JPEG } });
    expect(seen('anthropic')).toEqual([{ mediaType: 'image/jpeg', data: JPEG }]);
  });

  it('Gemini: inlineData beside the functionResponse (2.x), inside its parts (3)', async () => {
    await send({ type: 'google', baseUrl: servers.gemini!.url, model: 'gemini-2.5-flash', apiKey: 'k' });
    const parts = body('gemini').contents.at(-1).parts;
    expect(parts[0].functionResponse).toMatchObject({ name: 'snap', response: { content: '{"shown":"the page"}' } });
    expect(parts).toContainEqual({ inlineData: { mimeType: 'image/jpeg', data: JPEG } });
    expect(seen('gemini')).toEqual([{ mediaType: 'image/jpeg', data: JPEG }]);
    await send({ type: 'google', baseUrl: servers.gemini!.url, model: 'gemini-3-flash-preview', apiKey: 'k' });
    const three = body('gemini').contents.at(-1).parts;
    expect(three[0].functionResponse.parts).toEqual([{ inlineData: { mimeType: 'image/jpeg', data: JPEG } }]);
    expect(seen('gemini')).toEqual([{ mediaType: 'image/jpeg', data: JPEG }]);
  });

  it('Ollama: a user message after the tool message, with the image in `images`', async () => {
    await send({ type: 'ollama', baseUrl: servers.ollama!.url, model: 'llava' });
    const messages = body('ollama').messages;
    expect(messages.at(-2)).toMatchObject({ role: 'tool', content: '{"shown":"the page"}' });
    expect(messages.at(-1)).toMatchObject({ role: 'user', images: [JPEG] });
    expect(messages.at(-1).content).toContain('returned by the call call-1 (snap)');
    expect(seen('ollama')).toEqual([{ mediaType: 'image/jpeg', data: JPEG }]);
  });

  it('a model without images (profile No, or Ollama without "vision") reads the note and gets no image bytes', async () => {
    const cases: Array<[string, ProviderConfig]> = [
      ['openai', { type: 'openai-compatible', baseUrl: servers.openai!.url, model: 'gpt-4o', apiKey: 'k', images: 'no' }],
      ['openai', { type: 'openai-compatible', baseUrl: servers.openai!.url, model: 'deepseek-chat', apiKey: 'k' }],
      ['anthropic', { type: 'anthropic', baseUrl: servers.anthropic!.url, model: 'claude-scripted', apiKey: 'k', images: 'no' }],
      ['gemini', { type: 'google', baseUrl: servers.gemini!.url, model: 'gemini-scripted', apiKey: 'k', images: 'no' }],
      ['ollama', { type: 'ollama', baseUrl: servers.ollama!.url, model: 'llava', images: 'no' }],
      ['ollamaText', { type: 'ollama', baseUrl: servers.ollamaText!.url, model: 'scripted-model' }],
    ];
    for (const [name, config] of cases) {
      await send(config);
      const wire = sent(name);
      expect(wire, `${config.type} ${config.model}`).not.toContain(JPEG.slice(0, 40));
      expect(wire, `${config.type} ${config.model}`).toContain('[1 image left out: this model does not take images]');
      expect(seen(name), `${config.type} ${config.model}`).toEqual([]);
    }
  });

  it('the agent client shapes images too, and with prompted tool calls they follow the result text', async () => {
    await send({ type: 'anthropic', baseUrl: servers.anthropic!.url, model: 'claude-scripted', apiKey: 'k' }, prompt(), true);
    expect(sent('anthropic')).toContain(`"media_type":"image/jpeg","data":"${JPEG}"`);
    await send({ type: 'anthropic', baseUrl: servers.anthropic!.url, model: 'claude-scripted', apiKey: 'k', toolMode: 'prompted' }, prompt(), true);
    const last = body('anthropic').messages.at(-1);
    expect(last.content[0].text).toContain('Tool result (snap)');
    // The last block carries the request's cache breakpoint (anthropic-cache.ts).
    expect(last.content).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: JPEG }, cache_control: { type: 'ephemeral' } });
    await send({ type: 'ollama', baseUrl: servers.ollama!.url, model: 'llava', toolMode: 'prompted' }, prompt(), true);
    expect(body('ollama').messages.at(-1)).toMatchObject({ role: 'user', images: [JPEG] });
    await send({ type: 'ollama', baseUrl: servers.ollama!.url, model: 'llava', toolMode: 'prompted', images: 'no' }, prompt(), true);
    expect(sent('ollama')).not.toContain(JPEG.slice(0, 40));
  });

  it('on Auto, a model that refuses images is asked again with the note, and from then on', async () => {
    const server = await startModelServer({
      script: (req) =>
        JSON.stringify(req.body).includes('image_url')
          ? { status: 400, errorBody: { error: { message: 'Invalid content type. image_url is only supported by certain models.', type: 'invalid_request_error', param: 'messages.[4].content.[1].type', code: null } } }
          : { text: 'Understood.' },
    });
    try {
      const config: ProviderConfig = { type: 'openai-compatible', baseUrl: server.url, model: 'text-only-by-surprise' };
      await send(config);
      expect(server.requests).toHaveLength(2);
      expect(JSON.stringify(server.requests[1]!.body)).toContain(leftOutNote(1));
      await send(config);
      expect(server.requests).toHaveLength(3);
      expect(JSON.stringify(server.requests[2]!.body)).not.toContain('image_url');
      // "Yes" is the user's word: the provider's refusal is shown, not worked around.
      await expect(send({ ...config, model: 'another', images: 'yes' })).rejects.toMatchObject({ info: { status: 400, detail: expect.stringMatching(/image_url is only supported/) } });
    } finally {
      await server.close();
    }
  });
});

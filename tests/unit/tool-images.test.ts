import { describe, expect, it } from 'vitest';
import { estimateTokens } from '@/core/agent/context-window';
import { toModelPrompt } from '@/core/agent/history';
import { createModelClient } from '@/core/agent/providers';
import { withoutToolImages } from '@/core/agent/tool-images';
import { withAttachments } from '@/core/registry/attachments';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import type { ToolResult } from '@/core/registry/types';
import type { StoredMessage } from '@/core/storage/db';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { startModelServer } from '../model-server/server.mjs';

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

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
    { ...base, id: 'a', role: 'assistant', text: '', status: 'done', toolCalls: [{ id: 'call-1', name: 'snap', input: {} }] },
    { ...base, id: 't', role: 'tool', toolCallId: 'call-1', toolName: 'snap', input: {}, status: 'done', result },
  ] as unknown as StoredMessage[];
}

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
    const part = (p: typeof plain) => (p.at(-1)!.content as Array<{ output: unknown }>)[0]!.output;
    expect(part(withImage)).toEqual({ type: 'content', value: [{ type: 'text', text: '{"a":1}' }, { type: 'image-data', data: PNG, mediaType: 'image/png' }] });
    expect(withoutToolImages(withImage)).toEqual(plain);
    // An image costs the estimate about what it costs a model, not its size in bytes.
    const big = toModelPrompt('sys', history({ ok: true, output: 'x', attachments: [{ type: 'image', mediaType: 'image/png', data: 'A'.repeat(3_000_000) }] }));
    expect(estimateTokens(big)).toBeLessThan(3000);
  });

  it('Anthropic (vision) gets the image in the tool result; an OpenAI-compatible server (no vision) never sees its bytes', async () => {
    const prompt = toModelPrompt('sys', history({ ok: true, output: 'A chart.', attachments: [{ type: 'image', mediaType: 'image/png', data: PNG }] }));
    const anthropic = await startAnthropicServer({ apiKey: 'k' });
    const openai = await startModelServer();
    try {
      const drain = async (client: ReturnType<typeof createModelClient>) => {
        for await (const event of client.stream({ prompt, tools: [], signal: new AbortController().signal })) void event;
      };
      await drain(createModelClient({ type: 'anthropic', baseUrl: anthropic.url, model: 'claude-scripted', apiKey: 'k' }));
      const sent = JSON.stringify(anthropic.requests[0]!.body.messages);
      expect(sent).toContain(`"type":"image","source":{"type":"base64","media_type":"image/png","data":"${PNG}"}`);
      await drain(createModelClient({ type: 'openai-compatible', baseUrl: openai.url, model: 'scripted-model', apiKey: '' }));
      const tool = openai.requests[0]!.messages.find((m: { role: string }) => m.role === 'tool');
      expect(tool.content).toBe('"A chart."');
      expect(JSON.stringify(openai.requests[0]!.body)).not.toContain(PNG.slice(0, 20));
    } finally {
      await anthropic.close();
      await openai.close();
    }
  });
});

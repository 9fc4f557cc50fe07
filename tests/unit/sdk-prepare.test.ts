import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it, vi } from 'vitest';
import { createSdkClient } from '@/core/agent/providers/sdk';

/** A model whose answer is one finish part; `doStream` counts its requests. */
function fakeModel(): LanguageModelV3 {
  const finish: LanguageModelV3StreamPart = {
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
  };
  return {
    specificationVersion: 'v3',
    provider: 'fake',
    modelId: 'fake-model',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: vi.fn(async () => ({ stream: new ReadableStream<LanguageModelV3StreamPart>({ start: (c) => (c.enqueue(finish), c.close()) }) })),
  } as unknown as LanguageModelV3;
}

describe('createSdkClient: prepare', () => {
  it('builds the model (imports its package) once, ahead of the first request, which then uses it; prepare sends nothing', async () => {
    const model = fakeModel();
    const build = vi.fn(async () => model);
    const client = createSdkClient({ type: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'fake-model' }, { protocol: 'fake', model: build });
    await client.prepare!();
    await client.prepare!();
    expect(build).toHaveBeenCalledTimes(1);
    expect(model.doStream).not.toHaveBeenCalled();
    const events = [];
    for await (const event of client.stream({ prompt: [], tools: [], signal: new AbortController().signal })) events.push(event);
    expect(build).toHaveBeenCalledTimes(1);
    expect(model.doStream).toHaveBeenCalledTimes(1);
    expect(events).toEqual([{ type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 1 } }]);
  });
});

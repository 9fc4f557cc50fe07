import type { ModelClient, ProviderConfig } from '../provider';
import { anthropic } from './anthropic';
import { cachePrompt, cacheTools } from './anthropic-cache';
import { assertKeyTransport, fetchJson, trimUrl, type ModelInfo } from './common';
import { defineProviderClient } from './client';
import { createSdkClient } from './sdk';

/** Anthropic refuses calls from a browser origin (CORS) unless the client says it knows the key is exposed to it. */
const BROWSER_HEADERS = { 'anthropic-dangerous-direct-browser-access': 'true' };

function baseUrl(config: ProviderConfig): string {
  return trimUrl(config.baseUrl || anthropic.defaultBaseUrl);
}

/** Anthropic Messages (`POST {base}/messages`, SSE events) through `@ai-sdk/anthropic`. */
export function createAnthropicClient(config: ProviderConfig): ModelClient {
  assertKeyTransport(baseUrl(config), config.apiKey);
  return createSdkClient(config, {
    protocol: 'Anthropic Messages',
    model: async (fetch) =>
      (await import('@ai-sdk/anthropic')).createAnthropic({ baseURL: baseUrl(config), apiKey: config.apiKey ?? '', headers: BROWSER_HEADERS, fetch }).messages(config.model),
    // Anthropic caches only what a request marks: tools, instructions and the conversation so far.
    cache: { prompt: cachePrompt, tools: cacheTools },
  });
}

interface AnthropicModelList {
  data?: Array<{ id?: string; display_name?: string; max_input_tokens?: number }>;
}

/** `GET {base}/models`. */
export async function listAnthropicModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  assertKeyTransport(baseUrl(config), config.apiKey);
  const body = await fetchJson<AnthropicModelList>(`${baseUrl(config)}/models?limit=1000`, {
    headers: { 'x-api-key': config.apiKey ?? '', 'anthropic-version': '2023-06-01', ...BROWSER_HEADERS },
    signal,
  });
  return (body.data ?? [])
    .filter((m): m is { id: string } & typeof m => typeof m.id === 'string')
    .map((m) => ({ id: m.id, name: m.display_name, contextLength: m.max_input_tokens }));
}

export default defineProviderClient({ createClient: createAnthropicClient, listModels: listAnthropicModels });

import { createAnthropic } from '@ai-sdk/anthropic';
import type { ModelClient, ProviderConfig } from '../provider';
import { assertKeyTransport, DEFAULT_BASE_URLS, fetchJson, requireKey, trimUrl, type ModelInfo } from './common';
import { createSdkClient } from './sdk';

/** Anthropic refuses calls from a browser origin (CORS) unless the client says it knows the key is exposed to it. */
const BROWSER_HEADERS = { 'anthropic-dangerous-direct-browser-access': 'true' };

function baseUrl(config: ProviderConfig): string {
  return trimUrl(config.baseUrl || DEFAULT_BASE_URLS.anthropic);
}

/** Anthropic Messages (`POST {base}/messages`, SSE events) through `@ai-sdk/anthropic`. */
export function createAnthropicClient(config: ProviderConfig): ModelClient {
  assertKeyTransport(baseUrl(config), config.apiKey);
  const apiKey = requireKey(config);
  return createSdkClient(config, {
    protocol: 'Anthropic Messages',
    imagesInToolResults: true,
    model: (fetch) => createAnthropic({ baseURL: baseUrl(config), apiKey, headers: BROWSER_HEADERS, fetch }).messages(config.model),
  });
}

interface AnthropicModelList {
  data?: Array<{ id?: string; display_name?: string; max_input_tokens?: number }>;
}

/** `GET {base}/models`. */
export async function listAnthropicModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  assertKeyTransport(baseUrl(config), config.apiKey);
  const body = await fetchJson<AnthropicModelList>(`${baseUrl(config)}/models?limit=1000`, {
    headers: { 'x-api-key': requireKey(config), 'anthropic-version': '2023-06-01', ...BROWSER_HEADERS },
    signal,
  });
  return (body.data ?? [])
    .filter((m): m is { id: string } & typeof m => typeof m.id === 'string')
    .map((m) => ({ id: m.id, name: m.display_name, contextLength: m.max_input_tokens }));
}

import type { SharedV3ProviderMetadata } from '@ai-sdk/provider';
import type { ModelClient, ProviderConfig } from '../provider';
import { assertKeyTransport, fetchJson, trimUrl, type ModelInfo } from './common';
import { defineProviderClient } from './client';
import { createSdkClient } from './sdk';

/** How a chunk that ends with the stream's last event ends: after it only the end of the body is left. */
export const LAST_EVENT = /(^|\n)data: ?\[DONE\]\r?\n(\r?\n)?$/;

/**
 * A client for any OpenAI-compatible Chat Completions endpoint (OpenAI, OpenRouter, DeepSeek,
 * LM Studio, vLLM, Ollama's `/v1`), through `@ai-sdk/openai-compatible`.
 */
export function createOpenAICompatibleClient(config: ProviderConfig): ModelClient {
  assertKeyTransport(config.baseUrl, config.apiKey);
  return createSdkClient(config, {
    protocol: 'OpenAI Chat Completions',
    lastEvent: LAST_EVENT,
    model: async (fetch) =>
      (await import('@ai-sdk/openai-compatible')).createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: trimUrl(config.baseUrl),
        apiKey: config.apiKey || undefined,
        includeUsage: true,
        fetch,
      }).chatModel(config.model),
    toolCallMetadata: replayableMetadata,
  });
}

/**
 * Gemini's OpenAI-compatible endpoint signs tool calls (`extra_content.google.thought_signature`):
 * the package reports the signature under its own name but sends back `google.thoughtSignature`.
 */
function replayableMetadata(metadata: SharedV3ProviderMetadata): SharedV3ProviderMetadata | undefined {
  const signature = metadata['openai-compatible']?.thoughtSignature;
  return typeof signature === 'string' ? { google: { thoughtSignature: signature } } : undefined;
}

interface OpenAIModelList {
  data?: Array<{ id?: string; name?: string; context_length?: number; max_model_len?: number; context_window?: number }>;
}

/** `GET {base}/models`; OpenRouter (`context_length`) and vLLM (`max_model_len`) also say the context window. */
export async function listOpenAICompatibleModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  assertKeyTransport(config.baseUrl, config.apiKey);
  const body = await fetchJson<OpenAIModelList>(`${trimUrl(config.baseUrl)}/models`, {
    headers: config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {},
    signal,
  });
  return (body.data ?? [])
    .filter((m): m is { id: string } & typeof m => typeof m.id === 'string')
    .map((m) => ({
      id: m.id,
      name: typeof m.name === 'string' && m.name !== m.id ? m.name : undefined,
      contextLength: m.context_length ?? m.max_model_len ?? m.context_window,
    }));
}

export default defineProviderClient({ createClient: createOpenAICompatibleClient, listModels: listOpenAICompatibleModels });

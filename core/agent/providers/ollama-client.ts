import type { ModelClient, ProviderConfig } from '../provider';
import { assertKeyTransport, fetchJson, trimUrl, type ModelInfo } from './common';
import { defineProviderClient } from './client';
import { ollama } from './ollama';
import { createSdkClient } from './sdk';

/**
 * Ollama's server root from what a user may type: `http://host:11434`, `…/api` or `…/v1` (the
 * OpenAI-compatible address, which people copy from other tools).
 */
export function ollamaRoot(baseUrl: string): string {
  return trimUrl(baseUrl || ollama.defaultBaseUrl).replace(/\/(api|v1)$/, '');
}

function authHeaders(config: ProviderConfig): Record<string, string> {
  // Ollama itself needs no key; one behind a proxy may want a bearer token.
  return config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {};
}

/** What `/api/show` says about a model: its context length, whether it can call tools and see images. */
export interface OllamaModelDetails {
  contextLength?: number;
  /** `capabilities` lists "tools"; undefined when the server is too old to say. */
  tools?: boolean;
  /** `capabilities` lists "vision"; undefined when the server is too old to say. */
  images?: boolean;
}

/** `POST /api/show {model}`: the context length is `model_info["<architecture>.context_length"]`. */
export async function showOllamaModel(config: ProviderConfig, signal?: AbortSignal): Promise<OllamaModelDetails> {
  const body = await fetchJson<{ model_info?: Record<string, unknown>; capabilities?: string[] }>(`${ollamaRoot(config.baseUrl)}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders(config) },
    body: JSON.stringify({ model: config.model }),
    signal,
  });
  const info = body.model_info ?? {};
  const key = Object.keys(info).find((k) => k.endsWith('.context_length'));
  const length = key ? Number(info[key]) : NaN;
  return {
    contextLength: Number.isFinite(length) && length > 0 ? length : undefined,
    tools: Array.isArray(body.capabilities) ? body.capabilities.includes('tools') : undefined,
    images: Array.isArray(body.capabilities) ? body.capabilities.includes('vision') : undefined,
  };
}

/**
 * Ollama's native `/api/chat` (NDJSON stream) through `ollama-ai-provider-v2`. Unlike its `/v1`
 * endpoint, which silently cuts prompts to a small default window, it takes `num_ctx`: the
 * profile's override, else the model's own context length from `/api/show`.
 */
export function createOllamaClient(config: ProviderConfig): ModelClient {
  assertKeyTransport(ollamaRoot(config.baseUrl), config.apiKey);
  let details: Promise<OllamaModelDetails> | undefined;
  const show = () => (details ??= showOllamaModel(config).catch((): OllamaModelDetails => ({})));
  return {
    ...createSdkClient(config, {
      protocol: 'Ollama',
      model: async (fetch) =>
        (await import('ollama-ai-provider-v2')).createOllama({ baseURL: `${ollamaRoot(config.baseUrl)}/api`, headers: authHeaders(config), fetch }).chat(config.model),
      // The package drops lines it cannot parse; a stream without its `"done": true` line was cut or garbled.
      incomplete: (finish) => finish.finishReason.raw === undefined && finish.finishReason.unified === 'other',
      async providerOptions() {
        const numCtx = config.numCtx ?? (await show()).contextLength;
        return numCtx ? { ollama: { options: { num_ctx: numCtx } } } : undefined;
      },
    }),
    async contextLength() {
      return config.numCtx ?? (await show()).contextLength;
    },
    async supportsTools() {
      return (await show()).tools;
    },
    async supportsImages() {
      return (await show()).images;
    },
  };
}

/** `GET /api/tags`: the models pulled on this Ollama. */
export async function listOllamaModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  assertKeyTransport(ollamaRoot(config.baseUrl), config.apiKey);
  const body = await fetchJson<{ models?: Array<{ name?: string; model?: string }> }>(`${ollamaRoot(config.baseUrl)}/api/tags`, {
    headers: authHeaders(config),
    signal,
  });
  return (body.models ?? [])
    .map((m) => m.name ?? m.model)
    .filter((id): id is string => typeof id === 'string')
    .map((id) => ({ id }));
}

export default defineProviderClient({ createClient: createOllamaClient, listModels: listOllamaModels });

import { english, said, type Said } from '@/core/i18n/catalog';
import { withContextWindow } from '../context-window';
import { ProviderError } from '../errors';
import { PROMPTED_NOTICE, withPromptedTools } from '../prompted-tools';
import type { ModelClient, ProviderCheck, ProviderConfig, ProviderType } from '../provider';
import { createAnthropicClient, listAnthropicModels } from './anthropic';
import { HttpError, PROVIDER_TYPE_NAMES, type ModelInfo } from './common';
import { createGoogleClient, listGoogleModels } from './google';
import { createOllamaClient, listOllamaModels } from './ollama';
import { createOpenAICompatibleClient, listOpenAICompatibleModels } from './openai-compatible';

export { DEFAULT_BASE_URLS, PROVIDER_LABELS, PROVIDER_TYPE_NAMES, type ModelInfo } from './common';
export { ollamaRoot } from './ollama';

export const PROVIDER_TYPES: readonly ProviderType[] = ['openai-compatible', 'anthropic', 'google', 'ollama'];

const CLIENTS: Record<ProviderType, (config: ProviderConfig) => ModelClient> = {
  'openai-compatible': createOpenAICompatibleClient,
  anthropic: createAnthropicClient,
  google: createGoogleClient,
  ollama: createOllamaClient,
};

const LISTS: Record<ProviderType, (config: ProviderConfig, signal?: AbortSignal) => Promise<ModelInfo[]>> = {
  'openai-compatible': listOpenAICompatibleModels,
  anthropic: listAnthropicModels,
  google: listGoogleModels,
  ollama: listOllamaModels,
};

/** The model client for a profile's provider type. Throws `ProviderError` when it cannot be built (no key, unsafe address). */
export function createModelClient(config: ProviderConfig): ModelClient {
  return CLIENTS[config.type ?? 'openai-compatible'](config);
}

/** Where the agent's client says something to the conversation: prompted tool calls began, the context was shortened. */
export type NoticeKind = 'prompted-tools' | 'context';

/**
 * The client an agent run uses: the provider's client, with prompted tool calls when the profile
 * says the model has no tool calling or the provider refuses tools, inside a context window
 * keeper. `notice` tells the conversation when either happens.
 */
export function createAgentClient(config: ProviderConfig, notice?: (kind: NoticeKind, words: Said, once?: boolean) => void): ModelClient {
  const tools = withPromptedTools(createModelClient(config), {
    prompted: config.toolMode === 'prompted',
    onSwitch: () => notice?.('prompted-tools', PROMPTED_NOTICE, true),
  });
  return withContextWindow(tools, { contextLength: config.contextLength, onCompact: (words, once) => notice?.('context', words, once) });
}

/** The models the provider lists (`/models`, `/api/tags`, Anthropic's and Gemini's lists), sorted by id. */
export async function listModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  const models = await LISTS[config.type ?? 'openai-compatible'](config, signal);
  return models.sort((a, b) => a.id.localeCompare(b.id));
}

/** Asks the provider for its models: tells whether it answers at all, in words for the user. */
export async function checkProvider(config: ProviderConfig, timeoutMs = 4000): Promise<ProviderCheck> {
  try {
    const models = await listModels(config, AbortSignal.timeout(timeoutMs));
    const words = said('errors.provider.connected', { baseUrl: config.baseUrl });
    return { ok: true, model: config.model, message: english(words), said: words, models: models.map((m) => m.id) };
  } catch (error) {
    const words = describeListError(error, config.type ?? 'openai-compatible', config.baseUrl);
    return { ok: false, model: config.model, message: english(words), said: words };
  }
}

/** A failed model list or check, in words. */
export function describeListError(error: unknown, type: ProviderType, baseUrl: string): Said {
  if (error instanceof ProviderError) return error.info.said ?? said('errors.provider.failed', { detail: error.info.message });
  const label = PROVIDER_TYPE_NAMES[type];
  if (error instanceof HttpError) {
    return error.status === 401 || error.status === 403 || /api[ _-]?key not valid/i.test(error.body)
      ? said('errors.provider.listKeyRefused', { label, baseUrl })
      : said('errors.provider.listStatus', { label, baseUrl, status: error.status });
  }
  return (error as Error)?.name === 'TimeoutError'
    ? said('errors.provider.listTimeout', { baseUrl })
    : said('errors.provider.listUnreachable', { baseUrl });
}

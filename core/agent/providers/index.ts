import { withContextWindow } from '../context-window';
import { ProviderError } from '../errors';
import { PROMPTED_NOTICE, withPromptedTools } from '../prompted-tools';
import type { ModelClient, ProviderCheck, ProviderConfig, ProviderType } from '../provider';
import { createAnthropicClient, listAnthropicModels } from './anthropic';
import { HttpError, PROVIDER_LABELS, type ModelInfo } from './common';
import { createGoogleClient, listGoogleModels } from './google';
import { createOllamaClient, listOllamaModels } from './ollama';
import { createOpenAICompatibleClient, listOpenAICompatibleModels } from './openai-compatible';

export { DEFAULT_BASE_URLS, isLoopback, PROVIDER_LABELS, type ModelInfo } from './common';
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
export function createAgentClient(config: ProviderConfig, notice?: (kind: NoticeKind, text: string, once?: boolean) => void): ModelClient {
  const tools = withPromptedTools(createModelClient(config), {
    prompted: config.toolMode === 'prompted',
    onSwitch: () => notice?.('prompted-tools', PROMPTED_NOTICE, true),
  });
  return withContextWindow(tools, { contextLength: config.contextLength, onCompact: (text, once) => notice?.('context', text, once) });
}

/** The models the provider lists (`/models`, `/api/tags`, Anthropic's and Gemini's lists), sorted by id. */
export async function listModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  const models = await LISTS[config.type ?? 'openai-compatible'](config, signal);
  return models.sort((a, b) => a.id.localeCompare(b.id));
}

/** Asks the provider for its models: tells whether it answers at all, in words for the user. */
export async function checkProvider(config: ProviderConfig, timeoutMs = 4000): Promise<ProviderCheck> {
  const label = PROVIDER_LABELS[config.type ?? 'openai-compatible'];
  try {
    const models = await listModels(config, AbortSignal.timeout(timeoutMs));
    return { ok: true, model: config.model, message: `Connected to ${config.baseUrl}.`, models: models.map((m) => m.id) };
  } catch (error) {
    return { ok: false, model: config.model, message: describeListError(error, label, config.baseUrl) };
  }
}

/** A failed model list or check, in words. */
export function describeListError(error: unknown, label: string, baseUrl: string): string {
  if (error instanceof ProviderError) return error.info.message;
  if (error instanceof HttpError) {
    const what =
      error.status === 401 || error.status === 403 || /api[ _-]?key not valid/i.test(error.body)
        ? 'refused the API key'
        : `answered HTTP ${error.status}`;
    return `The ${label} provider at ${baseUrl} ${what}.`;
  }
  const reason = (error as Error)?.name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
  return `No model provider answers at ${baseUrl}: it ${reason}.`;
}

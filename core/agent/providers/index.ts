import { english, said, type Said } from '@/core/i18n/catalog';
import { withContextWindow, type SummaryMemory } from '../context-window';
import { ProviderError, runError } from '../errors';
import { PROMPTED_NOTICE, withPromptedTools } from '../prompted-tools';
import type { ModelClient, ProviderCheck, ProviderConfig } from '../provider';
import { toolImagesFor, withToolImages } from '../tool-images';
import { HttpError, type ModelInfo } from './common';
import type { ProviderClient, ProviderDefinition, ToolImageMode } from './define';
import { providerOf, type ProviderType } from './list';

// The background's side of provider types: each listed type's client is `<type>-client.ts` in
// this folder (pages import `list.ts` only, so no SDK reaches them).

export type { ModelInfo } from './common';
export { PROVIDERS, PROVIDER_TYPES, providerOf, type ProviderType } from './list';

const CLIENTS = import.meta.glob<ProviderClient>('./*-client.ts', { eager: true, import: 'default' });

/** A provider type's facts and client; the key check every request and list starts with. */
function partsOf(config: ProviderConfig): { provider: ProviderDefinition<ProviderType>; client: ProviderClient } {
  const provider = providerOf(config.type);
  const client = CLIENTS[`./${provider.type}-client.ts`];
  if (!client) throw new Error(`The provider type ${provider.type} has no ${provider.type}-client.ts`);
  if (provider.needsKey && !config.apiKey) {
    throw new ProviderError(runError('auth', 'errors.provider.needsKey', { label: provider.label }));
  }
  return { provider, client };
}

/** The provider type's own client for a profile. */
function providerClient(config: ProviderConfig): ModelClient {
  return partsOf(config).client.createClient(config);
}

/** How tool images reach the profile's model (`tool-images.ts`), asked once, when first needed. */
function imageMode(model: ModelClient): () => Promise<ToolImageMode> {
  let mode: Promise<ToolImageMode> | undefined;
  return () => (mode ??= toolImagesFor(model.config, model));
}

/**
 * The model client for a profile's provider type, with the images of tool results where its
 * model reads them (or a note). Throws `ProviderError` when it cannot be built (no key, unsafe address).
 */
export function createModelClient(config: ProviderConfig): ModelClient {
  const model = providerClient(config);
  return withToolImages(model, imageMode(model));
}

/** Where the agent's client says something to the conversation: prompted tool calls began, the context was shortened. */
export type NoticeKind = 'prompted-tools' | 'context';

/**
 * The client an agent run uses: the provider's client, with prompted tool calls when the profile
 * or the provider type says the model has no tool calling or the provider refuses tools, inside
 * a context window keeper (the provider's figure, else the profile's, else the type's).
 * `notice` tells the conversation when either happens; `summaries` keeps the summary of a long
 * conversation with it, for its next runs.
 */
export function createAgentClient(config: ProviderConfig, notice?: (kind: NoticeKind, words: Said, once?: boolean) => void, summaries?: SummaryMemory): ModelClient {
  const { capabilities } = providerOf(config.type);
  const model = providerClient(config);
  // Images are shaped before prompted tool calls turn results into text (which keeps them as image parts).
  const tools = withPromptedTools(model, {
    prompted: config.toolMode === 'prompted' || !capabilities.tools,
    onSwitch: () => notice?.('prompted-tools', PROMPTED_NOTICE, true),
  });
  const images = imageMode(model);
  return withContextWindow(withToolImages(tools, images), {
    contextLength: config.contextLength ?? capabilities.contextWindow,
    onCompact: (words, once) => notice?.('context', words, once),
    imagesSent: async () => (await images()) !== 'none',
    summaries,
  });
}

/**
 * Evaluates the provider package a profile's first request will need (a stopped worker evaluates
 * none at start), so that request does not wait for it. Sends nothing; a profile that cannot be
 * built is left to that request to report.
 */
export async function prepareProvider(config: ProviderConfig): Promise<void> {
  try {
    await providerClient(config).prepare?.();
  } catch {
    // The run says what is wrong with the profile.
  }
}

/** The models the provider lists (`/models`, `/api/tags`, Anthropic's and Gemini's lists), sorted by id. */
export async function listModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  const models = await partsOf(config).client.listModels(config, signal);
  return models.sort((a, b) => a.id.localeCompare(b.id));
}

/** Asks the provider for its models (or its own check): tells whether it answers at all, in words for the user. */
export async function checkProvider(config: ProviderConfig, timeoutMs = 4000): Promise<ProviderCheck> {
  try {
    const own = partsOf(config).client.check;
    if (own) return await own(config, timeoutMs);
    const models = await listModels(config, AbortSignal.timeout(timeoutMs));
    const words = said('errors.provider.connected', { baseUrl: config.baseUrl });
    return { ok: true, model: config.model, message: english(words), said: words, models: models.map((m) => m.id) };
  } catch (error) {
    const words = describeListError(error, config.type, config.baseUrl);
    return { ok: false, model: config.model, message: english(words), said: words };
  }
}

/** A failed model list or check, in words. */
export function describeListError(error: unknown, type: ProviderType | undefined, baseUrl: string): Said {
  if (error instanceof ProviderError) return error.info.said ?? said('errors.provider.failed', { detail: error.info.message });
  const label = providerOf(type).label;
  if (error instanceof HttpError) {
    return error.status === 401 || error.status === 403 || /api[ _-]?key not valid/i.test(error.body)
      ? said('errors.provider.listKeyRefused', { label, baseUrl })
      : said('errors.provider.listStatus', { label, baseUrl, status: error.status });
  }
  return (error as Error)?.name === 'TimeoutError'
    ? said('errors.provider.listTimeout', { baseUrl })
    : said('errors.provider.listUnreachable', { baseUrl });
}

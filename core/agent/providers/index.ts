import { english, said, type Said } from '@/core/i18n/catalog';
import { ProviderError, runError } from '../errors';
import type { ModelClient, ProviderCheck, ProviderConfig } from '../provider';
import type { ProviderClient } from './client';
import { HttpError, type ModelInfo } from './common';
import type { ProviderDefinition } from './define';
import { providerOf, type ProviderType } from './list';

// The background's side of provider types: each listed type's client is `<type>-client.ts` in
// this folder (pages import `list.ts` only, so no SDK reaches them). The bottom of the agent: a
// profile's own client, its models and its check; what wraps a client for a run (tool images,
// prompted tools, the context window) is above, in `../clients.ts`.

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

/**
 * The provider type's own client for a profile, unwrapped (`../clients.ts` makes the one a run
 * uses). Throws `ProviderError` when it cannot be built (no key, unsafe address).
 */
export function createProviderClient(config: ProviderConfig): ModelClient {
  return partsOf(config).client.createClient(config);
}

/**
 * Evaluates the provider package a profile's first request will need (a stopped worker evaluates
 * none at start), so that request does not wait for it. Sends nothing; a profile that cannot be
 * built is left to that request to report.
 */
export async function prepareProvider(config: ProviderConfig): Promise<void> {
  try {
    await createProviderClient(config).prepare?.();
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

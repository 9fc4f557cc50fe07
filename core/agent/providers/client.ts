import type { ModelClient, ProviderCheck, ProviderConfig } from '../provider';
import type { ModelInfo } from './common';

// The client's side of a provider type (`define.ts` has its facts' side), apart so that the facts
// and their list import nothing of the clients (`../provider.ts` derives from that list).

/** The SDK side of a provider type: `export default defineProviderClient({ … })` in `<type>-client.ts`. */
export interface ProviderClient {
  /** Streams answers. Throws `ProviderError` when it cannot be built (unsafe address…). */
  createClient(config: ProviderConfig): ModelClient;
  /** The models the provider lists; throws `HttpError` or `ProviderError`. */
  listModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]>;
  /** The settings' Test connection; absent: the model list is asked for (`checkProvider`). */
  check?(config: ProviderConfig, timeoutMs: number): Promise<ProviderCheck>;
}

/** Declares a provider type's client (identity helper, for type checking). */
export function defineProviderClient(client: ProviderClient): ProviderClient {
  return client;
}

import type { ImageChoice, ProviderType, ToolMode } from '@/core/agent/provider';

// The shape of the provider settings, apart from their setting (`settings.ts`), so the migration
// that makes them (`migrations/provider-profiles.ts`) and the setting import it from below.

/** One saved model provider: its type, address, default model; its key is in `ProviderSecrets`. */
export interface ProviderProfile {
  id: string;
  name: string;
  type: ProviderType;
  baseUrl: string;
  /** The model new conversations use. */
  model: string;
  /** The model's context window in tokens, for providers that do not say it. */
  contextLength?: number;
  /** Ollama: the `num_ctx` to ask for instead of the model's own context length. */
  numCtx?: number;
  /** 'prompted': the model has no tool calling; tools are described in the prompt. */
  toolMode?: ToolMode;
  /** "Model sees images": 'yes', 'no'; absent: Auto (the provider type, the provider's word, known text-only names). */
  images?: ImageChoice;
  /** Prices in US dollars per million tokens, for the cost estimate (both or none). */
  inputPrice?: number;
  outputPrice?: number;
  /**
   * The profile's address came from a settings file and the user has not saved the profile in its
   * form since: its origin is not one the user configured (`ProviderService.origins`), so tools
   * reaching it on the local network ask. The form's Save clears it.
   */
  imported?: boolean;
}

/** The saved provider profiles and the one new conversations use (version 2 of `local:provider`). */
export interface ProviderSettings {
  activeId: string;
  profiles: ProviderProfile[];
}

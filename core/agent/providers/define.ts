import type { Said } from '@/core/i18n/catalog';

// A provider type is two parts in this folder: its facts (`<type>.ts`, `defineProvider` here: no
// SDK, the options page and the sidebar import them through `list.ts`) and its client
// (`<type>-client.ts`, `defineProviderClient` in `client.ts`: the SDK, imported by the background
// only, found by that file name in `index.ts`). The facts import nothing of the clients:
// `ProviderType` is derived from their list, and the clients' types (`../provider.ts`) use it.

/** A starting point in the settings form's preset select. */
export interface ProviderPreset {
  /** The select's value: unique across all provider types. */
  id: string;
  /** A product name ("OpenRouter"), or words the page translates. */
  name: string | Said;
  baseUrl: string;
  /** The model to fill in; empty: the form's model stays as it is. */
  model: string;
}

/** Where a provider type's requests carry the images of tool results. */
export type ToolImageMode = 'in-result' | 'as-user-message' | 'none';

/** What every model behind a provider type can do, as far as Sidequest needs to know. */
export interface ProviderCapabilities {
  /**
   * Native tool calling. False: every run describes the tools in the prompt (`prompted-tools.ts`).
   * True: native calls, switched to prompted ones when the provider refuses tools or the model says it has none.
   */
  tools: boolean;
  /**
   * How images that tools return (screenshots) reach the models of this type (`tool-images.ts`):
   * in the tool result, in a user message after the step's results (wire formats whose tool
   * messages hold text only), or not at all (a note says they were left out). A profile may still
   * say its model sees none ("Model sees images: No"), and on Auto a known text-only model gets none.
   */
  toolImages: ToolImageMode;
  /** Tokens of context to assume when neither the provider nor the profile says (`context-window.ts`). */
  contextWindow?: number;
}

/** The facts about one provider type that pages and the background share. */
export interface ProviderDefinition<T extends string = string> {
  /** Stored in profiles: never rename it. */
  type: T;
  /** What the type is called ("Anthropic"), as words the pages translate. */
  label: Said;
  /** Where it answers when the profile names no other address; the form's default. */
  defaultBaseUrl: string;
  /** The settings form's hint under Base URL. */
  baseUrlHint: Said;
  /** Requests are refused before they leave when the profile has no API key. */
  needsKey: boolean;
  /** The API key field's placeholder when no key is saved (Ollama: not needed). */
  keyHint?: Said;
  /** The profile may set Ollama's `num_ctx` (the form shows the field; validation keeps it). */
  numCtx?: boolean;
  /** The settings form's presets of this type, in the order the select lists them. */
  presets: readonly ProviderPreset[];
  capabilities: ProviderCapabilities;
}

/** Declares a provider type's facts (identity helper: keeps the `type` literal for `ProviderType`). */
export function defineProvider<const T extends string>(definition: ProviderDefinition<T>): ProviderDefinition<T> {
  return definition;
}

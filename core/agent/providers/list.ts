import { anthropic } from './anthropic';
import type { ProviderDefinition } from './define';
import { google } from './google';
import { ollama } from './ollama';
import { openaiCompatible } from './openai-compatible';

/**
 * Every provider type, in the order the settings form lists them: one line each. Its facts are
 * in `<type>.ts`, its client (the background's side) in `<type>-client.ts` beside it.
 */
export const PROVIDERS = [openaiCompatible, anthropic, google, ollama] as const;

/** The wire protocols Sidequest speaks (stored in each profile). */
export type ProviderType = (typeof PROVIDERS)[number]['type'];

/** The types, as the settings schema's enum wants them. */
export const PROVIDER_TYPES = PROVIDERS.map((p) => p.type) as [ProviderType, ...ProviderType[]];

/** A type's facts; a profile without a (known) type is OpenAI-compatible, as before profiles had types. */
export function providerOf(type: string | undefined): ProviderDefinition<ProviderType> {
  return PROVIDERS.find((p) => p.type === type) ?? openaiCompatible;
}

import { english, said, type Said } from '@/core/i18n/catalog';
import type { ProviderType } from '../provider';

// Facts about provider types that pages need too (no SDK imported here: the options page and the
// sidebar import this file).

/** What a provider type is called, as words the pages translate ("OpenAI-compatible"). */
export const PROVIDER_TYPE_NAMES: Record<ProviderType, Said> = {
  'openai-compatible': said('providerTypes.openaiCompatible'),
  anthropic: said('providerTypes.anthropic'),
  google: said('providerTypes.google'),
  ollama: said('providerTypes.ollama'),
};

/** What a provider type is called in English (logs, the model, English error messages). */
export const PROVIDER_LABELS = Object.fromEntries(
  Object.entries(PROVIDER_TYPE_NAMES).map(([type, words]) => [type, english(words)]),
) as Record<ProviderType, string>;

/** Where each provider type answers when the profile names no other address. */
export const DEFAULT_BASE_URLS: Record<ProviderType, string> = {
  'openai-compatible': 'http://localhost:11434/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
  ollama: 'http://localhost:11434',
};

import type { ProviderType } from '../provider';

// Facts about provider types that pages need too (no SDK imported here: the options page and the
// sidebar import this file).

/** What a provider type is called in the UI and in error messages. */
export const PROVIDER_LABELS: Record<ProviderType, string> = {
  'openai-compatible': 'OpenAI-compatible',
  anthropic: 'Anthropic',
  google: 'Google Gemini',
  ollama: 'Ollama',
};

/** Where each provider type answers when the profile names no other address. */
export const DEFAULT_BASE_URLS: Record<ProviderType, string> = {
  'openai-compatible': 'http://localhost:11434/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
  ollama: 'http://localhost:11434',
};

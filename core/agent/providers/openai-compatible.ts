import { said } from '@/core/i18n/catalog';
import { defineProvider } from './define';

/**
 * Any OpenAI-compatible Chat Completions endpoint (OpenAI, OpenRouter, DeepSeek, LM Studio, vLLM,
 * Ollama's `/v1`); client: `openai-compatible-client.ts`. Profiles saved before provider types
 * existed are of this type.
 */
export const openaiCompatible = defineProvider({
  type: 'openai-compatible',
  label: said('providerTypes.openaiCompatible'),
  defaultBaseUrl: 'http://localhost:11434/v1',
  baseUrlHint: said('provider.hintOpenai'),
  needsKey: false,
  presets: [
    { id: 'ollama-v1', name: said('provider.presetOllamaV1'), baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' },
    { id: 'lm-studio', name: said('provider.presetLmStudio'), baseUrl: 'http://localhost:1234/v1', model: '' },
    { id: 'openai', name: 'OpenAI', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
    { id: 'openrouter', name: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', model: 'openai/gpt-4o-mini' },
    { id: 'deepseek', name: 'DeepSeek', baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-chat' },
  ],
  // Chat Completions tool messages carry text only: images go in a user message (`image_url`).
  // The window is whatever the server lists (OpenRouter, vLLM), else the profile's.
  capabilities: { tools: true, toolImages: 'as-user-message' },
});

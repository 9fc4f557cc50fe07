import { said } from '@/core/i18n/catalog';
import { defineProvider } from './define';

const BASE_URL = 'http://localhost:11434';

/** Ollama's native API (`/api/chat`); client: `ollama-client.ts`. */
export const ollama = defineProvider({
  type: 'ollama',
  label: said('providerTypes.ollama'),
  defaultBaseUrl: BASE_URL,
  baseUrlHint: said('provider.hintOllama', { url: BASE_URL }),
  // Ollama itself needs no key; one behind a proxy may want a bearer token.
  needsKey: false,
  keyHint: said('provider.apiKeyOllama'),
  numCtx: true,
  presets: [{ id: 'ollama', name: said('provider.presetOllamaNative'), baseUrl: BASE_URL, model: 'llama3.2' }],
  // Whether the model calls tools and sees images, and its window, come from `/api/show` per
  // model; tool messages hold text only, so images go in a user message's `images`.
  capabilities: { tools: true, toolImages: 'as-user-message' },
});

import { said } from '@/core/i18n/catalog';
import { defineProvider } from './define';

const BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/** Google Gemini's API; client: `google-client.ts`. */
export const google = defineProvider({
  type: 'google',
  label: said('providerTypes.google'),
  defaultBaseUrl: BASE_URL,
  baseUrlHint: said('provider.hintGoogle', { url: BASE_URL }),
  needsKey: true,
  presets: [{ id: 'google', name: 'Google Gemini', baseUrl: BASE_URL, model: 'gemini-2.5-flash' }],
  // The window comes from the model's entry in the provider's list (`inputTokenLimit`).
  capabilities: { tools: true, toolImages: 'in-result' },
});

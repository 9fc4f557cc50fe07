import { said } from '@/core/i18n/catalog';
import { defineProvider } from './define';

const BASE_URL = 'https://api.anthropic.com/v1';

/** Anthropic's Messages API; client: `anthropic-client.ts`. */
export const anthropic = defineProvider({
  type: 'anthropic',
  label: said('providerTypes.anthropic'),
  defaultBaseUrl: BASE_URL,
  baseUrlHint: said('provider.hintAnthropic', { url: BASE_URL }),
  needsKey: true,
  presets: [{ id: 'anthropic', name: 'Anthropic', baseUrl: BASE_URL, model: 'claude-sonnet-4-5' }],
  // Every current Claude model reads at least 200k tokens; the API does not say per request.
  capabilities: { tools: true, toolImages: 'in-result', contextWindow: 200_000 },
});

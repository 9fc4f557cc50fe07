import type { ModelClient, ProviderConfig } from '../provider';
import { assertKeyTransport, fetchJson, trimUrl, type ModelInfo } from './common';
import { defineProviderClient } from './client';
import { google } from './google';
import { createSdkClient } from './sdk';

function baseUrl(config: ProviderConfig): string {
  return trimUrl(config.baseUrl || google.defaultBaseUrl);
}

/** Google Gemini (`POST {base}/models/{model}:streamGenerateContent?alt=sse`) through `@ai-sdk/google`. */
export function createGoogleClient(config: ProviderConfig): ModelClient {
  assertKeyTransport(baseUrl(config), config.apiKey);
  const apiKey = config.apiKey ?? '';
  let contextLength: Promise<number | undefined> | undefined;
  return {
    ...createSdkClient(config, {
      protocol: 'Google Gemini',
      model: async (fetch) => (await import('@ai-sdk/google')).createGoogleGenerativeAI({ baseURL: baseUrl(config), apiKey, fetch }).languageModel(config.model),
    }),
    contextLength() {
      contextLength ??= fetchJson<GeminiModel>(`${baseUrl(config)}/${modelPath(config.model)}`, { headers: { 'x-goog-api-key': apiKey } })
        .then((m) => m.inputTokenLimit)
        .catch(() => undefined);
      return contextLength;
    },
  };
}

interface GeminiModel {
  name?: string;
  displayName?: string;
  inputTokenLimit?: number;
  supportedGenerationMethods?: string[];
}

function modelPath(model: string): string {
  return model.includes('/') ? model : `models/${model}`;
}

/** `GET {base}/models`: the models that can generate content, without the `models/` prefix. */
export async function listGoogleModels(config: ProviderConfig, signal?: AbortSignal): Promise<ModelInfo[]> {
  assertKeyTransport(baseUrl(config), config.apiKey);
  const headers = { 'x-goog-api-key': config.apiKey ?? '' };
  const out: ModelInfo[] = [];
  let pageToken = '';
  for (let page = 0; page < 10; page++) {
    const body = await fetchJson<{ models?: GeminiModel[]; nextPageToken?: string }>(
      `${baseUrl(config)}/models?pageSize=1000${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
      { headers, signal },
    );
    for (const m of body.models ?? []) {
      if (typeof m.name !== 'string') continue;
      if (m.supportedGenerationMethods && !m.supportedGenerationMethods.includes('generateContent')) continue;
      out.push({ id: m.name.replace(/^models\//, ''), name: m.displayName, contextLength: m.inputTokenLimit });
    }
    if (!body.nextPageToken) break;
    pageToken = body.nextPageToken;
  }
  return out;
}

export default defineProviderClient({ createClient: createGoogleClient, listModels: listGoogleModels });

import { z } from 'zod/mini';
import type { SidequestDb } from './db';
import { defineSetting } from './setting';

/** Ollama's OpenAI-compatible endpoint: what answers on a machine where nothing was configured. */
export const DEFAULT_BASE_URL = 'http://localhost:11434/v1';
export const DEFAULT_MODEL = 'llama3.2';

/** The model provider's connection, without its key (see `ProviderSecrets`). */
export interface ProviderSettings {
  baseUrl: string;
  model: string;
}

export const providerSettings = defineSetting<ProviderSettings>('local:provider', {
  fallback: { baseUrl: DEFAULT_BASE_URL, model: DEFAULT_MODEL },
  schema: z.object({ baseUrl: z.string(), model: z.string() }),
  version: 1,
});

/** Plugin on/off choices by plugin id; a plugin not listed is on. */
export const pluginState = defineSetting<Record<string, boolean>>('local:plugins', {
  fallback: {},
  schema: z.record(z.string(), z.boolean()),
  version: 1,
});

export interface AgentSettings {
  /** Model requests one run may make before it stops and says so. */
  maxSteps: number;
}

export const agentSettings = defineSetting<AgentSettings>('local:agent', {
  fallback: { maxSteps: 25 },
  schema: z.object({ maxSteps: z.number().check(z.int(), z.minimum(1), z.maximum(1000)) }),
  version: 1,
});

/** What the sidebar shows; the popup writes it to open a conversation there. */
export const activeConversationId = defineSetting<string | null>('local:activeConversation', {
  fallback: null,
  schema: z.nullable(z.string()),
  version: 1,
});

/**
 * A request from the popup to show a conversation in the sidebar (null: a new one). The sidebar
 * watches this item, not `activeConversationId`, which it writes itself.
 */
export const sidebarRequest = defineSetting<{ conversationId: string | null; at: number } | null>('local:sidebarRequest', {
  fallback: null,
  schema: z.nullable(z.object({ conversationId: z.nullable(z.string()), at: z.number() })),
  version: 1,
});

/** Unsent text of the message box, by conversation, so a reload or a closed sidebar loses nothing. */
export const drafts = defineSetting<Record<string, string>>('local:drafts', {
  fallback: {},
  schema: z.record(z.string(), z.string()),
  version: 1,
});

/** Validates provider settings from the options page; returns the cleaned values or throws. */
export function validateProviderSettings(input: ProviderSettings): ProviderSettings {
  const baseUrl = input.baseUrl.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error('Base URL must be a full address, like http://localhost:11434/v1.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error('Base URL must start with http:// or https://.');
  }
  const model = input.model.trim();
  if (!model) throw new Error('Model must not be empty: give the model name the provider knows, like gpt-4o-mini or llama3.2.');
  return { baseUrl, model };
}

/** API keys live in the extension's IndexedDB, never in `storage.local` (content scripts can read that). */
export class ProviderSecrets {
  constructor(private readonly db: SidequestDb) {}

  async getApiKey(): Promise<string | undefined> {
    return (await this.db.secrets.get('provider.apiKey'))?.value || undefined;
  }

  /** Saves the key; an empty string removes it. */
  async setApiKey(value: string): Promise<void> {
    const key = value.trim();
    if (key) await this.db.secrets.put({ key: 'provider.apiKey', value: key });
    else await this.db.secrets.delete('provider.apiKey');
  }
}

import { z } from 'zod/mini';
import { LOCALES, type LanguageChoice } from '@/core/i18n/locales';
import type { ProviderType } from '@/core/agent/provider';
import { english, said, SaidError, type Said } from '@/core/i18n/catalog';
import { PROVIDER_TYPES, providerOf } from '@/core/agent/providers/list';
import type { SidequestDb } from './db';
import { MIGRATED_PROFILE_ID, migrateProviderSettingsV2 } from './migrations/provider-profiles';
import type { ProviderProfile, ProviderSettings } from './provider-settings';
import { defineSetting, lazy, type DbSetting } from './setting';

export type { ProviderProfile, ProviderSettings } from './provider-settings';

/** Ollama's OpenAI-compatible endpoint: what answers on a machine where nothing was configured. */
export const DEFAULT_BASE_URL = 'http://localhost:11434/v1';
export const DEFAULT_MODEL = 'llama3.2';

export const DEFAULT_PROFILE_ID = MIGRATED_PROFILE_ID;

/**
 * The shape of `local:provider` v2, checked when it is read. Made at the first check (`lazy`), as
 * every schema in this file: not at every start of the background, nor as a page loads.
 */
export const providerSettingsSchema = lazy(() =>
  z.object({
    activeId: z.string(),
    profiles: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          type: z.enum(PROVIDER_TYPES),
          baseUrl: z.string(),
          model: z.string(),
          contextLength: z.optional(z.number()),
          numCtx: z.optional(z.number()),
          toolMode: z.optional(z.enum(['native', 'prompted'])),
          images: z.optional(z.enum(['yes', 'no'])),
          inputPrice: z.optional(z.number().check(z.minimum(0))),
          outputPrice: z.optional(z.number().check(z.minimum(0))),
          imported: z.optional(z.boolean()),
        }),
      )
      .check(z.minLength(1)),
  }),
);

/** The shape of `local:conversationModels`. */
export const conversationModelsSchema = lazy(() => z.record(z.string(), z.object({ profileId: z.string(), model: z.string() })));

/**
 * The provider profiles, in the extension's IndexedDB beside their keys (`core/provider` in
 * `pluginData`; in the settings file as its `provider`). Versions up to 0.1 kept them as
 * `local:provider` in `storage.local`, which content scripts can write (a compromised page could
 * have pointed the agent, and its key, at another address): on first use that value is migrated,
 * moved here and removed there.
 */
export const providerSettings = defineSetting<ProviderSettings>('core/provider', {
  area: 'db',
  exported: true,
  fallback: migrateProviderSettingsV2({ baseUrl: DEFAULT_BASE_URL, model: DEFAULT_MODEL }),
  schema: providerSettingsSchema as never,
  legacy: { key: 'local:provider', version: 2, migrations: { 2: migrateProviderSettingsV2 } },
});

/** The provider profiles in this database. */
export function providerSettingsStore(db: SidequestDb): DbSetting<ProviderSettings> {
  return providerSettings.in(db);
}

/** The model picked in the sidebar for a conversation, by conversation id (none: the default profile's). */
export interface ModelChoice {
  profileId: string;
  model: string;
}

/** Not exported: conversations' ids mean nothing in another browser. */
export const conversationModels = defineSetting<Record<string, ModelChoice>>('local:conversationModels', {
  fallback: {},
  schema: conversationModelsSchema,
  version: 1,
});

export interface AgentSettings {
  /** Model requests one run may make before it stops and says so. */
  maxSteps: number;
  /** Tokens (input + output) one run may use before it stops with "budget reached"; absent: no budget. */
  runTokenBudget?: number;
}

/** The agent's limits (Settings → Agent); in the settings file as its `limits`. */
export const agentSettings = defineSetting<AgentSettings>('local:agent', {
  exported: true,
  label: 'limits.title',
  fallback: { maxSteps: 25 },
  schema: lazy(() =>
    z.object({
      maxSteps: z.number().check(z.int(), z.minimum(1), z.maximum(1000)),
      runTokenBudget: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(1_000_000_000))),
    }),
  ),
  version: 1,
});

/** What the sidebar shows; the popup writes it to open a conversation there. Not exported (nor below: the request, drafts). */
export const activeConversationId = defineSetting<string | null>('local:activeConversation', {
  fallback: null,
  schema: lazy(() => z.nullable(z.string())),
  version: 1,
});

/**
 * A request from the popup to show a conversation in the sidebar (null: a new one). The sidebar
 * watches this item, not `activeConversationId`, which it writes itself.
 */
export const sidebarRequest = defineSetting<{ conversationId: string | null; at: number } | null>('local:sidebarRequest', {
  fallback: null,
  schema: lazy(() => z.nullable(z.object({ conversationId: z.nullable(z.string()), at: z.number() }))),
  version: 1,
});

/** Unsent text of the message box, by conversation, so a reload or a closed sidebar loses nothing. */
export const drafts = defineSetting<Record<string, string>>('local:drafts', {
  fallback: {},
  schema: lazy(() => z.record(z.string(), z.string())),
  version: 1,
});

/** What the options page sends for a profile; `id` absent: a new profile. */
export type ProviderProfileInput = Omit<ProviderProfile, 'id' | 'name'> & { id?: string; name?: string };

/** Validates a profile from the options page; returns the cleaned values or throws a readable error. */
export function validateProviderProfile(input: ProviderProfileInput): Omit<ProviderProfile, 'id'> & { id?: string } {
  const type: ProviderType = providerOf(input.type).type;
  const { baseUrl, model } = validateProviderSettings({ baseUrl: input.baseUrl, model: input.model });
  const count = (value: unknown, what: Said) => {
    if (value === undefined || value === null || value === '') return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 256 || n > 10_000_000) throw new SaidError('errors.settings.tokenCount', { what, min: '256', max: '10,000,000' });
    return n;
  };
  return {
    id: input.id,
    name: input.name?.trim() || defaultProfileName(type, baseUrl),
    type,
    baseUrl,
    model,
    contextLength: count(input.contextLength, said('provider.contextWindow')),
    numCtx: providerOf(type).numCtx ? count(input.numCtx, said('provider.numCtx')) : undefined,
    toolMode: input.toolMode === 'prompted' ? 'prompted' : undefined,
    images: input.images === 'yes' || input.images === 'no' ? input.images : undefined,
    ...prices(input.inputPrice, input.outputPrice),
  };
}

/** Both prices (US dollars per million tokens) or none. */
function prices(input: unknown, output: unknown): { inputPrice?: number; outputPrice?: number } {
  const blank = (v: unknown) => v === undefined || v === null || v === '';
  if (blank(input) && blank(output)) return {};
  const a = Number(input);
  const b = Number(output);
  if (blank(input) || blank(output) || !Number.isFinite(a) || !Number.isFinite(b) || a < 0 || b < 0 || a > 10_000 || b > 10_000) {
    throw new SaidError('errors.settings.prices');
  }
  return { inputPrice: a, outputPrice: b };
}

function defaultProfileName(type: ProviderType, baseUrl: string): string {
  const label = english(providerOf(type).label);
  try {
    return `${label} (${new URL(baseUrl).host})`;
  } catch {
    return label;
  }
}

/** Validates a base URL and model name; returns the cleaned values or throws. */
export function validateProviderSettings(input: { baseUrl: string; model: string }): { baseUrl: string; model: string } {
  const baseUrl = input.baseUrl.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SaidError('errors.settings.baseUrlInvalid', { example: 'http://localhost:11434/v1' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SaidError('errors.settings.baseUrlScheme');
  }
  const model = input.model.trim();
  if (!model) throw new SaidError('errors.settings.modelEmpty', { examples: 'gpt-4o-mini, llama3.2' });
  return { baseUrl, model };
}

/** API keys live in the extension's IndexedDB, never in `storage.local` (content scripts can read that). */
export class ProviderSecrets {
  constructor(readonly db: SidequestDb) {}

  /** Where a profile's key is kept in `secrets` (the migrated profile's key keeps its version 1 name). */
  static entry(profileId: string): string {
    return profileId === DEFAULT_PROFILE_ID ? 'provider.apiKey' : `provider.apiKey.${profileId}`;
  }

  async getApiKey(profileId = DEFAULT_PROFILE_ID): Promise<string | undefined> {
    return (await this.db.secrets.get(ProviderSecrets.entry(profileId)))?.value || undefined;
  }

  /** Saves the key; an empty string removes it. */
  async setApiKey(value: string, profileId = DEFAULT_PROFILE_ID): Promise<void> {
    const key = value.trim();
    if (key) await this.db.secrets.put({ key: ProviderSecrets.entry(profileId), value: key });
    else await this.db.secrets.delete(ProviderSecrets.entry(profileId));
  }
}

/**
 * The interface language: `auto` (the browser's, the default) or one of `LOCALES`. Every open page
 * watches it, so a change applies at once; the background names it in the system prompt.
 */
export const uiLanguage = defineSetting<LanguageChoice>('local:uiLanguage', {
  exported: true,
  label: 'general.language',
  fallback: 'auto',
  schema: lazy(() => z.enum(['auto', ...LOCALES])),
  version: 1,
});

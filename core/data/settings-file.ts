import { z } from 'zod';
import type { SidequestDb } from '@/core/storage/db';
import { agentSettings, providerSettingsSchema, providerSettingsStore, type AgentSettings, type ProviderSettings } from '@/core/storage/settings';
import { describeIssues, ImportError, MAX_IMPORT_BYTES } from './archive';

z.config({ jitless: true });

/**
 * The settings file (Settings → Data → Settings file): provider profiles, agent settings, and
 * every plugin's stored values (`pluginData`: on/off switches, search settings, site choices).
 * API keys only when the user ticks the box. Not in it: conversations (the archive), the
 * approval gate's remembered permissions, test-only entries.
 */
export const SETTINGS_FORMAT = 'sidequest-settings';
export const SETTINGS_VERSION = 1;

export interface SettingsFile {
  format: typeof SETTINGS_FORMAT;
  version: typeof SETTINGS_VERSION;
  exportedAt: string;
  provider: ProviderSettings;
  /** The agent's limits (step limit, token budget). */
  limits: AgentSettings;
  pluginData: Array<{ key: string; value: unknown }>;
  /** API keys, by their storage key; only when asked for. */
  keys?: Array<{ key: string; value: string }>;
}

/** Where the provider profiles are kept (`providerSettingsStore`): exported as `provider`, checked. */
export const PROVIDER_ROW = 'core/provider';

/** Test-only entries (the web plugin's local allow-list) never leave or enter through a file. */
const isTestOnly = (key: string) => /(^|[./])test\./.test(key);

const fileSchema = z.object({
  format: z.literal(SETTINGS_FORMAT),
  version: z.literal(SETTINGS_VERSION),
  exportedAt: z.string().max(100),
  provider: z.unknown(),
  limits: z.unknown(),
  pluginData: z.array(z.object({ key: z.string().min(1).max(200), value: z.unknown() })).max(1000),
  keys: z.array(z.object({ key: z.string().min(1).max(200), value: z.string().min(1).max(10_000) })).max(200).optional(),
});

export async function exportSettingsFile(db: SidequestDb, includeKeys: boolean, now = new Date()): Promise<SettingsFile> {
  const file: SettingsFile = {
    format: SETTINGS_FORMAT,
    version: SETTINGS_VERSION,
    exportedAt: now.toISOString(),
    provider: await providerSettingsStore(db).getValue(),
    limits: await agentSettings.getValue(),
    // The provider profiles are in `provider` (checked on import), not twice.
    pluginData: (await db.pluginData.toArray()).filter((row) => !isTestOnly(row.key) && row.key !== PROVIDER_ROW),
  };
  if (includeKeys) file.keys = (await db.secrets.toArray()).filter((row) => !isTestOnly(row.key));
  return file;
}

/** A settings file's content, checked whole: what an import would write (before the key rule). */
export interface ParsedSettingsFile {
  provider: ProviderSettings;
  limits: AgentSettings;
  /** Plugin values by their `pluginData` key (a key given twice: the last one), test-only and provider rows left out. */
  rows: Map<string, unknown>;
  /** Secrets the file carries, by their `secrets` key (test-only ones left out). */
  keys: Map<string, string>;
}

/**
 * Checks a settings file's text whole: size, JSON, format, version, every field, the provider
 * profiles and limits against their settings' schemas. Throws `ImportError` naming what is wrong.
 * Writes nothing (`core/data/settings-import.ts` previews and applies).
 */
export function parseSettingsFile(text: string): ParsedSettingsFile {
  if (text.length > MAX_IMPORT_BYTES) throw new ImportError('errors.import.settingsTooLarge');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ImportError('errors.import.notJson', { detail: (error as Error).message });
  }
  const head = (raw ?? {}) as { format?: unknown; version?: unknown };
  if (head.format !== SETTINGS_FORMAT) throw new ImportError('errors.import.notSettings', { expected: SETTINGS_FORMAT });
  if (head.version !== SETTINGS_VERSION) throw new ImportError('errors.import.settingsVersion', { version: String(JSON.stringify(head.version)), expected: SETTINGS_VERSION });
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw new ImportError('errors.import.settingsInvalid', { issues: describeIssues(parsed.error.issues) });
  const file = parsed.data;
  const provider = providerSettingsSchema.safeParse(file.provider);
  if (!provider.success) throw new ImportError('errors.import.settingsInvalid', { issues: describeIssues(provider.error.issues.map((i) => ({ ...i, path: ['provider', ...i.path] }))) });
  const limits = agentSettings.schema.safeParse(file.limits);
  if (!limits.success) throw new ImportError('errors.import.settingsInvalid', { issues: describeIssues(limits.error.issues.map((i) => ({ ...i, path: ['limits', ...i.path] }))) });
  const rows = new Map<string, unknown>();
  for (const row of file.pluginData) if (!isTestOnly(row.key) && row.key !== PROVIDER_ROW) rows.set(row.key, row.value);
  const keys = new Map<string, string>();
  for (const row of file.keys ?? []) if (!isTestOnly(row.key)) keys.set(row.key, row.value);
  return { provider: provider.data as ProviderSettings, limits: limits.data as AgentSettings, rows, keys };
}

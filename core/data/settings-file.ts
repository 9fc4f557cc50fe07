import { z } from 'zod';
import { said, saidCount, type Said } from '@/core/i18n/catalog';
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
const PROVIDER_ROW = 'core/provider';

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

/**
 * Checks a settings file's text whole, then applies it: provider profiles, agent settings, plugin
 * values, and keys if the file has them. Nothing is applied when anything is wrong. Returns the
 * names of what was applied.
 */
export async function importSettingsFile(db: SidequestDb, text: string): Promise<Said[]> {
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
  const rows = file.pluginData.filter((row) => !isTestOnly(row.key) && row.key !== PROVIDER_ROW);
  const keys = (file.keys ?? []).filter((row) => !isTestOnly(row.key));
  await db.transaction('rw', db.pluginData, db.secrets, async () => {
    await db.pluginData.bulkPut(rows);
    if (keys.length) await db.secrets.bulkPut(keys);
  });
  await providerSettingsStore(db).setValue(provider.data as ProviderSettings);
  await agentSettings.setValue(limits.data as AgentSettings);
  return [
    said('dataSettings.applied.profiles'),
    said('dataSettings.applied.limits'),
    saidCount('dataSettings.applied.pluginValues', rows.length),
    ...(keys.length ? [saidCount('dataSettings.applied.keys', keys.length)] : []),
  ];
}

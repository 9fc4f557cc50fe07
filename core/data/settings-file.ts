import { z } from 'zod';
import type { SidequestDb } from '@/core/storage/db';
import { findSetting, lazy, registeredSettings, type Setting } from '@/core/storage/setting';
import { agentSettings, providerSettings, providerSettingsSchema, providerSettingsStore, type AgentSettings, type ProviderSettings } from '@/core/storage/settings';
import { describeIssues, ImportError, MAX_IMPORT_BYTES } from './archive';

z.config({ jitless: true });

/**
 * The settings file (Settings → Data → Settings file): every setting defined with `exported`
 * (`core/storage/setting.ts`'s registry), and the rows of `pluginData` no setting of this build
 * claims (a plugin's values come through as they are). API keys only when the user ticks the box.
 * Not in it: conversations (the archive), the approval gate's remembered permissions, settings
 * not exported (drafts, the open conversation, per-conversation models), test-only entries.
 *
 * Where a setting goes in the file (version 1's layout, which older versions read):
 * - the provider profiles (`core/provider`) in `provider`, the agent's limits (`local:agent`) in `limits`;
 * - every other exported `storage.local` setting in `preferences`, by key (older versions ignore it);
 * - every other exported database setting in `pluginData`, by key.
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
  /** The other exported `storage.local` settings, by key (`uiLanguage`). Absent from older files. */
  preferences?: Record<string, unknown>;
  pluginData: Array<{ key: string; value: unknown }>;
  /** API keys, by their storage key; only when asked for. */
  keys?: Array<{ key: string; value: string }>;
}

/** Where the provider profiles are kept (`providerSettings`): exported as `provider`, checked. */
export const PROVIDER_ROW = providerSettings.key;

/** Test-only entries (the web plugin's local allow-list) never leave or enter through a file. */
const isTestOnly = (key: string) => /(^|[./])test\./.test(key);

/** An exported `storage.local` setting that goes into `preferences` (the limits have their own field). */
export function preferenceSetting(key: string): Setting<unknown> | undefined {
  const setting = findSetting('local', key);
  return setting?.area === 'local' && setting.exported && setting !== agentSettings && !isTestOnly(key) ? setting : undefined;
}

/** Whether a `pluginData` row goes into a file, and may come from one: an exported setting's, or one no setting claims. */
function fileRow(key: string): boolean {
  if (isTestOnly(key) || key === PROVIDER_ROW) return false;
  return findSetting('db', key)?.exported ?? true;
}

/** Made at the first file read (`lazy`): not at every start of the background. */
const fileSchema = lazy(() =>
  z.object({
    format: z.literal(SETTINGS_FORMAT),
    version: z.literal(SETTINGS_VERSION),
    exportedAt: z.string().max(100),
    provider: z.unknown(),
    limits: z.unknown(),
    preferences: z.record(z.string().max(200), z.unknown()).optional(),
    pluginData: z.array(z.object({ key: z.string().min(1).max(200), value: z.unknown() })).max(1000),
    keys: z.array(z.object({ key: z.string().min(1).max(200), value: z.string().min(1).max(10_000) })).max(200).optional(),
  }),
);

export async function exportSettingsFile(db: SidequestDb, includeKeys: boolean, now = new Date()): Promise<SettingsFile> {
  const preferences: Record<string, unknown> = {};
  for (const setting of registeredSettings()) {
    if (setting.area === 'local' && preferenceSetting(setting.key)) preferences[setting.key] = await setting.getValue();
  }
  const file: SettingsFile = {
    format: SETTINGS_FORMAT,
    version: SETTINGS_VERSION,
    exportedAt: now.toISOString(),
    provider: await providerSettingsStore(db).getValue(),
    limits: await agentSettings.getValue(),
    preferences,
    pluginData: (await db.pluginData.toArray()).filter((row) => fileRow(row.key)),
  };
  if (includeKeys) file.keys = (await db.secrets.toArray()).filter((row) => !isTestOnly(row.key));
  return file;
}

/** A settings file's content, checked whole: what an import would write (before the key rule). */
export interface ParsedSettingsFile {
  provider: ProviderSettings;
  limits: AgentSettings;
  /** Exported `storage.local` settings by key, checked against their schemas (keys this build does not export left out). */
  preferences: Map<string, unknown>;
  /** Plugin values by their `pluginData` key (a key given twice: the last one), test-only, provider and not exported rows left out. */
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
  const parsed = fileSchema().safeParse(raw);
  if (!parsed.success) throw new ImportError('errors.import.settingsInvalid', { issues: describeIssues(parsed.error.issues) });
  const file = parsed.data;
  const provider = fitting(['provider'], providerSettingsSchema() as never as z.core.$ZodType<ProviderSettings>, file.provider);
  const limits = fitting(['limits'], agentSettings.schema, file.limits);
  const preferences = new Map<string, unknown>();
  // Read from the parsed JSON itself: own keys only, so a `__proto__` key is only a name here.
  for (const [key, value] of Object.entries((raw as { preferences?: Record<string, unknown> }).preferences ?? {})) {
    const setting = preferenceSetting(key);
    if (setting) preferences.set(key, fitting(['preferences', key], setting.schema, value));
  }
  const rows = new Map<string, unknown>();
  for (const row of file.pluginData) if (fileRow(row.key)) rows.set(row.key, row.value);
  const keys = new Map<string, string>();
  for (const row of file.keys ?? []) if (!isTestOnly(row.key)) keys.set(row.key, row.value);
  return { provider, limits, preferences, rows, keys };
}

/** A value of the file checked against its setting's schema; else the file is refused, naming the place. */
function fitting<T>(place: string[], schema: z.core.$ZodType<T>, value: unknown): T {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) throw new ImportError('errors.import.settingsInvalid', { issues: describeIssues(parsed.error.issues.map((i) => ({ ...i, path: [...place, ...i.path] }))) });
  return parsed.data;
}

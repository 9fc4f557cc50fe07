import { z } from 'zod';
import { said, saidCount, type MessageKey, type Said } from '@/core/i18n/catalog';
import { isLocalNetworkUrl } from '@/core/net/local-network';
import { keepsSecret } from '@/core/net/key-origin';
import type { SidequestDb } from '@/core/storage/db';
import { agentSettings, providerSettingsSchema, providerSettingsStore, ProviderSecrets, type AgentSettings, type ProviderProfile, type ProviderSettings } from '@/core/storage/settings';
import { defineSetting, findSetting, lazy, schemaGetter, type SchemaSource } from '@/core/storage/setting';
import { z as zm } from 'zod/mini';
import { describeIssues, ImportError } from './archive';
import { parseSettingsFile, preferenceSetting, PROVIDER_ROW } from './settings-file';

z.config({ jitless: true });

/**
 * Importing a settings file, in two steps: a preview of everything it would change (nothing
 * written), then, on the user's Import, exactly that. Two rules hold on the way:
 * - a thing kept at an address whose secrets belong to it (a provider profile, an MCP server)
 *   that the file moves to another origin, adds, or brings back loses the secrets saved under its
 *   id, unless the file carries its own (`keepsSecret`, the provider form's rule); things the file
 *   removes lose theirs;
 * - such a thing whose origin the file sets is marked `imported`: its address is not one the user
 *   configured (no exemption from the local-network ask) until the user saves it in its form.
 */

/** What happens to the secrets saved for a thing at an address. */
export type KeyFate = 'keeps' | 'loses' | 'fromFile';

/** One line of the preview. */
export interface ImportRow {
  change: 'added' | 'changed' | 'removed';
  /** What it is: a profile's or server's name, a site, a plugin, a stored value's key (shown as text). */
  name: string;
  /** What it becomes, in words. */
  detail?: Said;
  /** Its address; `before`: the one it had, when the file changes it. */
  address?: string;
  before?: string;
  /** The address is on the user's own network (loopback, private, link-local, single-label name). */
  local?: boolean;
  /** Its saved secrets: kept, dropped, or replaced by the file's. Absent: it has none either way. */
  key?: KeyFate;
}

export interface ImportSection {
  /** Stable id: `profiles`, `limits`, `preferences`, `switches`, `keys`, `other`, or `<plugin>/<item>`. */
  id: string;
  title: Said;
  rows: ImportRow[];
}

/** What an import would change: only sections with rows; none means the file changes nothing. */
export interface SettingsImportPreview {
  sections: ImportSection[];
}

/** A thing kept at an address whose secrets belong to that address. */
export interface AddressedEntry {
  id: string;
  name: string;
  url: string;
  /** Marked as come from a settings file (not confirmed by the user since). */
  imported?: boolean;
  /** Its secrets' names in the owner's storage (`storage.secret(name)`). */
  secrets: string[];
  /** The entry as stored, compared to tell a change (its `imported` mark aside). */
  value: unknown;
}

/** How a plugin's stored item comes through a settings file. */
export interface SettingsFileItem<T = any> {
  /** A file's value must fit it, or the whole file is refused. May be made lazily (`SchemaSource`). */
  schema: SchemaSource<T>;
  /** The preview's section title. */
  title: Said;
  /** Its entries kept at an address: the key rule and the `imported` mark apply to them. */
  addressed?: {
    entries(value: T): AddressedEntry[];
    /** The value with exactly these entries marked `imported` (the others unmarked). */
    mark(value: T, imported: ReadonlySet<string>): T;
    /** Words for one entry's secrets in the list of keys a file carries (`{name}`: the entry's). */
    secretWords: MessageKey;
  };
  /** Rows for what else changes: the file's value against the one stored now (undefined: none). */
  rows?(file: T, now: T | undefined): ImportRow[];
}

/** What a plugin declares about its stored values for settings files (`BuiltinPlugin.settingsFile`). */
export interface PluginSettingsFile {
  /** By item name (`ctx.storage.item(name)`, kept as `<plugin>/<name>`). Items not listed come through as they are. */
  items: Record<string, SettingsFileItem>;
  /** Words for one of its secrets (`ctx.storage.secret(name)`) in the list of keys a file carries. */
  secret?(name: string): Said | undefined;
}

/** A plugin as the import sees it. */
export interface SettingsFilePlugin {
  id: string;
  settingsFile?: PluginSettingsFile;
}

export interface PlanOptions {
  plugins: SettingsFilePlugin[];
  /** A plugin's name for the switches' rows (built-in plugins and the registry's others, `mcp:<id>`). */
  pluginName?(id: string): string | undefined;
}

/** Everything an import writes, and the preview the user saw of it. */
export interface SettingsImportPlan {
  preview: SettingsImportPreview;
  provider: ProviderSettings;
  limits: AgentSettings;
  /** Exported `storage.local` settings to set, by key. */
  preferences: Array<{ key: string; value: unknown }>;
  /** `pluginData` rows to put (provider profiles apart). */
  rows: Array<{ key: string; value: unknown }>;
  putSecrets: Array<{ key: string; value: string }>;
  deleteSecrets: string[];
  /** What the status line says after. */
  applied: Said[];
}

const SWITCHES_ROW = 'core/pluginSwitches';
const switchesSchema = lazy(() => z.record(z.string(), z.boolean()));

/** The core's provider profiles, described like a plugin's addressed item. */
const profilesItem: SettingsFileItem<ProviderSettings> = {
  schema: providerSettingsSchema as unknown as () => z.core.$ZodType<ProviderSettings>,
  title: said('dataSettings.preview.profiles'),
  addressed: {
    entries: (settings) =>
      settings.profiles.map((p) => ({ id: p.id, name: p.name, url: p.baseUrl, imported: p.imported, secrets: [ProviderSecrets.entry(p.id)], value: p })),
    mark: (settings, imported) => ({
      ...settings,
      profiles: settings.profiles.map(({ imported: _mark, ...p }): ProviderProfile => (imported.has(p.id) ? { ...p, imported: true } : p)),
    }),
    secretWords: 'dataSettings.preview.apiKeyOf',
  },
};

/**
 * Reads a settings file against what is stored now and works out everything an import would
 * write, with its preview. Writes nothing. Throws `ImportError` when the file is not valid (a
 * plugin value that does not fit its schema, an id given twice).
 */
export async function planSettingsImport(db: SidequestDb, text: string, options: PlanOptions): Promise<SettingsImportPlan> {
  const file = parseSettingsFile(text);
  const secretsNow = new Set((await db.secrets.toCollection().primaryKeys()) as string[]);
  const deleteSecrets = new Set<string>();
  const sections: ImportSection[] = [];
  /** Words for the file's keys, by secret key (from the addressed entries and the plugins). */
  const keyWords = new Map<string, Said>();

  /** The key rule and the `imported` marks over one addressed item; returns the value to write. */
  function addressed<T>(id: string, item: SettingsFileItem<T>, fileValue: T, nowValue: T | undefined, prefix: string): T {
    const spec = item.addressed!;
    const entries = spec.entries(fileValue);
    const before = new Map((nowValue === undefined ? [] : spec.entries(nowValue)).map((e) => [e.id, e]));
    const seen = new Set<string>();
    const imported = new Set<string>();
    const rows: ImportRow[] = [];
    for (const entry of entries) {
      if (seen.has(entry.id)) throw new ImportError('errors.import.duplicateId', { where: id, id: entry.id.slice(0, 100) });
      seen.add(entry.id);
      const was = before.get(entry.id);
      const same = Boolean(was) && keepsSecret(was!.url, entry.url);
      // The address counts as the user's only if it is the one they had (and had confirmed).
      if (!same || was!.imported) imported.add(entry.id);
      let fate: KeyFate | undefined;
      for (const name of entry.secrets) {
        const key = prefix + name;
        keyWords.set(key, said(spec.secretWords, { name: entry.name }));
        if (file.keys.has(key)) fate = 'fromFile';
        else if (!secretsNow.has(key)) continue;
        else if (same) fate ??= 'keeps';
        else {
          deleteSecrets.add(key);
          if (fate !== 'fromFile') fate = 'loses';
        }
      }
      const changed = !was || stripMark(was.value) !== stripMark(entry.value);
      if (!changed && fate !== 'fromFile') continue;
      rows.push({
        change: was ? 'changed' : 'added',
        name: entry.name,
        address: entry.url,
        ...(was && was.url !== entry.url ? { before: was.url } : {}),
        local: isLocalNetworkUrl(entry.url),
        ...(fate ? { key: fate } : {}),
      });
    }
    for (const was of before.values()) {
      if (seen.has(was.id)) continue;
      let had = false;
      for (const name of was.secrets) {
        const key = prefix + name;
        if (file.keys.has(key)) continue;
        if (secretsNow.has(key)) had = true;
        deleteSecrets.add(key);
      }
      rows.push({ change: 'removed', name: was.name, address: was.url, local: isLocalNetworkUrl(was.url), ...(had ? { key: 'loses' as const } : {}) });
    }
    if (rows.length) sections.push({ id, title: item.title, rows });
    return spec.mark(fileValue, imported);
  }

  // Provider profiles: the file's `provider` against the stored ones.
  const provider = addressed('profiles', profilesItem, file.provider, await providerSettingsStore(db).getValue(), '');

  // Limits.
  const limitsNow = await agentSettings.getValue();
  const limitRows: ImportRow[] = [];
  if (limitsNow.maxSteps !== file.limits.maxSteps) {
    limitRows.push({ change: 'changed', name: '', detail: said('dataSettings.preview.maxSteps', { before: limitsNow.maxSteps, after: file.limits.maxSteps }) });
  }
  if (limitsNow.runTokenBudget !== file.limits.runTokenBudget) {
    const budget = (n: number | undefined) => (n === undefined ? said('dataSettings.preview.noBudget') : String(n));
    limitRows.push({ change: 'changed', name: '', detail: said('dataSettings.preview.budget', { before: budget(limitsNow.runTokenBudget), after: budget(file.limits.runTokenBudget) }) });
  }
  if (limitRows.length) sections.push({ id: 'limits', title: said('dataSettings.preview.limits'), rows: limitRows });

  // Preferences (the other exported settings of storage.local), each by its name.
  const preferenceRows: ImportRow[] = [];
  for (const [key, value] of file.preferences) {
    const setting = preferenceSetting(key)!;
    const now = await setting.getValue();
    if (JSON.stringify(now) === JSON.stringify(value)) continue;
    const name = setting.label ? said(setting.label) : key;
    preferenceRows.push({ change: 'changed', name: '', detail: said('dataSettings.preview.setting', { name, before: shown(now), after: shown(value) }) });
  }
  if (preferenceRows.length) sections.push({ id: 'preferences', title: said('dataSettings.preview.preferences'), rows: preferenceRows });

  // Plugins' values: checked against their items' schemas, described, addressed ones ruled.
  const plugins = new Map(options.plugins.map((p) => [p.id, p]));
  const rows: Array<{ key: string; value: unknown }> = [];
  const otherRows: ImportRow[] = [];
  for (const [key, raw] of file.rows) {
    const slash = key.indexOf('/');
    const pluginId = slash > 0 ? key.slice(0, slash) : '';
    const itemName = slash > 0 ? key.slice(slash + 1) : '';
    const nowRow = (await db.pluginData.get(key))?.value;
    if (key === SWITCHES_ROW) {
      const value = check(key, switchesSchema(), raw);
      const now = z.safeParse(switchesSchema(), nowRow).data ?? {};
      const switchRows: ImportRow[] = [];
      for (const [id, on] of Object.entries(value)) {
        if (Object.hasOwn(now, id) && now[id] === on) continue;
        switchRows.push({ change: 'changed', name: options.pluginName?.(id) ?? id, detail: said(on ? 'dataSettings.preview.on' : 'dataSettings.preview.off') });
      }
      if (switchRows.length) sections.push({ id: 'switches', title: said('dataSettings.preview.switches'), rows: switchRows });
      rows.push({ key, value });
      continue;
    }
    const settingsFile = plugins.get(pluginId)?.settingsFile;
    const item = settingsFile && Object.hasOwn(settingsFile.items, itemName) ? settingsFile.items[itemName] : undefined;
    if (!item) {
      // A setting of this build is checked against its schema; a row no setting claims comes as it is.
      const setting = findSetting('db', key);
      const value = setting ? check(key, setting.schema, raw) : raw;
      if (stripMark(nowRow) !== stripMark(value)) otherRows.push({ change: nowRow === undefined ? 'added' : 'changed', name: key });
      rows.push({ key, value });
      continue;
    }
    const schema = schemaGetter(item.schema)();
    let value = check(key, schema, raw);
    const nowParsed = nowRow === undefined ? undefined : z.safeParse(schema, nowRow);
    const now = nowParsed?.success ? nowParsed.data : undefined;
    if (item.addressed) value = addressed(key, item, value, now, `${pluginId}.`);
    const extra = item.rows?.(value, now) ?? [];
    if (extra.length) {
      const section = sections.find((s) => s.id === key);
      if (section) section.rows.push(...extra);
      else sections.push({ id: key, title: item.title, rows: extra });
    }
    rows.push({ key, value });
  }
  if (otherRows.length) sections.push({ id: 'other', title: said('dataSettings.preview.otherValues'), rows: otherRows });

  // The keys the file carries, in words where known.
  const keyRows: ImportRow[] = [];
  for (const key of file.keys.keys()) {
    const dot = key.indexOf('.');
    const plugin = dot > 0 ? plugins.get(key.slice(0, dot)) : undefined;
    const words = keyWords.get(key) ?? plugin?.settingsFile?.secret?.(key.slice(dot + 1));
    keyRows.push({ change: secretsNow.has(key) ? 'changed' : 'added', name: words ? '' : key, ...(words ? { detail: words } : {}) });
  }
  if (keyRows.length) sections.push({ id: 'keys', title: said('dataSettings.preview.keys'), rows: keyRows });

  const putSecrets = [...file.keys].map(([key, value]) => ({ key, value }));
  return {
    preview: { sections },
    provider,
    limits: file.limits,
    preferences: [...file.preferences].map(([key, value]) => ({ key, value })),
    rows,
    putSecrets,
    deleteSecrets: [...deleteSecrets],
    applied: [
      said('dataSettings.applied.profiles'),
      said('dataSettings.applied.limits'),
      saidCount('dataSettings.applied.pluginValues', rows.length),
      ...(putSecrets.length ? [saidCount('dataSettings.applied.keys', putSecrets.length)] : []),
    ],
  };
}

/** Writes a plan: plugin values, provider profiles and secrets in one transaction, then the limits and preferences. */
export async function applySettingsImport(db: SidequestDb, plan: SettingsImportPlan): Promise<void> {
  const provider = z.parse(providerSettingsSchema() as unknown as z.core.$ZodType<ProviderSettings>, plan.provider);
  // Read once before the transaction: an older version's profiles in storage.local move first.
  await providerSettingsStore(db).getValue();
  await db.transaction('rw', db.pluginData, db.secrets, async () => {
    if (plan.deleteSecrets.length) await db.secrets.bulkDelete(plan.deleteSecrets);
    if (plan.putSecrets.length) await db.secrets.bulkPut(plan.putSecrets);
    if (plan.rows.length) await db.pluginData.bulkPut(plan.rows);
    await db.pluginData.put({ key: PROVIDER_ROW, value: provider });
  });
  await agentSettings.setValue(plan.limits);
  for (const { key, value } of plan.preferences) await preferenceSetting(key)?.setValue(value);
}

/** A setting's value in a preview line. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '—');
}

async function sha256(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A value's JSON without `imported` marks, to tell whether it changed. */
function stripMark(value: unknown): string {
  return JSON.stringify(value ?? null, (key, v) => (key === 'imported' ? undefined : v));
}

/** A plugin value checked against its item's schema; the file is refused, naming the place, if it does not fit. */
function check<T>(key: string, schema: z.core.$ZodType<T>, value: unknown): T {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ ...i, path: [`pluginData "${key.slice(0, 100)}"`, ...i.path] }));
    throw new ImportError('errors.import.settingsInvalid', { issues: describeIssues(issues) });
  }
  return parsed.data;
}

// ——— The two steps ———

/** The preview the user is looking at: kept by the background until Import, Cancel or expiry. */
export interface PendingImport {
  token: string;
  /** SHA-256 of the file's text and of the preview shown. */
  text: string;
  preview: string;
  expires: number;
}

/** Where the pending preview is kept (`storage.session` in the extension: it outlives a stopped worker). */
export interface PendingStore {
  getValue(): Promise<PendingImport | null>;
  setValue(value: PendingImport | null): Promise<void>;
}

/** A preview may be imported for 30 minutes. */
export const PREVIEW_LIFETIME_MS = 30 * 60_000;

export const pendingSettingsImport = defineSetting<PendingImport | null>('session:settingsImport', {
  fallback: null,
  schema: lazy(() => zm.nullable(zm.object({ token: zm.string(), text: zm.string(), preview: zm.string(), expires: zm.number() }))),
  version: 1,
});

/**
 * The background's two messages: `preview(text)` plans the import, keeps a token bound to the
 * file's text and to the preview it returns, and writes nothing; `apply(token, text)` imports only
 * that text, once, and only if planning it again against the settings now gives the same preview
 * (otherwise the user would get something other than what they were shown).
 */
export class SettingsImports {
  private readonly pending: PendingStore;
  private readonly now: () => number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: SidequestDb,
    private readonly options: PlanOptions & { pending?: PendingStore; now?: () => number },
  ) {
    this.pending = options.pending ?? pendingSettingsImport;
    this.now = options.now ?? Date.now;
  }

  async preview(text: string): Promise<{ token: string; preview: SettingsImportPreview }> {
    const plan = await planSettingsImport(this.db, text, this.options);
    const token = crypto.randomUUID();
    const digests = { text: await sha256(text), preview: await sha256(JSON.stringify(plan.preview)) };
    await this.serial(() => this.pending.setValue({ token, ...digests, expires: this.now() + PREVIEW_LIFETIME_MS }));
    return { token, preview: plan.preview };
  }

  /** Imports the previewed file; returns what was applied. */
  apply(token: string, text: string): Promise<Said[]> {
    return this.serial(async () => {
      const pending = await this.pending.getValue();
      if (!pending || pending.token !== token) throw new ImportError('errors.import.previewGone');
      // Used once, whatever happens next.
      await this.pending.setValue(null);
      if (pending.expires < this.now() || (await sha256(text)) !== pending.text) throw new ImportError('errors.import.previewGone');
      const plan = await planSettingsImport(this.db, text, this.options);
      if ((await sha256(JSON.stringify(plan.preview))) !== pending.preview) throw new ImportError('errors.import.previewStale');
      await applySettingsImport(this.db, plan);
      return plan.applied;
    });
  }

  /** The user chose Cancel: the preview can no longer be imported. */
  cancel(token: string): Promise<void> {
    return this.serial(async () => {
      if ((await this.pending.getValue())?.token === token) await this.pending.setValue(null);
    });
  }

  /** One step at a time: two Imports of one preview cannot both pass the check. */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step, step);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

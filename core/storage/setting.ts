import { storage } from 'wxt/utils/storage';
import { config as zodConfig, type ZodMiniType } from 'zod/mini';
import type { SidequestDb } from './db';

// Zod probes `new Function` to decide whether to compile; extension pages' CSP forbids it. The
// settings use zod's mini build: the pages read settings too, and it keeps them small.
zodConfig({ jitless: true });

type ZodType<T> = ZodMiniType<T, any>;

/** A settings item: versioned, migrated one step at a time, validated when read. */
export interface Setting<T> {
  readonly key: `local:${string}` | `session:${string}`;
  readonly fallback: T;
  /** What a value must look like (a settings file is checked against it before anything is applied). */
  readonly schema: ZodType<T>;
  getValue(): Promise<T>;
  setValue(value: T): Promise<void>;
  watch(listener: (value: T) => void): () => void;
  /** Runs the migrations now (they also run on their own before the first read). */
  migrate(): Promise<void>;
}

export interface SettingOptions<T> {
  fallback: T;
  schema: ZodType<T>;
  /** The shape's version; raise it with a migration for every change of shape. */
  version: number;
  /** `migrations[n]` turns a value of version n-1 into version n: one file per step (`migrations/`). */
  migrations?: Record<number, (old: any) => any>;
}

/**
 * Defines a setting in extension storage (WXT storage item, with its own versioning and
 * migrations). What is read is checked against `schema`: a value that does not fit (written by a
 * bug, or by hand) is reported in the console with what is wrong, and the fallback is used, so a
 * bad value never breaks the extension.
 */
export function defineSetting<T>(key: `local:${string}` | `session:${string}`, options: SettingOptions<T>): Setting<T> {
  const item = storage.defineItem<T>(key, {
    fallback: options.fallback,
    version: options.version,
    migrations: options.migrations,
  });
  const check = (value: unknown): T => validSetting(key, value, options.schema, options.fallback);
  return {
    key,
    fallback: options.fallback,
    schema: options.schema,
    getValue: async () => check(await item.getValue()),
    setValue: async (value) => item.setValue(options.schema.parse(value)),
    watch: (listener) => item.watch((value) => listener(check(value))),
    migrate: () => item.migrate(),
  };
}

/** The value when it fits the schema, else (with a message saying why) the fallback. */
export function validSetting<T>(key: string, value: unknown, schema: ZodType<T>, fallback: T): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ');
  console.warn(`[sidequest] The setting ${key} is not valid (${problems}); using the default instead.`);
  return structuredClone(fallback);
}

/** A setting kept in the extension's IndexedDB. */
export interface DbSetting<T> {
  readonly fallback: T;
  getValue(): Promise<T>;
  setValue(value: T): Promise<void>;
}

/**
 * Defines a setting in the extension's IndexedDB (the core's rows of `pluginData`, key
 * `core/<name>`), for what content scripts must not be able to change: they can write
 * `storage.local`, never the extension's database. `legacy`: the `storage.local` setting an older
 * version used; on first use its value is migrated, moved here and removed there.
 */
export function defineDbSetting<T>(db: SidequestDb, name: string, options: { fallback: T; schema: ZodType<T>; legacy?: Setting<T> }): DbSetting<T> {
  const key = `core/${name}`;
  let moved: Promise<void> | undefined;
  const moveLegacy = () =>
    (moved ??= (async () => {
      const legacy = options.legacy;
      if (!legacy) return;
      if ((await storage.getItem(legacy.key)) === null) return;
      await legacy.migrate();
      const value = await legacy.getValue();
      await db.transaction('rw', db.pluginData, async () => {
        if (!(await db.pluginData.get(key))) await db.pluginData.put({ key, value });
      });
      await storage.removeItem(legacy.key, { removeMeta: true });
    })().catch((error) => {
      moved = undefined;
      console.warn(`[sidequest] could not move ${options.legacy?.key} into the database`, error);
    }));
  const check = (value: unknown): T => validSetting(key, value, options.schema, options.fallback);
  return {
    fallback: options.fallback,
    async getValue() {
      await moveLegacy();
      const row = await db.pluginData.get(key);
      return row ? check(row.value) : structuredClone(options.fallback);
    },
    async setValue(value) {
      await moveLegacy();
      await db.pluginData.put({ key, value: options.schema.parse(value) });
    },
  };
}

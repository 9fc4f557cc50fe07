import { storage } from 'wxt/utils/storage';
import { config as zodConfig, optional, parse, safeParse, string } from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import type { MessageKey } from '@/core/i18n/catalog';
import type { SidequestDb } from './db';

// Zod probes `new Function` to decide whether to compile; extension pages' CSP forbids it. The
// settings use zod's mini build: the pages read settings too, and it keeps them small.
zodConfig({ jitless: true });

/**
 * A value made the first time it is asked for, then kept. For what a module would otherwise build
 * as it loads (zod schemas above all): Chrome evaluates the whole background at every start of its
 * service worker, and most of these are needed only once a feature is used. `node
 * bench/evaluation.mjs` shows what each module's top-level code costs a cold start. It lives here,
 * beside the settings that use it most: in a module of its own, the pages' bundler split a shared
 * chunk in two, and the sidebar's first load grew by 1 KB.
 */
export function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** What a value must look like: a zod schema (mini or classic). */
export type SettingSchema<T> = $ZodType<T, any>;

/**
 * Where a setting is kept:
 * - `local`: `storage.local` (every extension page can read and watch it; content scripts can
 *   read and write it too, so nothing a page must not change, and no secret);
 * - `session`: `storage.session` (memory the browser keeps while it runs; never on disk);
 * - `db`: a row of the extension's IndexedDB (`pluginData`, or `secrets` for a secret), out of
 *   reach of content scripts; used with the database: `setting.in(db)`.
 */
export type SettingArea = 'local' | 'session' | 'db';

/** What every setting says about itself (the registry lists these). */
export interface SettingInfo<T = unknown> {
  /** Its name in its area: `uiLanguage` (storage.local), `core/provider` (a `pluginData` row), `web.search.bing.apiKey` (a secret). */
  readonly key: string;
  readonly area: SettingArea;
  /** Unique over all areas: `local:uiLanguage`, `session:tasks`, `db:core/provider`, `secret:web.x`. */
  readonly id: string;
  readonly fallback: T;
  /** What a value must look like (a settings file is checked against it before anything is applied). */
  readonly schema: SettingSchema<T>;
  /** Goes into the settings file (Settings → Data) and comes back from one. */
  readonly exported: boolean;
  /** An API key or token: kept in `secrets`, never sent to a page, never in a settings file (except its "include API keys"). */
  readonly secret: boolean;
  /** Its name for the user (the settings import's preview). */
  readonly label?: MessageKey;
}

/** A setting in `storage.local` or `storage.session`: versioned, migrated one step at a time, validated when read. */
export interface Setting<T> extends SettingInfo<T> {
  readonly area: 'local' | 'session';
  getValue(): Promise<T>;
  setValue(value: T): Promise<void>;
  watch(listener: (value: T) => void): () => void;
  /** Runs the migrations now (they also run on their own before the first read). */
  migrate(): Promise<void>;
}

/** A setting in the extension's IndexedDB: `in(db)` gives its value there. */
export interface DatabaseSetting<T> extends SettingInfo<T> {
  readonly area: 'db';
  in(db: SidequestDb): DbSetting<T>;
}

/** A database setting's value in one database. */
export interface DbSetting<T> {
  readonly fallback: T;
  getValue(): Promise<T>;
  setValue(value: T): Promise<void>;
}

export type AnySetting = Setting<any> | DatabaseSetting<any>;

/**
 * A setting's schema, or the function that makes it (`lazy` above): then it is built
 * when a value is first checked, not as its module loads (at every start of Chrome's worker).
 */
export type SchemaSource<T> = SettingSchema<T> | (() => SettingSchema<T>);

/** The schema of a `SchemaSource`, made at the first call if it is made lazily. */
export function schemaGetter<T>(source: SchemaSource<T>): () => SettingSchema<T> {
  return typeof source === 'function' ? lazy(source) : () => source;
}

interface CommonOptions<T> {
  fallback: T;
  schema: SchemaSource<T>;
  /** In the settings file (default false): user preferences yes; drafts, ids, caches, test-only entries no. */
  exported?: boolean;
  label?: MessageKey;
}

/** A setting of `storage.local` or `storage.session`: its key says which (`local:agent`, `session:tasks`). */
export interface StorageSettingOptions<T> extends CommonOptions<T> {
  /** The shape's version; raise it with a migration for every change of shape. */
  version: number;
  /** `migrations[n]` turns a value of version n-1 into version n: one file per step (`migrations/`). */
  migrations?: Record<number, (old: any) => any>;
}

/**
 * Where an older version kept a database setting; on first use its value is moved here (unless
 * one is here already) and removed there:
 * - `{ key: 'local:…', version?, migrations? }`: a `storage.local` item (migrated, then checked
 *   against the setting's schema: a value that does not fit is dropped);
 * - `{ secret: '…' }`: a secret under another name.
 */
export type LegacyPlace = { key: `local:${string}`; version?: number; migrations?: Record<number, (old: any) => any> } | { secret: string };

export interface DbSettingOptions<T> extends CommonOptions<T> {
  area: 'db';
  secret?: false;
  legacy?: LegacyPlace;
}

export interface SecretOptions {
  area: 'db';
  secret: true;
  legacy?: { secret: string };
}

/** Every setting defined so far, by id (a setting defined again under its id replaces the first). */
const registry = new Map<string, AnySetting>();

/** The registry: every setting that has been defined (the core's when their modules load, a plugin's when it starts). */
export function registeredSettings(): AnySetting[] {
  return [...registry.values()];
}

/** The setting with this key in this area (`secret` for the database's secrets), if one is defined. */
export function findSetting(area: SettingArea | 'secret', key: string): AnySetting | undefined {
  return registry.get(`${area}:${key}`);
}

/**
 * The one way to declare a stored value. Every setting is one call, registers itself, and is
 * checked against `schema` when read: a value that does not fit (written by a bug, or by hand) is
 * reported in the console with what is wrong, and the fallback used, so a bad value never breaks
 * the extension. See `SettingArea` for `area`, `SettingInfo` for `exported` and `secret`.
 */
export function defineSetting(key: string, options: SecretOptions): DatabaseSetting<string | undefined>;
export function defineSetting<T>(key: string, options: DbSettingOptions<T>): DatabaseSetting<T>;
export function defineSetting<T>(key: StorageKey, options: StorageSettingOptions<T>): Setting<T>;
export function defineSetting<T>(key: string, options: StorageSettingOptions<T> | DbSettingOptions<T> | SecretOptions): AnySetting {
  const setting = 'area' in options && options.area === 'db' ? databaseSetting<T>(key, options) : storageSetting<T>(key as StorageKey, options as StorageSettingOptions<T>);
  if (setting.exported && (setting.secret || setting.area === 'session')) throw new Error(`The setting ${setting.id} cannot be exported.`);
  registry.set(setting.id, setting);
  return setting;
}

/** A key of extension storage, as WXT writes it: the area, then the name. */
export type StorageKey = `local:${string}` | `session:${string}`;

function storageSetting<T>(id: StorageKey, options: StorageSettingOptions<T>): Setting<T> {
  const colon = id.indexOf(':');
  const area = id.slice(0, colon) as 'local' | 'session';
  const item = storage.defineItem<T>(id, { fallback: options.fallback, version: options.version, migrations: options.migrations });
  const schema = schemaGetter(options.schema);
  const check = (value: unknown): T => validSetting(id, value, schema(), options.fallback);
  return {
    key: id.slice(colon + 1),
    area,
    id,
    fallback: options.fallback,
    get schema() {
      return schema();
    },
    exported: options.exported ?? false,
    secret: false,
    label: options.label,
    getValue: async () => check(await item.getValue()),
    setValue: async (value) => item.setValue(parse(schema(), value)),
    watch: (listener) => item.watch((value) => listener(check(value))),
    migrate: () => item.migrate(),
  };
}

const secretSchema: SettingSchema<string | undefined> = optional(string());

function databaseSetting<T>(key: string, options: DbSettingOptions<T> | SecretOptions): DatabaseSetting<T> {
  const secret = options.secret === true;
  const fallback = (secret ? undefined : (options as DbSettingOptions<T>).fallback) as T;
  const schema = schemaGetter((secret ? secretSchema : (options as DbSettingOptions<T>).schema) as SchemaSource<T>);
  const id = `${secret ? 'secret' : 'db'}:${key}`;
  const bound = new WeakMap<SidequestDb, DbSetting<T>>();
  const check = (value: unknown): T => validSetting(id, value, schema(), fallback);
  const open = (db: SidequestDb): DbSetting<T> => {
    // Whether an old value was moved here (then a read made beside the move is made again); once
    // the move is done, later reads find nothing more to move.
    let moved: Promise<boolean> | undefined;
    const moveLegacy = () =>
      (moved ??= options.legacy
        ? moveFrom(db, options.legacy, key, schema).then(
            (was) => {
              moved = Promise.resolve(false);
              return was;
            },
            (error) => {
              moved = undefined;
              console.warn(`[sidequest] could not move the old value of ${id} into the database`, error);
              return false;
            },
          )
        : Promise.resolve(false));
    /**
     * Reads the row beside the look for an old value, not after it (a stopped worker's first read
     * of a setting is on the path of what woke it), and again if one was moved meanwhile.
     */
    const read = async <R>(get: () => Promise<R>): Promise<R> => {
      const [movedOne, row] = await Promise.all([moveLegacy(), get()]);
      return movedOne ? get() : row;
    };
    if (secret) {
      return {
        fallback,
        async getValue() {
          return ((await read(() => db.secrets.get(key)))?.value || undefined) as T;
        },
        async setValue(value) {
          await moveLegacy();
          const clean = (value as string | undefined)?.trim();
          if (clean) await db.secrets.put({ key, value: clean });
          else await db.secrets.delete(key);
        },
      };
    }
    return {
      fallback,
      async getValue() {
        const row = await read(() => db.pluginData.get(key));
        return row ? check(row.value) : structuredClone(fallback);
      },
      async setValue(value) {
        await moveLegacy();
        await db.pluginData.put({ key, value: parse(schema(), value) });
      },
    };
  };
  return {
    key,
    area: 'db',
    id,
    fallback,
    get schema() {
      return schema();
    },
    exported: (options as { exported?: boolean }).exported ?? false,
    secret,
    label: secret ? undefined : (options as DbSettingOptions<T>).label,
    in(db) {
      let value = bound.get(db);
      if (!value) bound.set(db, (value = open(db)));
      return value;
    },
  };
}

/**
 * Moves a database setting's value from where an older version kept it (the one copy of this
 * code). A value from `storage.local` is migrated, then checked: one that does not fit is not
 * moved (the setting reads as its fallback).
 */
async function moveFrom(db: SidequestDb, legacy: LegacyPlace, key: string, schema: () => SettingSchema<unknown>): Promise<boolean> {
  if ('secret' in legacy) {
    if (legacy.secret === key) return false;
    return db.transaction('rw', db.secrets, async () => {
      const old = await db.secrets.get(legacy.secret);
      if (!old) return false;
      if (!(await db.secrets.get(key))) await db.secrets.put({ key, value: old.value });
      await db.secrets.delete(legacy.secret);
      return true;
    });
  }
  if ((await storage.getItem<unknown>(legacy.key)) === null) return false;
  const item = storage.defineItem<unknown>(legacy.key, { version: legacy.version ?? 1, migrations: legacy.migrations });
  await item.migrate();
  const parsed = safeParse(schema(), await item.getValue());
  if (parsed.success) {
    await db.transaction('rw', db.pluginData, async () => {
      if (!(await db.pluginData.get(key))) await db.pluginData.put({ key, value: parsed.data });
    });
  } else console.warn(`[sidequest] The old value at ${legacy.key} is not valid; it is dropped.`);
  await storage.removeItem(legacy.key, { removeMeta: true });
  return true;
}

/** The value when it fits the schema, else (with a message saying why) the fallback. */
export function validSetting<T>(key: string, value: unknown, schema: SettingSchema<T>, fallback: T): T {
  const parsed = safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ');
  console.warn(`[sidequest] The setting ${key} is not valid (${problems}); using the default instead.`);
  return structuredClone(fallback);
}

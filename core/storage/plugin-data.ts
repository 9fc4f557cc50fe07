import type { SidequestDb } from './db';
import { pluginCollection, type PluginCollection, type PluginCollectionOptions } from './plugin-records';
import { defineSetting, type SchemaSource } from './setting';

/** One value a plugin keeps. */
export interface PluginItem<T> {
  getValue(): Promise<T>;
  setValue(value: T): Promise<void>;
}

export interface PluginItemOptions<T> {
  fallback: T;
  /** Checks what is read: a stored value that does not match is reported and the fallback used. May be made lazily (`SchemaSource`). */
  schema: SchemaSource<T>;
  /** In the settings file (Settings → Data): default true; false for what only makes sense on this computer. */
  exported?: boolean;
  /**
   * Where an older version kept the value in `storage.local` (e.g. `local:search`): read once
   * when nothing is stored yet, moved here, and removed there.
   */
  legacyKey?: `local:${string}`;
}

/** A plugin's own data, in the extension's IndexedDB, under its id. */
export interface PluginStorage {
  item<T>(name: string, options: PluginItemOptions<T>): PluginItem<T>;
  /** A secret (an API key): kept apart, never sent to a page. `legacyKey`: its key before. */
  secret(name: string, options?: { legacyKey?: string }): PluginItem<string | undefined>;
  /** A list of records that grows with use (`plugin-records.ts`): not in the settings file; Delete all empties it. */
  collection<T>(name: string, options: PluginCollectionOptions<T>): PluginCollection<T>;
}

/**
 * Makes a plugin's storage: its values are settings (`defineSetting`, area `db`) kept by key
 * `<plugin>/<name>` in `pluginData`, its secrets by `<plugin>.<name>` in `secrets`.
 */
export function pluginStorage(db: SidequestDb, pluginId: string): PluginStorage {
  return {
    item<T>(name: string, options: PluginItemOptions<T>): PluginItem<T> {
      return defineSetting<T>(`${pluginId}/${name}`, {
        area: 'db',
        fallback: options.fallback,
        schema: options.schema,
        exported: options.exported ?? true,
        legacy: options.legacyKey && { key: options.legacyKey },
      }).in(db);
    },
    secret(name, options = {}) {
      return defineSetting(`${pluginId}.${name}`, { area: 'db', secret: true, legacy: options.legacyKey === undefined ? undefined : { secret: options.legacyKey } }).in(db);
    },
    collection(name, options) {
      return pluginCollection(db, pluginId, name, options);
    },
  };
}

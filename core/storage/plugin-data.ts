import { storage } from 'wxt/utils/storage';
import type { ZodType } from 'zod';
import type { SidequestDb } from './db';

/** One value a plugin keeps. */
export interface PluginItem<T> {
  getValue(): Promise<T>;
  setValue(value: T): Promise<void>;
}

export interface PluginItemOptions<T> {
  fallback: T;
  /** Checks what is read: a stored value that does not match is reported and the fallback used. */
  schema?: ZodType<T>;
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
}

/** Makes a plugin's storage. Values are structured-cloned into IndexedDB by key `<plugin>/<name>`. */
export function pluginStorage(db: SidequestDb, pluginId: string): PluginStorage {
  return {
    item<T>(name: string, options: PluginItemOptions<T>): PluginItem<T> {
      const key = `${pluginId}/${name}`;
      let moved: Promise<void> | undefined;
      const moveLegacy = () =>
        (moved ??= (async () => {
          if (!options.legacyKey) return;
          const old = await storage.getItem<T>(options.legacyKey);
          if (old === null || old === undefined) return;
          await db.transaction('rw', db.pluginData, async () => {
            if (!(await db.pluginData.get(key))) await db.pluginData.put({ key, value: old });
          });
          await storage.removeItem(options.legacyKey);
        })().catch((error) => console.warn(`[sidequest] could not move ${options.legacyKey} into the database`, error)));
      return {
        async getValue() {
          await moveLegacy();
          const row = await db.pluginData.get(key);
          if (!row) return structuredClone(options.fallback);
          if (!options.schema) return row.value as T;
          const parsed = options.schema.safeParse(row.value);
          if (parsed.success) return parsed.data;
          console.warn(`[sidequest] The stored "${name}" of plugin "${pluginId}" is not valid (${parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')}); using the default instead.`);
          return structuredClone(options.fallback);
        },
        async setValue(value) {
          await moveLegacy();
          await db.pluginData.put({ key, value: options.schema ? options.schema.parse(value) : value });
        },
      };
    },
    secret(name, options = {}) {
      const key = `${pluginId}.${name}`;
      let moved: Promise<void> | undefined;
      const moveLegacy = () =>
        (moved ??= (async () => {
          const legacy = options.legacyKey;
          if (!legacy || legacy === key) return;
          await db.transaction('rw', db.secrets, async () => {
            const old = await db.secrets.get(legacy);
            if (!old) return;
            if (!(await db.secrets.get(key))) await db.secrets.put({ key, value: old.value });
            await db.secrets.delete(legacy);
          });
        })());
      return {
        async getValue() {
          await moveLegacy();
          return (await db.secrets.get(key))?.value || undefined;
        },
        async setValue(value) {
          await moveLegacy();
          const clean = value?.trim();
          if (clean) await db.secrets.put({ key, value: clean });
          else await db.secrets.delete(key);
        },
      };
    },
  };
}

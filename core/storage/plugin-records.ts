import { safeParse } from 'zod/mini';
import type { PluginRecord, SidequestDb } from './db';
import { schemaGetter, type SchemaSource } from './setting';

/**
 * A list of records a plugin keeps (its skills, for one), in IndexedDB's `pluginRecords` under
 * the plugin's id. Each record is checked against the schema when read: one that does not fit
 * is left out of `list` (with a console message) and `get` says it is not there, so one bad
 * record never hides the others. `version` is the record format the plugin writes now; records
 * written in an older format go through `migrate` when read (and are written back migrated).
 */
export interface PluginCollection<T> {
  list(): Promise<T[]>;
  get(id: string): Promise<T | undefined>;
  put(id: string, value: T): Promise<void>;
  delete(id: string): Promise<void>;
  clear(): Promise<void>;
}

export interface PluginCollectionOptions<T> {
  /** May be made lazily (`SchemaSource`): then it is built when a record is first read or written. */
  schema: SchemaSource<T>;
  /** The format written now; default 1. */
  version?: number;
  /** Turns a record of an older format into the current one; throws if it cannot. */
  migrate?(value: unknown, fromVersion: number): unknown;
}

export function pluginCollection<T>(db: SidequestDb, pluginId: string, collection: string, options: PluginCollectionOptions<T>): PluginCollection<T> {
  const version = options.version ?? 1;
  const schema = schemaGetter(options.schema);
  const table = db.pluginRecords;
  const where = () => table.where('[pluginId+collection]').equals([pluginId, collection]);

  async function read(row: PluginRecord): Promise<T | undefined> {
    let value = row.value;
    try {
      if (row.version !== version) {
        if (row.version > version || !options.migrate) throw new Error(`record format ${row.version} is not ${version}`);
        value = options.migrate(value, row.version);
      }
      const parsed = safeParse(schema(), value);
      if (!parsed.success) throw new Error(parsed.error.message);
      if (row.version !== version) await table.put({ ...row, version, value: parsed.data, updatedAt: Date.now() });
      return parsed.data;
    } catch (error) {
      console.warn(`[sidequest] ${pluginId}: the record ${collection}/${row.id} cannot be read and is left out:`, error);
      return undefined;
    }
  }

  return {
    async list() {
      const rows = await where().toArray();
      const values = await Promise.all(rows.map(read));
      return values.filter((v): v is Awaited<T> => v !== undefined) as T[];
    },
    async get(id) {
      const row = await table.get([pluginId, collection, id]);
      return row ? read(row) : undefined;
    },
    async put(id, value) {
      const parsed = safeParse(schema(), value);
      if (!parsed.success) throw new Error(`${pluginId}: not a valid ${collection} record: ${parsed.error.message}`);
      await table.put({ pluginId, collection, id, version, value: parsed.data, updatedAt: Date.now() });
    },
    async delete(id) {
      await table.delete([pluginId, collection, id]);
    },
    async clear() {
      await where().delete();
    },
  };
}

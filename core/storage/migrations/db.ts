import type { Dexie, Transaction } from 'dexie';
import { dbV1 } from './db-v1';
import { dbV2 } from './db-v2-tool-activity';
import { dbV3 } from './db-v3-plugin-data';
import { dbV4 } from './db-v4-permissions';
import { dbV5 } from './db-v5-traces';
import { dbV6 } from './db-v6-plugin-records';
import { dbV7 } from './db-v7-search-index';

/**
 * One step of the IndexedDB schema: its version, the stores as Dexie declares them (only what
 * changes), and the upgrade of the data written by the version before it.
 */
export interface DbStep {
  version: number;
  stores: Record<string, string | null>;
  upgrade?(tx: Transaction): Promise<void>;
}

/** Every version, oldest first. Add a step as a new file; never change one that shipped. */
export const DB_STEPS: DbStep[] = [dbV1, dbV2, dbV3, dbV4, dbV5, dbV6, dbV7];

export const DB_VERSION = DB_STEPS.at(-1)!.version;

export function applyDbVersions(db: Dexie, steps: DbStep[] = DB_STEPS): void {
  for (const step of steps) {
    const version = db.version(step.version).stores(step.stores);
    if (step.upgrade) version.upgrade((tx) => step.upgrade!(tx));
  }
}

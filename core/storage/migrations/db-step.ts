import type { Transaction } from 'dexie';

// Apart from the list of steps (`db.ts`), so each step's file imports only this.

/**
 * One step of the IndexedDB schema: its version, the stores as Dexie declares them (only what
 * changes), and the upgrade of the data written by the version before it.
 */
export interface DbStep {
  version: number;
  stores: Record<string, string | null>;
  upgrade?(tx: Transaction): Promise<void>;
}

import type { Dexie } from 'dexie';
import type { DbStep } from './db-step';
import { dbV1 } from './db-v1';
import { dbV2 } from './db-v2-tool-activity';
import { dbV3 } from './db-v3-plugin-data';
import { dbV4 } from './db-v4-permissions';
import { dbV5 } from './db-v5-traces';
import { dbV6 } from './db-v6-plugin-records';
import { dbV7 } from './db-v7-search-index';

/** Every version, oldest first. Add a step as a new file; never change one that shipped. */
export const DB_STEPS: DbStep[] = [dbV1, dbV2, dbV3, dbV4, dbV5, dbV6, dbV7];

export const DB_VERSION = DB_STEPS.at(-1)!.version;

/**
 * Declares the steps to Dexie: only those that upgrade data, and the last, each with the whole
 * schema as of it. Dexie (3 and later) compares the schema a database has with the declared one,
 * so a step that only adds stores or indexes needs no declaration of its own; a store missing
 * from a declared version is deleted, hence the whole schema. Fewer declarations start faster:
 * each `stores()` call parses every version declared before it again, and a stopped Chrome worker
 * builds this at every start (bench/README.md, round 9).
 */
export function applyDbVersions(db: Dexie, steps: DbStep[] = DB_STEPS): void {
  const whole: Record<string, string | null> = {};
  steps.forEach((step, i) => {
    Object.assign(whole, step.stores);
    if (!step.upgrade && i < steps.length - 1) return;
    const version = db.version(step.version).stores({ ...whole });
    if (step.upgrade) version.upgrade((tx) => step.upgrade!(tx));
  });
}

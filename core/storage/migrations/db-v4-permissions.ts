import type { DbStep } from './db-step';

/**
 * v4: the approval gate's remembered choices (this tool on this site: allow or deny), keyed by
 * `[tool+site]`. In IndexedDB, not `storage.local`, which content scripts can write: a page must
 * not be able to grant itself a permission. Nothing older to move, so only the store is added.
 */
export const dbV4: DbStep = {
  version: 4,
  stores: { permissions: '[tool+site], site' },
};

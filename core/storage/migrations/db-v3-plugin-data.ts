import type { DbStep } from './db-step';

/**
 * v3: plugins keep their data here (`PluginStorage`), out of `storage.local`, which content
 * scripts can read and write. The values themselves move on first use (`legacyKey`), by the
 * plugin that owns them, so this step only adds the store.
 */
export const dbV3: DbStep = {
  version: 3,
  stores: { pluginData: 'key' },
};

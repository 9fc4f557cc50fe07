import type { DbStep } from './db-step';

/**
 * v6: `pluginRecords`, the collections a plugin keeps (`PluginStorage.collection`: the skills
 * plugin's skills, for one), one row per record by plugin, collection and id. A collection is a
 * list that grows with use, which one `pluginData` value (read and written whole) should not be.
 * Nothing older to move: every other store stays as it was.
 */
export const dbV6: DbStep = {
  version: 6,
  stores: { pluginRecords: '[pluginId+collection+id], [pluginId+collection]' },
};

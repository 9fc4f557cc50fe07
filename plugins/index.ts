import type { PluginServices } from '@/core/background/service';
import type { Plugin } from '@/core/registry/types';
import { createTabsPlugin } from './tabs';

/** Every built-in plugin, in the order settings list them. */
export function builtinPlugins(_services: PluginServices): Plugin[] {
  return [createTabsPlugin()];
}

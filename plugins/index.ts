import type { PluginServices } from '@/core/background/service';
import type { Plugin } from '@/core/registry/types';
import { createPageToolsPlugin } from './page-tools';
import { createTabsPlugin } from './tabs';

/** Every built-in plugin, in the order settings list them. */
export function builtinPlugins(services: PluginServices): Plugin[] {
  return [createTabsPlugin(), createPageToolsPlugin(services.pageTools)];
}

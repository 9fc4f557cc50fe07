import type { PluginServices } from '@/core/background/service';
import type { Plugin } from '@/core/registry/types';
import { createTabsPlugin } from './tabs';
import { createWebPlugin } from './web';

/** Every built-in plugin, in the order settings list them. */
export function builtinPlugins(services: PluginServices): Plugin[] {
  return [createTabsPlugin(services), createWebPlugin(services)];
}

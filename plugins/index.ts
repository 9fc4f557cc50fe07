import type { PluginServices } from '@/core/background/service';
import type { Plugin } from '@/core/registry/types';
import { createPageToolsPlugin } from './page-tools';
import { createInteractionPlugin } from './interaction';
import { createScriptingPlugin } from './scripting';
import { loadQuickJS } from './scripting/quickjs';
import { Sandbox } from './scripting/sandbox';
import { createSubAgentsPlugin } from './subagents';
import { createTabsPlugin } from './tabs';
import { createTasksPlugin } from './tasks';
import { createWebPlugin } from './web';
import { createWorkspacePlugin } from './workspace';

/** Every built-in plugin, in the order settings list them. */
export function builtinPlugins(services: PluginServices): Plugin[] {
  return [
    createTabsPlugin(services),
    createWebPlugin(services),
    createPageToolsPlugin(services.pageTools),
    createWorkspacePlugin({ onChange: (path) => services.hub.broadcast({ type: 'workspace', path }) }),
    createInteractionPlugin(services.questions),
    createTasksPlugin(services.tasks),
    createScriptingPlugin(new Sandbox(loadQuickJS)),
    createSubAgentsPlugin(services),
  ];
}

import type { BuiltinPlugin } from '@/core/plugin';
import { cataloguePlugin } from './catalogue';
import { interactionPlugin } from './interaction';
import { mcpPlugin } from './mcp';
import { memoryPlugin } from './memory';
import { pageActionsPlugin } from './page-actions';
import { pageToolsPlugin } from './page-tools';
import { plansPlugin } from './plans';
import { scriptingPlugin } from './scripting';
import { skillsPlugin } from './skills';
import { subagentsPlugin } from './subagents';
import { tabsPlugin } from './tabs';
import { tasksPlugin } from './tasks';
import { webPlugin } from './web';
import { workspacePlugin } from './workspace';

/**
 * Every built-in plugin, in the order settings list them: one line each. Its page-side part is
 * listed in `plugins/ui.ts`, its offscreen jobs (if any) in `plugins/offscreen.ts`.
 */
export const builtinPlugins: BuiltinPlugin[] = [
  tabsPlugin,
  webPlugin,
  pageToolsPlugin,
  pageActionsPlugin,
  workspacePlugin,
  interactionPlugin,
  plansPlugin,
  tasksPlugin,
  scriptingPlugin,
  subagentsPlugin,
  mcpPlugin,
  skillsPlugin,
  memoryPlugin,
  cataloguePlugin,
];

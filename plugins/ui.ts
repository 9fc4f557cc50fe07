import type { PluginUi } from '@/core/ui/plugins';
import { interactionUi } from './interaction/ui';
import { mcpUi } from './mcp/ui';
import { memoryUi } from './memory/ui';
import { pageActionsUi } from './page-actions/ui';
import { pageToolsUi } from './page-tools/ui';
import { plansUi } from './plans/ui';
import { skillsUi } from './skills/ui';
import { subagentsUi } from './subagents/ui';
import { tabsUi } from './tabs/ui';
import { tasksUi } from './tasks/ui';
import { webUi } from './web/ui';
import { workspaceUi } from './workspace/ui';

/** What each built-in plugin adds to the extension's pages: one line each (see `plugins/index.ts`). */
export const builtinPluginUi: PluginUi[] = [
  webUi,
  pageToolsUi,
  pageActionsUi,
  workspaceUi,
  interactionUi,
  plansUi,
  tasksUi,
  tabsUi,
  subagentsUi,
  mcpUi,
  skillsUi,
  memoryUi,
];

import type { JSONSchema7 } from 'json-schema';
import { pageToolsSchemas } from './page-tools/schemas';
import { interactionSchemas } from './interaction/schemas';
import { scriptingSchemas } from './scripting/schemas';
import { subagentsSchemas } from './subagents/schemas';
import { tabsSchemas } from './tabs/schemas';
import { tasksSchemas } from './tasks/schemas';
import { workspaceSchemas } from './workspace/schemas';
import { webSchemas } from './web/schemas';

/**
 * Every built-in tool's input schema, by tool name. The build compiles these with ajv into
 * `virtual:tool-validators` (see build/tool-validators.ts); keep this file free of browser APIs,
 * since the build imports it in Node.
 */
export const builtinSchemas: Record<string, JSONSchema7> = {
  ...tabsSchemas,
  ...pageToolsSchemas,
  ...workspaceSchemas,
  ...interactionSchemas,
  ...tasksSchemas,
  ...scriptingSchemas,
  ...subagentsSchemas,
  ...webSchemas,
};

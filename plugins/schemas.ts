import type { JSONSchema7 } from 'json-schema';
import { tabsSchemas } from './tabs/schemas';
import { webSchemas } from './web/schemas';

/**
 * Every built-in tool's input schema, by tool name. The build compiles these with ajv into
 * `virtual:tool-validators` (see build/tool-validators.ts); keep this file free of browser APIs,
 * since the build imports it in Node.
 */
export const builtinSchemas: Record<string, JSONSchema7> = {
  ...tabsSchemas,
  ...webSchemas,
};

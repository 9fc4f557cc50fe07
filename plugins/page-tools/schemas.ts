import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `page_tools` plugin. */
export const pageToolsSchemas = {
  list_page_tools: {
    type: 'object',
    properties: {
      tab_id: {
        type: 'integer',
        description: 'The tab to ask. Default: the active tab, plus every other tab already known to offer tools.',
      },
    },
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `page_tools` plugin. */
export const pageToolsSchemas = {
  list_page_tools: {
    type: 'object',
    properties: {
      tab_id: {
        type: 'integer',
        description: 'The tab to ask. Default: the tab the user is on, and the list covers the tabs in play (that tab and the tabs this conversation has used).',
      },
    },
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

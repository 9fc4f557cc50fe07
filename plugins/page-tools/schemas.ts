import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `page_tools` plugin. */
export const pageToolsSchemas = {
  list_page_tools: {
    type: 'object',
    properties: {
      tab_id: {
        type: 'integer',
        description: 'The tab to ask; default: the user\'s tab and the tabs this conversation used.',
      },
    },
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

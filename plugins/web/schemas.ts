import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `web` plugin: the single source of each tool's input type. */
export const webSchemas = {
  web_fetch: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, description: 'The http:// or https:// URL to fetch.' },
      prompt: {
        type: 'string',
        description: 'What to get out of the page. When given, the content is summarized by the model under this prompt and only the summary is returned.',
      },
      max_length: {
        type: 'integer',
        minimum: 1,
        description: 'Maximum characters of content to return (default 40000, at most 50000); truncated says whether it was cut.',
      },
    },
    required: ['url'],
    additionalProperties: false,
  },
  web_search: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'The search words.' },
      max_results: { type: 'number', description: 'How many results to return: default 5, at most 10 (larger values give 10).' },
    },
    required: ['query'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

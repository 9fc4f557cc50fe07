import type { JSONSchema7 } from 'json-schema';
import { READING_OPTIONS } from '@/core/extract/limit';

/** Input schemas of the `web` plugin: the single source of each tool's input type. */
export const webSchemas = {
  web_fetch: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, description: 'The http:// or https:// URL to fetch.' },
      ...READING_OPTIONS,
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

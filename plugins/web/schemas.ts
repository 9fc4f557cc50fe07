import type { JSONSchema7 } from 'json-schema';
import { READING_OPTIONS } from '@/core/extract/limit';

/** Input schemas of the `web` plugin: the single source of each tool's input type. */
export const webSchemas = {
  web_fetch: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, description: 'http(s) URL.' },
      ...READING_OPTIONS,
    },
    required: ['url'],
    additionalProperties: false,
  },
  web_search: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      max_results: { type: 'number', description: 'Default 5, at most 10.' },
    },
    required: ['query'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

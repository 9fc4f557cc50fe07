import type { JSONSchema7 } from 'json-schema';
import { MEMORY_LIMITS } from './memories';

/** Input schemas of the `memory` plugin. */
export const memorySchemas = {
  remember: {
    type: 'object',
    properties: {
      text: {
        type: 'string',
        minLength: 1,
        maxLength: MEMORY_LIMITS.chars,
        description: 'The one fact or preference to keep, in the user\'s words, one line.',
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

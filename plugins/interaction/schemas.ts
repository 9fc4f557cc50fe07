import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `interaction` plugin. */
export const interactionSchemas = {
  ask_user: {
    type: 'object',
    properties: {
      question: { type: 'string', minLength: 1, maxLength: 2000, description: 'In the user\'s language.' },
      options: {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: 200 },
        minItems: 1,
        maxItems: 20,
        description: 'Answers to choose from; none: free text.',
      },
      multiple: { type: 'boolean', default: false, description: 'Several may be picked.' },
    },
    required: ['question'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

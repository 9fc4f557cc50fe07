import type { JSONSchema7 } from 'json-schema';

/** The tools' input schemas (JSON Schema, a contract with the model). */
export const skillsSchemas = {
  save_skill: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'For /name: lowercase letters, digits, dashes ("weekly-report").', maxLength: 40 },
      description: { type: 'string', description: 'One sentence: what it does.', maxLength: 300 },
      params: {
        type: 'array',
        description: 'Values of this run to ask for each time (a date, a query), each named.',
        maxItems: 10,
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', maxLength: 30 },
            value: { type: 'string', description: 'As it appears in this run\'s tool calls.', maxLength: 500 },
          },
          required: ['name', 'value'],
          additionalProperties: false,
        },
      },
    },
    required: ['name'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

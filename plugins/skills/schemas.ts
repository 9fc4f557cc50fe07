import type { JSONSchema7 } from 'json-schema';

/** The tools' input schemas (JSON Schema, a contract with the model). */
export const skillsSchemas = {
  save_skill: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'A short name for /name: lowercase letters, digits and dashes, e.g. "weekly-report".', maxLength: 40 },
      description: { type: 'string', description: 'One sentence: what the skill does.', maxLength: 300 },
      params: {
        type: 'array',
        description: 'Values of this run that should be asked for each time (e.g. a date or a search query), with a name for each.',
        maxItems: 10,
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', maxLength: 30 },
            value: { type: 'string', description: 'The value it had in this run, exactly as it appears in the tool calls.', maxLength: 500 },
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

import type { JSONSchema7 } from 'json-schema';

/** The kinds of action a plan's step may name (the gate's `ActionKind`s). */
export const STEP_ACTIONS = ['read', 'open', 'interact', 'type'] as const;

/** Input schemas of the `plans` plugin. */
export const planSchemas = {
  propose_plan: {
    type: 'object',
    properties: {
      goal: { type: 'string', minLength: 1, maxLength: 500 },
      steps: {
        type: 'array',
        minItems: 1,
        maxItems: 20,
        items: {
          type: 'object',
          properties: {
            text: { type: 'string', minLength: 1, maxLength: 300 },
            site: { type: 'string' },
            action: { enum: [...STEP_ACTIONS] },
          },
          required: ['text'],
          additionalProperties: false,
        },
      },
      sites: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string' } },
      changes: { type: 'string', maxLength: 1000 },
      leaves: {
        type: 'array',
        maxItems: 10,
        items: { type: 'object', properties: { to: { type: 'string' }, what: { type: 'string', minLength: 1, maxLength: 300 } }, required: ['to', 'what'] },
        description: 'Data sent to another site than where it was read.',
      },
    },
    required: ['goal', 'steps', 'sites'],
    additionalProperties: false,
  },
  mark_step_done: {
    type: 'object',
    properties: { step: { type: 'integer', minimum: 1, maximum: 20, description: 'Its number in the approved plan.' } },
    required: ['step'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

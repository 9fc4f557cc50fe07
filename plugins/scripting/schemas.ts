import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `scripting` plugin. */
export const scriptingSchemas = {
  execute_script: {
    type: 'object',
    properties: {
      code: {
        type: 'string',
        minLength: 1,
        maxLength: 100_000,
        description:
          'One expression (its value is returned) or an async function body (use return).',
      },
      target: {
        type: 'string',
        enum: ['page', 'sandbox'],
        description: '"page": the tab\'s main world (DOM, variables, functions); "sandbox": pure computation, no DOM, network or timers, 5 s at most.',
      },
      tab_id: { type: 'integer', description: 'For "page"; default: the active tab.' },
    },
    required: ['code', 'target'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

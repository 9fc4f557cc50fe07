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
          'JavaScript: a single expression (its value is returned), or the body of an async function (use return; await is allowed).',
      },
      target: {
        type: 'string',
        enum: ['page', 'sandbox'],
        description: '"page": the tab\'s main world (its DOM, variables and functions). "sandbox": pure computation, no DOM, page or network.',
      },
      tab_id: { type: 'integer', description: 'target "page": the tab to run in (default: the active tab). Ignored for the sandbox.' },
    },
    required: ['code', 'target'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

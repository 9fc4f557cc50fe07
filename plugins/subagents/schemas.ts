import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `subagents` plugin. */
export const subagentsSchemas = {
  agent: {
    type: 'object',
    properties: {
      prompt: {
        type: 'string',
        minLength: 1,
        maxLength: 20_000,
        description: 'The whole sub-task: the sub-agent sees only this text.',
      },
      description: { type: 'string', maxLength: 80, description: 'Short label shown to the user.' },
      type: {
        type: 'string',
        enum: ['researcher', 'page_operator', 'general'],
        default: 'general',
        description: 'Its tools: "researcher" read-only (web, tabs, files), "page_operator" tabs and pages, "general" all.',
      },
      tab_id: { type: 'integer', description: 'Its tools work in this tab only.' },
    },
    required: ['prompt'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

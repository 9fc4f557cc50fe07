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
        description: 'The sub-task, complete in itself: the sub-agent sees nothing of this conversation but this text.',
      },
      description: { type: 'string', maxLength: 80, description: 'A short label of a few words, shown to the user.' },
      type: {
        type: 'string',
        enum: ['researcher', 'page_operator', 'general'],
        default: 'general',
        description:
          '"researcher": read-only research (search and read the web, read tabs and files; changes nothing). "page_operator": browser automation (tools working on tabs and their pages). "general" (default): all tools.',
      },
      tab_id: { type: 'integer', description: 'Bind the sub-agent to this tab: its tools work in that tab only.' },
    },
    required: ['prompt'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

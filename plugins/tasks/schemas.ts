import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `tasks` plugin. */
export const tasksSchemas = {
  create_task: {
    type: 'object',
    properties: {
      subject: { type: 'string', minLength: 1, description: 'What to do, in a few words.' },
      description: { type: 'string', description: 'Details, if needed.' },
    },
    required: ['subject'],
    additionalProperties: false,
  },
  update_task: {
    type: 'object',
    properties: {
      task_id: { type: 'string', minLength: 1 },
      status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
      subject: { type: 'string', minLength: 1 },
      description: { type: 'string', description: '"" removes it.' },
    },
    required: ['task_id'],
    additionalProperties: false,
  },
  list_tasks: {
    type: 'object',
    properties: {},
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

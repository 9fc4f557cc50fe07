import type { JSONSchema7 } from 'json-schema';

/** Input schemas of the `tasks` plugin. */
export const tasksSchemas = {
  create_task: {
    type: 'object',
    properties: {
      subject: { type: 'string', minLength: 1, description: 'A few words saying what is to be done.' },
      description: { type: 'string', description: 'Details, if the subject is not enough.' },
    },
    required: ['subject'],
    additionalProperties: false,
  },
  update_task: {
    type: 'object',
    properties: {
      task_id: { type: 'string', minLength: 1, description: 'The id create_task or list_tasks gave, e.g. "2".' },
      status: { type: 'string', enum: ['pending', 'in_progress', 'completed'], description: 'The new status.' },
      subject: { type: 'string', minLength: 1, description: 'A new subject.' },
      description: { type: 'string', description: 'A new description ("" removes it).' },
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

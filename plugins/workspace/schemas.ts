import type { JSONSchema7 } from 'json-schema';

const path = {
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  description: 'Workspace path, e.g. "notes/todo.md".',
} as const;

/** Input schemas of the `workspace` plugin. */
export const workspaceSchemas = {
  opfs_write: {
    type: 'object',
    properties: {
      path,
      content: {
        type: 'string',
        description: 'Text, or a data: URL for binary data.',
      },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  opfs_read: {
    type: 'object',
    properties: {
      path,
      mode: {
        type: 'string',
        enum: ['text', 'blob', 'auto'],
        default: 'auto',
        description: '"auto": text for text files, a blob URL for binary ones.',
      },
      offset: { type: 'integer', minimum: 1, description: 'Text: first line, from 1.' },
      limit: { type: 'integer', minimum: 1, description: 'Text: lines to read, at most 200.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  opfs_list: {
    type: 'object',
    properties: {
      path: { ...path, description: 'Folder; default: the root.' },
    },
    additionalProperties: false,
  },
  opfs_delete: {
    type: 'object',
    properties: {
      path: { ...path, description: 'File or folder (with its contents).' },
    },
    required: ['path'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

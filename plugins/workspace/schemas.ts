import type { JSONSchema7 } from 'json-schema';

const path = {
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  description: 'Path in the workspace, with "/" between folders, e.g. "notes/todo.md".',
} as const;

/** Input schemas of the `workspace` plugin. */
export const workspaceSchemas = {
  opfs_write: {
    type: 'object',
    properties: {
      path,
      content: {
        type: 'string',
        description: 'The file\'s content: text, or a data: URL (data:image/png;base64,…) for binary data.',
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
        description: '"auto" (default): text files return their text, binary files a blob URL. "text" or "blob" forces one.',
      },
      offset: { type: 'integer', minimum: 1, description: 'Text only: the first line to read, counted from 1.' },
      limit: { type: 'integer', minimum: 1, description: 'Text only: how many lines to read, at most 200.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  opfs_list: {
    type: 'object',
    properties: {
      path: { ...path, description: 'The folder to list; the workspace root by default.' },
    },
    additionalProperties: false,
  },
  opfs_delete: {
    type: 'object',
    properties: {
      path: { ...path, description: 'The file or folder to delete; a folder goes with everything in it.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
} as const satisfies Record<string, JSONSchema7>;

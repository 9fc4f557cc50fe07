import type { FromSchema } from 'json-schema-to-ts';
import { offscreenRef } from '@/core/offscreen/jobs';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { guessMime, isText, pageText, parseDataUrl, type TextPage } from './content';
import type { workspaceJobs } from './offscreen';
import './protocol';
import { workspaceSchemas } from './schemas';
import { Workspace } from './workspace';

/** The jobs of ./offscreen.ts, by name: their code runs in Chrome's offscreen document or Firefox's background page (core/offscreen/host.ts). */
const offscreen = offscreenRef<typeof workspaceJobs>('workspace');

/** Text files larger than this are not read as text (use blob mode). */
export const MAX_TEXT_READ_BYTES = 10 * 1024 * 1024;

export type ReadResult =
  | ({ path: string; type: 'text' } & TextPage)
  | { path: string; type: 'binary'; mime_type: string; size: number; blob_url: string };

/** What the workspace tools use. */
export interface WorkspaceService {
  workspace: Workspace;
  /** Makes a blob URL for a workspace file, typed `mime`. */
  blobUrl(path: string, mime: string): Promise<string>;
  /** Called after a tool changed the workspace, with the path it changed. */
  changed(path: string): void;
}

/** The built-in `workspace` plugin: files in the browser's origin-private file system. */
export const workspacePlugin = definePlugin<WorkspaceService>({
    id: 'workspace',
    name: 'Workspace',
    description: 'A private folder of files in the browser that the agent can write, read, list and delete. You can browse it in Settings.',
    tools: [
      defineTool<FromSchema<typeof workspaceSchemas.opfs_write>, unknown, WorkspaceService>({
        name: 'opfs_write',
        description:
          'Write a file in the workspace (a private folder in the browser), creating folders and replacing any existing file.',
        inputSchema: workspaceSchemas.opfs_write,
        // Replaces a file whole: what was there is gone.
        annotations: {
          readOnly: false,
          destructive: true,
          openWorld: false,
          // A new file overwrites nothing: only writing over an existing one asks.
          forCall: async ({ path }: { path: string }, { service }: { service: WorkspaceService }) => ((await service.workspace.exists(path)) ? undefined : { destructive: false }),
        },
        async execute({ path, content }, { service: { workspace, changed } }) {
          const data = parseDataUrl(content);
          const result = await workspace.write(path, data ? data.bytes : content);
          changed(result.path);
          const binary = data ? !isText(data.bytes) : false;
          return { ...result, type: binary ? 'binary' : 'text', ...(data ? { mime_type: data.mime } : {}) };
        },
      }),
      defineTool<FromSchema<typeof workspaceSchemas.opfs_read>, ReadResult, WorkspaceService>({
        name: 'opfs_read',
        description:
          'Read a workspace file; a text over 200 lines is read in pages (offset, limit; the result gives next_offset).',
        inputSchema: workspaceSchemas.opfs_read,
        annotations: { readOnly: true, destructive: false, openWorld: false },
        async execute({ path, mode = 'auto', offset, limit }, { service: { workspace, blobUrl } }) {
          const { path: where, file } = await workspace.file(path);
          const paged = offset !== undefined || limit !== undefined;
          if (mode === 'blob' && paged) throw new Error('offset and limit are for text mode; leave them out in blob mode.');
          let kind: 'text' | 'binary' = mode === 'text' ? 'text' : 'binary';
          if (mode === 'auto') {
            const head = new Uint8Array(await file.slice(0, 65_536).arrayBuffer());
            kind = isText(head) ? 'text' : 'binary';
            if (kind === 'binary' && paged) {
              throw new Error(`${where.display} is a binary file; offset and limit only apply to text. Read it without them to get a blob URL.`);
            }
          }
          if (kind === 'binary') {
            const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
            const mime = guessMime(where.segments.at(-1)!, head);
            return { path: where.display, type: 'binary', mime_type: mime, size: file.size, blob_url: await blobUrl(where.display, mime) };
          }
          if (file.size > MAX_TEXT_READ_BYTES) {
            throw new Error(`${where.display} is ${file.size} bytes, too large to read as text (at most ${MAX_TEXT_READ_BYTES}). Read it in blob mode.`);
          }
          return { path: where.display, type: 'text', ...pageText(await file.text(), where.display, offset, limit) };
        },
      }),
      defineTool<FromSchema<typeof workspaceSchemas.opfs_list>, unknown, WorkspaceService>({
        name: 'opfs_list',
        description: 'List a workspace folder: name, path, kind, size and last change of each entry.',
        inputSchema: workspaceSchemas.opfs_list,
        annotations: { readOnly: true, destructive: false, openWorld: false },
        async execute({ path }, { service: { workspace } }) {
          const listing = await workspace.list(path ?? '/');
          return {
            path: listing.path,
            entries: listing.entries.map((e) => ({
              name: e.name,
              path: e.path,
              kind: e.kind,
              ...(e.size !== undefined ? { size: e.size } : {}),
              ...(e.modified !== undefined ? { modified: new Date(e.modified).toISOString() } : {}),
            })),
          };
        },
      }),
      defineTool<FromSchema<typeof workspaceSchemas.opfs_delete>, unknown, WorkspaceService>({
        name: 'opfs_delete',
        description: 'Delete a workspace file or folder for good.',
        inputSchema: workspaceSchemas.opfs_delete,
        annotations: { readOnly: false, destructive: true, openWorld: false },
        async execute({ path }, { service: { workspace, changed } }) {
          const result = await workspace.delete(path);
          changed(result.path);
          return { path: result.path, deleted: result.kind };
        },
      }),
    ],
  setup(ctx) {
    const workspace = new Workspace();
    // Parts of atomic writes a stopped background left behind.
    ctx.onStartup(() => workspace.cleanTemp().catch(() => undefined));
    // Delete all data: the files go too.
    ctx.onDeleteAll(async () => {
      await workspace.clear();
      ctx.broadcast({ type: 'workspace', path: '/' });
    });
    return {
      service: {
        workspace,
        blobUrl: (path, mime) =>
          ctx.offscreen(offscreen, 'blobUrl', { path, mime }).catch((error: Error) => {
            throw new Error(`Could not make a blob URL for ${path} (${error.message}); read the file in text mode instead.`);
          }),
        changed: (path) => ctx.broadcast({ type: 'workspace', path }),
      },
    };
  },
});

/**
 * Reads one file of the agent's workspace for `upload_file`, read-only, in the background. The
 * workspace plugin keeps its files in the origin-private file system (OPFS) under the folder
 * `workspace` (see plugins/workspace/workspace.ts); a plugin is one folder, so this reads that
 * folder itself through `navigator.storage.getDirectory()` (Chromium's MV3 service worker and
 * Firefox's background page both have it) with the same confinement: no `..`, no empty or
 * control-character names, no backslashes or URLs, and never a name the workspace reserves
 * (`.sidequest-…`, its temporary folder among them). Files over `MAX_UPLOAD_BYTES` are refused
 * before they are read.
 */

/** The workspace's folder in OPFS (as plugins/workspace/workspace.ts names it). */
export const WORKSPACE_FOLDER = 'workspace';
/** Names the workspace keeps for itself (its temporary folder is `.sidequest-tmp`). */
const RESERVED_PREFIX = '.sidequest-';
/** The largest file upload_file sends. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export interface WorkspaceFile {
  /** The path shown to the model and on the card: `/docs/cv.pdf`. */
  path: string;
  name: string;
  size: number;
  type: string;
  lastModified: number;
  bytes: Uint8Array;
}

/** The path's folder and file names, checked; throws in words for the model. */
export function uploadPath(input: string): string[] {
  const raw = String(input ?? '').trim();
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new Error('The path contains control characters; give a workspace path like "docs/cv.pdf".');
  if (raw.includes('\\')) throw new Error(`"${raw}" contains a backslash: separate folders with "/", like "docs/cv.pdf".`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) throw new Error(`"${raw}" looks like a URL or a drive: upload_file sends files of the agent's workspace only (opfs_list shows them).`);
  if (raw.startsWith('~')) throw new Error(`"${raw}" starts with "~": there is no home folder; paths start at the workspace root.`);
  const segments = raw.replace(/^\/+/, '').split('/').filter((s) => s !== '.');
  if (!segments.length || segments.at(-1) === '') throw new Error(`"${raw}" names no file; give a file path like "docs/cv.pdf".`);
  for (const segment of segments) {
    if (segment === '') throw new Error(`"${raw}" has an empty folder name ("//").`);
    if (segment === '..') throw new Error(`"${raw}" contains "..": upload_file reads only inside the workspace. Give the path from the workspace root.`);
    if (segment.startsWith(RESERVED_PREFIX)) throw new Error(`"${raw}" is in the workspace's own reserved files ("${RESERVED_PREFIX}…"), which are not for upload.`);
    if (segment.length > 255) throw new Error('A name in the path is longer than 255 characters.');
  }
  if (segments.length > 32) throw new Error('The path is deeper than 32 folders.');
  return segments;
}

const TYPES: Record<string, string> = {
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', json: 'application/json', html: 'text/html', htm: 'text/html', xml: 'application/xml',
  pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', svg: 'image/svg+xml',
  zip: 'application/zip', doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', mp3: 'audio/mpeg', mp4: 'video/mp4', ics: 'text/calendar',
};

/** The MIME type a browser's file picker would give a file of this name ('' when unknown, as browsers do). */
export function typeOf(name: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (ext && TYPES[ext]) || '';
}

/** The workspace file at `input`, found (not read): its checked path and the `File`. */
async function openWorkspaceFile(input: string, root?: FileSystemDirectoryHandle): Promise<{ path: string; name: string; file: File }> {
  const segments = uploadPath(input);
  const display = `/${segments.join('/')}`;
  const missing = () => new Error(`There is no file ${display} in the workspace. opfs_list shows the files there (opfs_write makes one).`);
  let dir = await (root ?? (await navigator.storage.getDirectory())).getDirectoryHandle(WORKSPACE_FOLDER, { create: false }).catch(() => {
    throw missing();
  });
  for (const segment of segments.slice(0, -1)) {
    dir = await dir.getDirectoryHandle(segment).catch((error: Error) => {
      throw error?.name === 'TypeMismatchError' ? new Error(`${display}: "${segment}" is a file, not a folder.`) : missing();
    });
  }
  const name = segments.at(-1)!;
  const handle = await dir.getFileHandle(name).catch((error: Error) => {
    throw error?.name === 'TypeMismatchError' ? new Error(`${display} is a folder; upload_file sends one file.`) : missing();
  });
  return { path: display, name, file: await handle.getFile() };
}

/** The size in bytes of the workspace file at `input` (for the approval card), without reading it. */
export async function workspaceFileSize(input: string, root?: FileSystemDirectoryHandle): Promise<number> {
  return (await openWorkspaceFile(input, root)).file.size;
}

/**
 * The workspace file at `input`, read whole: its checked path, name, size, type and bytes; refused
 * past `max` bytes before reading. `root` is for tests (an OPFS root); the default is the extension's own.
 */
export async function readWorkspaceFile(input: string, root?: FileSystemDirectoryHandle, max = MAX_UPLOAD_BYTES): Promise<WorkspaceFile> {
  const { path, name, file } = await openWorkspaceFile(input, root);
  if (file.size > max) throw new Error(`${path} is ${(file.size / 1024 / 1024).toFixed(1)} MB; upload_file sends files of at most ${max / 1024 / 1024} MB.`);
  return { path, name, size: file.size, type: typeOf(name), lastModified: file.lastModified, bytes: new Uint8Array(await file.arrayBuffer()) };
}

/** Bytes as base64 (what crosses `executeScript`, whose arguments are JSON). */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) out += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(out);
}

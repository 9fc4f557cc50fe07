/** Longest name of one file or folder, in characters (common file systems allow 255 bytes). */
export const MAX_NAME_LENGTH = 255;
/** Longest whole path, in characters. */
export const MAX_PATH_LENGTH = 1024;
/** Deepest folder nesting. */
export const MAX_DEPTH = 32;
/** Names the workspace keeps for itself (atomic writes use them); refused in paths. */
export const RESERVED_PREFIX = '.sidequest-';

/** A workspace path, checked and split into its parts; `[]` is the workspace root. */
export interface WorkspacePath {
  segments: string[];
  /** The normalized form shown to the model and the user: `/notes/todo.md`, `/` for the root. */
  display: string;
}

/**
 * Normalizes a path given by the model or the user and confines it to the workspace. A leading
 * `/` means the workspace root (there is no other root), a trailing `/` is allowed, `.` segments
 * are dropped. Refused, with a message that says how to fix it: `..` segments, empty segments
 * (`a//b`), backslashes, drive letters and URLs (`C:\`, `file:`), `~`, control characters, names
 * longer than 255 characters, paths deeper than 32 folders or longer than 1024 characters, and
 * names the workspace reserves for itself.
 */
export function normalizePath(input: string, { allowRoot = true } = {}): WorkspacePath {
  if (typeof input !== 'string') throw new Error('The path must be a string, like "notes/todo.md".');
  const raw = input.trim();
  if (raw.length > MAX_PATH_LENGTH) {
    throw new Error(`The path is ${raw.length} characters long; the workspace allows at most ${MAX_PATH_LENGTH}.`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new Error('The path contains control characters (like a newline); remove them.');
  if (raw.includes('\\')) throw new Error(`"${raw}" contains a backslash: separate folders with "/", like "notes/todo.md".`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) {
    throw new Error(`"${raw}" looks like a drive or a URL. Workspace paths are relative to the workspace, like "notes/todo.md".`);
  }
  if (raw.startsWith('~')) throw new Error(`"${raw}" starts with "~": there is no home folder; paths start at the workspace root.`);
  let body = raw;
  if (body.startsWith('/')) body = body.slice(1);
  if (body.endsWith('/')) body = body.slice(0, -1);
  const segments: string[] = [];
  if (body !== '') {
    for (const segment of body.split('/')) {
      if (segment === '') {
        throw new Error(`"${raw}" has an empty folder name ("//"): write each folder once, like "notes/2024/todo.md".`);
      }
      if (segment === '.') continue;
      if (segment === '..') {
        throw new Error(`"${raw}" contains "..": paths cannot leave or climb the workspace. Give the full path from the workspace root instead.`);
      }
      if (segment.length > MAX_NAME_LENGTH) {
        throw new Error(`The name "${segment.slice(0, 40)}…" is ${segment.length} characters long; names may have at most ${MAX_NAME_LENGTH}.`);
      }
      if (segment !== segment.trim()) throw new Error(`The name "${segment}" starts or ends with a space; remove it.`);
      if (segment.startsWith(RESERVED_PREFIX)) {
        throw new Error(`Names starting with "${RESERVED_PREFIX}" are reserved by the workspace; choose another name.`);
      }
      segments.push(segment);
    }
  }
  if (segments.length > MAX_DEPTH) throw new Error(`The path is ${segments.length} folders deep; the workspace allows at most ${MAX_DEPTH}.`);
  if (!segments.length && !allowRoot) {
    throw new Error('This needs a file or folder path, not the workspace root (for example "notes/todo.md").');
  }
  return { segments, display: '/' + segments.join('/') };
}

/** Joins a normalized path with a child name. */
export function childPath(parent: WorkspacePath, name: string): string {
  return parent.segments.length ? `${parent.display}/${name}` : `/${name}`;
}

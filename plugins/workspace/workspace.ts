import { childPath, normalizePath, RESERVED_PREFIX, type WorkspacePath } from './paths';

/** The workspace's folder in the origin-private file system; other OPFS folders are not its. */
export const WORKSPACE_DIR = 'workspace';
/** Where atomic writes put a file before moving it into place; outside the workspace folder. */
export const TEMP_DIR = `${RESERVED_PREFIX}tmp`;

export interface WorkspaceEntry {
  name: string;
  path: string;
  kind: 'file' | 'directory';
  /** Files: size in bytes and last change (ms since 1970). */
  size?: number;
  modified?: number;
}

export interface WriteResult {
  path: string;
  size: number;
  /** False when an existing file was replaced. */
  created: boolean;
}

/**
 * A file system for the agent and the user, in a folder of the browser's origin-private file
 * system (OPFS). The extension's background and its pages share one origin, so the agent's tools
 * (background) and the workspace browser (options page) see the same files. Every path goes
 * through `normalizePath`, which confines it to the workspace folder.
 *
 * Writes are atomic: the bytes go to a new file in a temporary folder, which is moved over the
 * destination only once it is complete (`FileSystemFileHandle.move`, in Chromium and Firefox). A
 * write that fails leaves the old file as it was, or no file, never half of one.
 */
export class Workspace {
  constructor(private readonly opfsRoot: () => Promise<FileSystemDirectoryHandle> = () => navigator.storage.getDirectory()) {}

  private async root(): Promise<FileSystemDirectoryHandle> {
    return (await this.opfsRoot()).getDirectoryHandle(WORKSPACE_DIR, { create: true });
  }

  /** Writes a file, creating the folders on its path; replaces an existing file atomically. */
  async write(pathInput: string, data: Uint8Array | string): Promise<WriteResult> {
    const path = normalizePath(pathInput, { allowRoot: false });
    if (pathInput.trim().endsWith('/')) throw new Error(`"${pathInput}" ends with "/", which names a folder; give a file name.`);
    const name = path.segments.at(-1)!;
    const dir = await this.folder(path.segments.slice(0, -1), { create: true, path });
    const existing = await entryKind(dir, name);
    if (existing === 'directory') {
      throw new Error(`${path.display} is a folder; choose another file name, or delete the folder first with opfs_delete.`);
    }
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const temp = await (await this.opfsRoot()).getDirectoryHandle(TEMP_DIR, { create: true });
    const tempName = `${crypto.randomUUID()}.part`;
    const handle = await temp.getFileHandle(tempName, { create: true });
    try {
      const writable = await handle.createWritable();
      try {
        await writable.write(bytes as Uint8Array<ArrayBuffer>);
        await writable.close();
      } catch (error) {
        await writable.abort().catch(() => undefined);
        throw error;
      }
      await (handle as MovableFileHandle).move(dir, name);
    } catch (error) {
      await temp.removeEntry(tempName).catch(() => undefined);
      throw new Error(`Could not write ${path.display}: ${describeFsError(error)}. Nothing was changed.`);
    }
    return { path: path.display, size: bytes.byteLength, created: existing === null };
  }

  /** Whether anything (a file or a folder) is at `path`; false for a path that cannot be. */
  async exists(pathInput: string): Promise<boolean> {
    let path: WorkspacePath;
    try {
      path = normalizePath(pathInput, { allowRoot: false });
    } catch {
      return false;
    }
    try {
      const dir = await this.folder(path.segments.slice(0, -1), { create: false, path });
      return (await entryKind(dir, path.segments.at(-1)!)) !== null;
    } catch {
      return false;
    }
  }

  /** The file at `path`, or an error saying what is there instead. */
  async file(pathInput: string): Promise<{ path: WorkspacePath; file: File }> {
    const path = normalizePath(pathInput, { allowRoot: false });
    const dir = await this.folder(path.segments.slice(0, -1), { create: false, path });
    const name = path.segments.at(-1)!;
    const kind = await entryKind(dir, name);
    if (kind === null) throw notFound(path);
    if (kind === 'directory') throw new Error(`${path.display} is a folder, not a file. Call opfs_list to see what it holds.`);
    return { path, file: await (await dir.getFileHandle(name)).getFile() };
  }

  /** The entries of a folder (the root by default): folders first, then files, each by name. */
  async list(pathInput = '/'): Promise<{ path: string; entries: WorkspaceEntry[] }> {
    const path = normalizePath(pathInput);
    const dir = await this.folder(path.segments, { create: false, path });
    const entries: WorkspaceEntry[] = [];
    for await (const [name, handle] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) {
      if (name.startsWith(RESERVED_PREFIX)) continue;
      const entry: WorkspaceEntry = { name, path: childPath(path, name), kind: handle.kind };
      if (handle.kind === 'file') {
        const file = await (handle as FileSystemFileHandle).getFile();
        entry.size = file.size;
        entry.modified = file.lastModified;
      }
      entries.push(entry);
    }
    entries.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'directory' ? -1 : 1));
    return { path: path.display, entries };
  }

  /** Deletes a file, or a folder with everything in it. The root itself cannot be deleted. */
  async delete(pathInput: string): Promise<{ path: string; kind: 'file' | 'directory' }> {
    const path = normalizePath(pathInput);
    if (!path.segments.length) {
      throw new Error('opfs_delete will not delete the whole workspace. Delete the files and folders in it one by one.');
    }
    const dir = await this.folder(path.segments.slice(0, -1), { create: false, path });
    const name = path.segments.at(-1)!;
    const kind = await entryKind(dir, name);
    if (kind === null) throw notFound(path);
    await dir.removeEntry(name, { recursive: true });
    return { path: path.display, kind };
  }

  /** Removes the whole workspace and the temporary folder (Delete all data). */
  async clear(): Promise<void> {
    const root = await this.opfsRoot();
    for (const name of [WORKSPACE_DIR, TEMP_DIR]) await root.removeEntry(name, { recursive: true }).catch(() => undefined);
  }

  /** Removes what interrupted writes left in the temporary folder. */
  async cleanTemp(): Promise<void> {
    await (await this.opfsRoot()).removeEntry(TEMP_DIR, { recursive: true }).catch(() => undefined);
  }

  /** The folder at `segments`, created on the way when `create`; errors name the missing part. */
  private async folder(segments: string[], { create, path }: { create: boolean; path: WorkspacePath }): Promise<FileSystemDirectoryHandle> {
    let dir = await this.root();
    for (const [i, segment] of segments.entries()) {
      const kind = await entryKind(dir, segment);
      const here = '/' + segments.slice(0, i + 1).join('/');
      if (kind === 'file') throw new Error(`${here} is a file, so ${path.display} cannot be inside it.`);
      if (kind === null && !create) throw notFound(path, here);
      dir = await dir.getDirectoryHandle(segment, { create });
    }
    return dir;
  }
}

/** `move()` is in Chromium (110+) and Firefox (111+) but not yet in TypeScript's DOM types. */
interface MovableFileHandle extends FileSystemFileHandle {
  move(destination: FileSystemDirectoryHandle, name: string): Promise<void>;
}

/** What `name` is in `dir`: a file, a folder, or nothing. */
async function entryKind(dir: FileSystemDirectoryHandle, name: string): Promise<'file' | 'directory' | null> {
  try {
    await dir.getFileHandle(name);
    return 'file';
  } catch (error) {
    if (isNamed(error, 'TypeMismatchError')) return 'directory';
    if (!isNamed(error, 'NotFoundError')) throw error;
  }
  try {
    await dir.getDirectoryHandle(name);
    return 'directory';
  } catch (error) {
    if (isNamed(error, 'NotFoundError') || isNamed(error, 'TypeMismatchError')) return null;
    throw error;
  }
}

function isNamed(error: unknown, name: string): boolean {
  return (error as { name?: string } | null)?.name === name;
}

function notFound(path: WorkspacePath, missing = path.display): Error {
  const where = missing === path.display ? path.display : `${missing} (on the way to ${path.display})`;
  return new Error(`There is no file or folder ${where} in the workspace. Call opfs_list to see what exists.`);
}

function describeFsError(error: unknown): string {
  if (isNamed(error, 'QuotaExceededError')) return 'the browser\'s storage quota is full';
  return (error as Error)?.message || String(error);
}

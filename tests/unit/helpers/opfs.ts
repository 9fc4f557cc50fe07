// In-memory origin-private file systems for unit tests (opfs-mock), made to behave like the browsers'.

/**
 * opfs-mock has no `FileSystemFileHandle.move` (Chromium and Firefox do): this wraps its root so
 * file handles get one (copy into place, then remove the source), and optionally makes writable
 * streams fail after a few bytes, as a full disk would.
 */
export function withMove(root: FileSystemDirectoryHandle, { failWrites = false } = {}): FileSystemDirectoryHandle {
  const wrapDir = (dir: FileSystemDirectoryHandle): FileSystemDirectoryHandle =>
    new Proxy(dir, {
      get(target, prop) {
        if (prop === 'getDirectoryHandle') {
          return async (name: string, options?: FileSystemGetDirectoryOptions) => wrapDir(await target.getDirectoryHandle(name, options));
        }
        if (prop === 'getFileHandle') {
          return async (name: string, options?: FileSystemGetFileOptions) => {
            const handle = await target.getFileHandle(name, options);
            return new Proxy(handle, {
              get(file, key) {
                if (key === 'move') {
                  return async (destination: FileSystemDirectoryHandle, newName: string) => {
                    const bytes = await (await file.getFile()).arrayBuffer();
                    const copy = await (await destination.getFileHandle(newName, { create: true })).createWritable();
                    await copy.write(bytes);
                    await copy.close();
                    await target.removeEntry(name);
                  };
                }
                if (key === 'createWritable' && failWrites) {
                  return async () => {
                    const writable = await file.createWritable();
                    return {
                      write: async (data: Uint8Array) => {
                        await writable.write(data.slice(0, 3) as Uint8Array<ArrayBuffer>);
                        throw Object.assign(new Error('disk full'), { name: 'UnknownError' });
                      },
                      close: () => writable.close(),
                      abort: () => writable.abort(),
                    };
                  };
                }
                const value = Reflect.get(file, key);
                return typeof value === 'function' ? value.bind(file) : value;
              },
            });
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return wrapDir(root);
}

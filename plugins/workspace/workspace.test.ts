import { storageFactory } from 'opfs-mock';
import { beforeEach, describe, expect, test } from 'vitest';
import { PAGE_LINES, guessMime, isText, pageText, parseDataUrl, splitLines } from '@/plugins/workspace/content';
import { MAX_NAME_LENGTH, normalizePath } from '@/plugins/workspace/paths';
import { TEMP_DIR, Workspace } from '@/plugins/workspace/workspace';
import { withMove } from '@/tests/unit/helpers/opfs';

describe('workspace paths are normalized and confined', () => {
  test.each([
    ['notes/todo.md', '/notes/todo.md'],
    ['/notes/todo.md', '/notes/todo.md'],
    ['notes/', '/notes'],
    ['./notes/./a.txt', '/notes/a.txt'],
    ['  a.txt ', '/a.txt'],
    ['/', '/'],
    ['', '/'],
  ])('%j → %j', (input, display) => {
    expect(normalizePath(input).display).toBe(display);
  });

  test.each([
    ['../escape.txt', /contains "\.\."/],
    ['notes/../../etc/passwd', /contains "\.\."/],
    ['/..', /contains "\.\."/],
    ['a//b', /empty folder name/],
    ['C:\\Windows', /backslash/],
    ['C:/Windows', /drive or a URL/],
    ['file:///etc/passwd', /drive or a URL/],
    ['~/secrets', /home folder/],
    ['a\nb', /control characters/],
    ['x'.repeat(MAX_NAME_LENGTH + 1), /characters long; names may have at most 255/],
    ['.sidequest-tmp/x', /reserved/],
    [Array(33).fill('d').join('/'), /folders deep/],
  ])('%j is refused', (input, message) => {
    expect(() => normalizePath(input)).toThrow(message);
  });

  test('the root is refused where a file is needed', () => {
    expect(() => normalizePath('/', { allowRoot: false })).toThrow(/not the workspace root/);
  });
});

describe('text paging', () => {
  const text = Array.from({ length: 250 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

  test('a short text comes back whole', () => {
    expect(pageText('a\nb\r\nc\n', '/s.txt')).toEqual({ content: 'a\nb\nc', total_lines: 3, offset: 1, limit: 3 });
    expect(pageText('', '/e.txt')).toEqual({ content: '', total_lines: 0, offset: 1, limit: 0 });
  });

  test(`more than ${PAGE_LINES} lines need offset/limit, and the error says how`, () => {
    expect(() => pageText(text, '/long.txt')).toThrow(/has 250 lines.*"offset": 1, "limit": 200.*offset 201/);
  });

  test('pages by lines, with the next offset', () => {
    expect(pageText(text, '/long.txt', 1, 200)).toMatchObject({ offset: 1, limit: 200, total_lines: 250, next_offset: 201 });
    const last = pageText(text, '/long.txt', 201);
    expect(last).toMatchObject({ offset: 201, limit: 50, total_lines: 250 });
    expect(last.next_offset).toBeUndefined();
    expect(last.content.split('\n')[0]).toBe('line 201');
  });

  test('bad pages are refused with the reason', () => {
    expect(() => pageText(text, '/long.txt', 1, 201)).toThrow(/at most 200/);
    expect(() => pageText(text, '/long.txt', 251, 10)).toThrow(/only 250 lines/);
    expect(() => pageText(text, '/long.txt', 0, 10)).toThrow(/starts at 1/);
  });

  test('lines split at \\n and \\r\\n; a final newline adds no line', () => {
    expect(splitLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });
});

describe('content', () => {
  test('data: URLs: base64, percent-encoded, and broken ones', () => {
    expect(parseDataUrl('data:image/png;base64,iVBORw0KGgo=')).toMatchObject({ mime: 'image/png' });
    expect([...parseDataUrl('data:image/png;base64,iVBORw0KGgo=')!.bytes.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(new TextDecoder().decode(parseDataUrl('data:,Hello%20world')!.bytes)).toBe('Hello world');
    expect(parseDataUrl('just text, not a data URL')).toBeNull();
    expect(() => parseDataUrl('data:application/octet-stream;base64,@@@')).toThrow(/not valid base64/);
  });

  test('text or binary, and the MIME type', () => {
    expect(isText(new TextEncoder().encode('héllo wörld'))).toBe(true);
    expect(isText(new Uint8Array([0x68, 0x00, 0x69]))).toBe(false);
    expect(isText(new Uint8Array([0xff, 0xfe, 0xfd]))).toBe(false);
    expect(guessMime('x.bin', new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe('image/png');
    expect(guessMime('doc.pdf', new Uint8Array([1, 2, 3]))).toBe('application/pdf');
    expect(guessMime('blob', new Uint8Array([0xff, 0xfe, 0x00]))).toBe('application/octet-stream');
  });
});

describe('the workspace over an origin-private file system', () => {
  let workspace: Workspace;
  let root: FileSystemDirectoryHandle;

  beforeEach(async () => {
    // A fresh in-memory origin-private file system for each test (the browsers' real one is
    // exercised end to end).
    root = await storageFactory().getDirectory();
    workspace = new Workspace(async () => withMove(root));
  });

  test('write creates folders; list shows folders first; read gives the bytes back', async () => {
    expect(await workspace.write('b/c/note.txt', 'hello')).toEqual({ path: '/b/c/note.txt', size: 5, created: true });
    await workspace.write('a.txt', 'top');
    const listing = await workspace.list();
    expect(listing.entries.map((e) => `${e.kind}:${e.name}`)).toEqual(['directory:b', 'file:a.txt']);
    expect(await (await workspace.file('/b/c/note.txt')).file.text()).toBe('hello');
    expect(await workspace.write('b/c/note.txt', 'again')).toMatchObject({ created: false });
  });

  test('the temporary folder of atomic writes is never listed and is outside the workspace', async () => {
    await workspace.write('x.txt', 'x');
    expect((await workspace.list()).entries.map((e) => e.name)).toEqual(['x.txt']);
    const names: string[] = [];
    for await (const [name] of root as unknown as AsyncIterable<[string]>) names.push(name);
    expect(names.sort()).toEqual([TEMP_DIR, 'workspace'].sort());
  });

  test('a write that fails leaves the old file whole and no partial file behind', async () => {
    await workspace.write('keep.txt', 'original');
    const failing = new Workspace(async () => withMove(root, { failWrites: true }));
    await expect(failing.write('keep.txt', 'replacement')).rejects.toThrow(/Could not write \/keep.txt: disk full\. Nothing was changed/);
    await expect(failing.write('new.txt', 'content')).rejects.toThrow(/Nothing was changed/);
    expect(await (await workspace.file('keep.txt')).file.text()).toBe('original');
    expect((await workspace.list()).entries.map((e) => e.name)).toEqual(['keep.txt']);
    const temp = await root.getDirectoryHandle(TEMP_DIR);
    const leftovers: string[] = [];
    for await (const [name] of temp as unknown as AsyncIterable<[string]>) leftovers.push(name);
    expect(leftovers).toEqual([]);
  });

  test('errors name what is wrong', async () => {
    await workspace.write('dir/file.txt', 'x');
    await expect(workspace.file('missing.txt')).rejects.toThrow(/no file or folder \/missing.txt.*opfs_list/);
    await expect(workspace.file('dir')).rejects.toThrow(/is a folder, not a file/);
    await expect(workspace.write('dir', 'x')).rejects.toThrow(/is a folder/);
    await expect(workspace.write('dir/file.txt/inner.txt', 'x')).rejects.toThrow(/\/dir\/file.txt is a file/);
    await expect(workspace.list('nope')).rejects.toThrow(/no file or folder/);
    await expect(workspace.write('dir/', 'x')).rejects.toThrow(/names a folder/);
  });

  test('delete removes a file or a whole folder, never the root', async () => {
    await workspace.write('d/1.txt', '1');
    await workspace.write('d/e/2.txt', '2');
    await workspace.write('f.txt', 'f');
    expect(await workspace.delete('f.txt')).toEqual({ path: '/f.txt', kind: 'file' });
    expect(await workspace.delete('/d/')).toEqual({ path: '/d', kind: 'directory' });
    expect((await workspace.list()).entries).toEqual([]);
    await expect(workspace.delete('/')).rejects.toThrow(/will not delete the whole workspace/);
    await expect(workspace.delete('gone.txt')).rejects.toThrow(/no file or folder/);
  });

  test('cleanTemp removes what interrupted writes left', async () => {
    const temp = await root.getDirectoryHandle(TEMP_DIR, { create: true });
    await temp.getFileHandle('stale.part', { create: true });
    await workspace.cleanTemp();
    await expect(root.getDirectoryHandle(TEMP_DIR)).rejects.toThrow();
  });
});

describe('Delete all data', () => {
  test('clear() removes every workspace file and folder, and the temporary folder', async () => {
    const dir = await storageFactory().getDirectory();
    const root = async () => withMove(dir);
    const ws = new Workspace(root);
    await ws.write('/notes/a.txt', 'a');
    await ws.write('/b.txt', 'b');
    await ws.clear();
    expect((await ws.list('/')).entries).toEqual([]);
    const names: string[] = [];
    for await (const name of (await root()).keys()) names.push(name);
    expect(names.filter((n) => n !== 'workspace')).not.toContain(TEMP_DIR);
  });
});

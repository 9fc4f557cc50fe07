/** Text files longer than this many lines must be read in pages (`offset`/`limit`). */
export const PAGE_LINES = 200;

/** A `data:` URL's bytes and type, or null when `content` is not a data URL. */
export function parseDataUrl(content: string): { bytes: Uint8Array; mime: string } | null {
  const match = /^data:([^,]*?),/i.exec(content.slice(0, 512));
  if (!match) return null;
  const meta = match[1]!;
  const payload = content.slice(match[0].length);
  const parts = meta.split(';').map((p) => p.trim());
  const base64 = parts.some((p) => p.toLowerCase() === 'base64');
  const mime = (parts[0] && parts[0].includes('/') ? parts[0] : 'text/plain').toLowerCase();
  if (base64) {
    const clean = payload.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.replace(/=+$/, '').length % 4 === 1) {
      throw new Error('The data: URL says base64 but its data is not valid base64. Encode the bytes with base64, or write plain text instead.');
    }
    const normal = clean.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(normal.padEnd(Math.ceil(normal.length / 4) * 4, '='));
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return { bytes, mime };
  }
  let text: string;
  try {
    text = decodeURIComponent(payload);
  } catch {
    throw new Error('The data: URL has broken %-escapes. Use base64 (data:…;base64,…) or write plain text instead.');
  }
  return { bytes: new TextEncoder().encode(text), mime };
}

/**
 * Whether bytes are text: valid UTF-8 without NUL bytes (looked at in the first 64 KiB). A UTF-8
 * sequence cut at that boundary still counts as text.
 */
export function isText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 65_536);
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return true;
  } catch {
    return false;
  }
}

const MIME_BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', tsv: 'text/tab-separated-values', json: 'application/json',
  html: 'text/html', htm: 'text/html', css: 'text/css', js: 'text/javascript', mjs: 'text/javascript', ts: 'text/plain',
  xml: 'application/xml', svg: 'image/svg+xml', yaml: 'application/yaml', yml: 'application/yaml',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', ico: 'image/x-icon',
  bmp: 'image/bmp', avif: 'image/avif', pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip',
  wasm: 'application/wasm', mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', mp4: 'video/mp4', webm: 'video/webm',
  woff: 'font/woff', woff2: 'font/woff2',
};

/** The MIME type of a file: from its first bytes when they say, else from its extension. */
export function guessMime(name: string, bytes: Uint8Array): string {
  const b = bytes;
  const starts = (...sig: number[]) => sig.every((v, i) => b[i] === v);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'application/pdf';
  if (starts(0x52, 0x49, 0x46, 0x46) && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50) return 'image/webp';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'application/zip';
  if (starts(0x1f, 0x8b)) return 'application/gzip';
  if (starts(0x00, 0x61, 0x73, 0x6d)) return 'application/wasm';
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (ext && MIME_BY_EXTENSION[ext]) || (isText(bytes) ? 'text/plain' : 'application/octet-stream');
}

/** One page of a text, by lines. */
export interface TextPage {
  content: string;
  total_lines: number;
  /** 1-based line number of the first line returned. */
  offset: number;
  /** Lines returned. */
  limit: number;
  /** The offset to read next, when there is more. */
  next_offset?: number;
}

/** The lines of a text: split at \n or \r\n; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * Pages a text by lines. Without `offset`/`limit` the whole text comes back when it has at most
 * 200 lines; a longer one is refused with a message saying how to page. `limit` is at most 200.
 */
export function pageText(text: string, path: string, offset?: number, limit?: number): TextPage {
  const lines = splitLines(text);
  const total = lines.length;
  if (offset === undefined && limit === undefined) {
    if (total > PAGE_LINES) {
      throw new Error(
        `${path} has ${total} lines; texts over ${PAGE_LINES} lines are read in pages. Call opfs_read with offset and limit, e.g. {"path": "${path}", "offset": 1, "limit": ${PAGE_LINES}}, then offset ${PAGE_LINES + 1}, and so on.`,
      );
    }
    return { content: lines.join('\n'), total_lines: total, offset: 1, limit: total };
  }
  const from = offset ?? 1;
  const count = limit ?? PAGE_LINES;
  if (!Number.isInteger(from) || from < 1) throw new Error('offset is a line number and starts at 1.');
  if (!Number.isInteger(count) || count < 1) throw new Error('limit is a number of lines, at least 1.');
  if (count > PAGE_LINES) throw new Error(`limit may be at most ${PAGE_LINES} lines; read the rest with a next call at a higher offset.`);
  if (total === 0) return { content: '', total_lines: 0, offset: 1, limit: 0 };
  if (from > total) throw new Error(`${path} has only ${total} lines; offset must be between 1 and ${total}.`);
  const slice = lines.slice(from - 1, from - 1 + count);
  const page: TextPage = { content: slice.join('\n'), total_lines: total, offset: from, limit: slice.length };
  if (from - 1 + slice.length < total) page.next_offset = from + slice.length;
  return page;
}

import { browser } from 'wxt/browser';
import { ensureOffscreenDocument } from '@/core/dom/host';
import { Workspace } from './workspace';

/** Blob URLs kept alive at once; the oldest is revoked when more are made. */
export const MAX_BLOB_URLS = 50;

/** The message the background sends the offscreen document (Chrome) to make a blob URL. */
export interface OffscreenBlobRequest {
  to: 'sidequest-offscreen';
  type: 'blob-url';
  path: string;
}

/**
 * Blob URLs for workspace files, made where the context can: a Firefox background page has
 * `URL.createObjectURL`; Chrome's MV3 service worker does not, so there an offscreen document
 * (reason BLOBS) reads the file from the same OPFS and makes the URL. The URL belongs to the
 * extension's origin: its own pages can show or download it; web pages cannot load it.
 */
export async function workspaceBlobUrl(path: string, file: File): Promise<string> {
  if (typeof URL.createObjectURL === 'function') return keep(URL.createObjectURL(file));
  await ensureOffscreenDocument().catch((error: Error) => {
    throw new Error(`This browser can make no blob URL here (${error.message}); read the file in text mode instead.`);
  });
  const request: OffscreenBlobRequest = { to: 'sidequest-offscreen', type: 'blob-url', path };
  const reply = (await browser.runtime.sendMessage(request)) as { url?: string; error?: string } | undefined;
  if (!reply?.url) throw new Error(`Could not make a blob URL for ${path}: ${reply?.error ?? 'the offscreen document did not answer'}.`);
  return reply.url;
}

const urls: string[] = [];

/** Remembers a URL and revokes the oldest beyond the limit (each holds its file in memory). */
export function keep(url: string): string {
  urls.push(url);
  while (urls.length > MAX_BLOB_URLS) URL.revokeObjectURL(urls.shift()!);
  return url;
}

/** Answers `OffscreenBlobRequest`s; runs in the offscreen document. */
export function serveBlobUrls(workspace = new Workspace()): void {
  browser.runtime.onMessage.addListener((message: unknown) => {
    const request = message as Partial<OffscreenBlobRequest> | undefined;
    if (request?.to !== 'sidequest-offscreen' || request.type !== 'blob-url' || typeof request.path !== 'string') return undefined;
    return workspace
      .file(request.path)
      .then(({ file }) => ({ url: keep(URL.createObjectURL(file)) }))
      .catch((error: Error) => ({ error: error.message }));
  });
}

import { defineOffscreenGroup } from '@/core/offscreen/jobs';
import { Workspace } from './workspace';

/** Blob URLs kept alive at once; the oldest is revoked when more are made. */
export const MAX_BLOB_URLS = 50;

const urls: string[] = [];

/** Remembers a URL and revokes the oldest beyond the limit (each holds its file in memory). */
export function keep(url: string): string {
  urls.push(url);
  while (urls.length > MAX_BLOB_URLS) URL.revokeObjectURL(urls.shift()!);
  return url;
}

/**
 * Blob URLs for workspace files, made where the context can: a Firefox background page has
 * `URL.createObjectURL`; Chrome's MV3 service worker does not, so there the offscreen document
 * reads the file from the same OPFS and makes the URL. The URL belongs to the extension's origin:
 * its own pages can show or download it; web pages cannot load it.
 */
export const workspaceJobs = defineOffscreenGroup({
  name: 'workspace',
  runsHere: () => typeof URL.createObjectURL === 'function',
  jobs: {
    async blobUrl({ path, mime }: { path: string; mime: string }): Promise<string> {
      const { file } = await new Workspace().file(path);
      return keep(URL.createObjectURL(new File([file], file.name, { type: mime, lastModified: file.lastModified })));
    },
  },
});

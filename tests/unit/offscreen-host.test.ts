// Where the background runs an offscreen job: in place for a group it was given (Firefox's
// background page, entrypoints/background.ts), else in Chrome's offscreen document; and which
// modules build/offscreen-only.ts keeps out of Chrome's background bundle.
import { describe, expect, test } from 'vitest';
import { isOffscreenOnly } from '@/build/offscreen-only';
import { runOffscreenJob, runOffscreenJobsHere } from '@/core/offscreen/host';
import { defineOffscreenGroup, offscreenRef } from '@/core/offscreen/jobs';

const echo = defineOffscreenGroup({ name: 'echo-here', runsHere: () => true, jobs: { twice: ({ n }: { n: number }) => n * 2 } });

describe('offscreen jobs from the background', () => {
  test('a group given to the background runs in place, by its reference', async () => {
    runOffscreenJobsHere([echo]);
    await expect(runOffscreenJob(offscreenRef<typeof echo>('echo-here'), 'twice', { n: 21 })).resolves.toBe(42);
  });

  test('a group it was not given goes to the offscreen document (none in this test: a clear error)', async () => {
    await expect(runOffscreenJob(offscreenRef<typeof echo>('echo-elsewhere'), 'twice', { n: 1 })).rejects.toThrow(/offscreen documents/);
  });

  test('a given group that cannot run here goes to the offscreen document too', async () => {
    runOffscreenJobsHere([defineOffscreenGroup({ name: 'no-dom', runsHere: () => false, jobs: { x: () => 1 } })]);
    await expect(runOffscreenJob(offscreenRef('no-dom'), 'x', undefined)).rejects.toThrow(/offscreen documents/);
  });

  test('what Chrome\'s background bundle must not hold, and what it keeps', () => {
    for (const id of ['/r/node_modules/@mozilla/readability/Readability.js', '/r/node_modules/turndown/lib/turndown.browser.es.js', '/r/node_modules/turndown-plugin-gfm/lib/turndown-plugin-gfm.es.js', '/p/core/extract/extract.ts', '/p/core/extract/page.ts', '/p/plugins/web/offscreen.ts', '/p/plugins/scripting/offscreen.ts?x']) {
      expect(isOffscreenOnly(id), id).toBe(true);
    }
    for (const id of ['/p/core/extract/limit.ts', '/p/core/extract/page-reading.ts', '/p/plugins/offscreen.ts', '/p/plugins/web/index.ts', '/p/core/offscreen/host.ts']) {
      expect(isOffscreenOnly(id), id).toBe(false);
    }
  });
});

/**
 * A Vite plugin that keeps the offscreen jobs' code out of Chrome's background bundle.
 *
 * Chrome's service worker has no DOM, no `Worker`, no blob URLs: it sends every plugin's offscreen
 * job (plugins/<id>/offscreen.ts) to the offscreen document and never runs one itself. Firefox's
 * background page runs them in place. entrypoints/background.ts says so once, at build time:
 * `if (import.meta.env.FIREFOX) runOffscreenJobsHere(builtinOffscreenJobs)`; the plugins' own code
 * names its groups by type only (`offscreenRef`, core/offscreen/jobs.ts).
 *
 * In Chrome's build that leaves `plugins/offscreen.ts` imported and unused, which drops it only if
 * the bundler knows its modules do nothing when evaluated. They do nothing but define (Readability
 * and Turndown, core/extract, the job groups), but a bundler cannot prove it of a CommonJS module
 * or of a top-level `createMarkdownConverter()`: this plugin tells it, for those modules only.
 * Where they are used (the offscreen document, the page-reading script, Firefox's background) they
 * are bundled and evaluated as before.
 *
 * It also checks the outcome, so a later import cannot undo it unseen: a Chrome build fails if its
 * `background.js` holds any of these modules, a Firefox build if its background lacks the groups.
 */
import type { Plugin } from 'vite';

/**
 * The modules that only define: the extraction libraries (pdf.js too), core/extract (but for what
 * the background itself uses: the reading limits, the page-reading script's answer, the PDF
 * reading's limits and job reference), the plugins' job groups and the core's (core/extract/pdf-jobs.ts).
 */
const OFFSCREEN_ONLY = [
  /[\\/]node_modules[\\/](?:@mozilla[\\/]readability|turndown|turndown-plugin-gfm|pdfjs-dist)[\\/]/,
  /[\\/]core[\\/]extract[\\/](?!limit\.ts$|page-reading\.ts$|pdf-reading\.ts$)[^\\/]+\.ts$/,
  /[\\/]plugins[\\/][\w-]+[\\/]offscreen\.ts$/,
];
/** The background's chunk (with the chunks it imports, where the background is a module). */
const BACKGROUND_FILE = 'background.js';

export const isOffscreenOnly = (id: string): boolean => OFFSCREEN_ONLY.some((re) => re.test(id.replace(/\?.*$/, '')));

export function offscreenOnly(browser: string): Plugin {
  return {
    name: 'sidequest:offscreen-only',
    transform(code, id) {
      return isOffscreenOnly(id) ? { code, map: null, moduleSideEffects: false } : null;
    },
    generateBundle(_options, bundle) {
      const background = bundle[BACKGROUND_FILE];
      if (background?.type !== 'chunk') return;
      const ids: string[] = [];
      const seen = new Set<string>();
      const visit = (fileName: string) => {
        const chunk = bundle[fileName];
        if (seen.has(fileName) || chunk?.type !== 'chunk') return;
        seen.add(fileName);
        ids.push(...chunk.moduleIds);
        chunk.imports.forEach(visit);
      };
      visit(BACKGROUND_FILE);
      if (browser === 'firefox') {
        if (!ids.some((id) => /[\\/]plugins[\\/]offscreen\.ts$/.test(id))) {
          this.error('offscreen-only: Firefox\'s background.js lacks plugins/offscreen.ts; its background page runs the offscreen jobs itself (entrypoints/background.ts).');
        }
        return;
      }
      const found = ids.filter(isOffscreenOnly);
      if (found.length) {
        this.error(`offscreen-only: Chrome's background.js holds code only the offscreen document runs: ${found.join(', ')}. Import it by type (offscreenRef, core/offscreen/jobs.ts) or move what the background needs out of it.`);
      }
    },
  };
}

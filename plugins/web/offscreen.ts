import { extractPage, type ExtractMethod } from '@/core/extract';
import { defineOffscreenGroup } from '@/core/offscreen/jobs';
import { parseSearchPage, type SearchPage } from './search/engines';

/**
 * The web plugin's work that needs an HTML parser: in Firefox's background page itself, in
 * Chrome's offscreen document (its service worker has no `DOMParser`).
 */
export const webJobs = defineOffscreenGroup({
  name: 'web',
  runsHere: () => typeof DOMParser === 'function',
  jobs: {
    /** Fetched HTML → the page's main content as Markdown (see core/extract). */
    extractHtml({ html, url }: { html: string; url: string }): { title: string; markdown: string; method: ExtractMethod } {
      const parse = () => new DOMParser().parseFromString(html, 'text/html');
      const { title, markdown, method } = extractPage(parse(), { baseUrl: url, reparse: parse });
      return { title, markdown, method };
    },
    /** A search engine's HTML results page → its results, or what kind of page it was instead. */
    parseSearchPage({ engine, html, url }: { engine: string; html: string; url: string }): SearchPage {
      return parseSearchPage(engine, new DOMParser().parseFromString(html, 'text/html'), url);
    },
  },
});

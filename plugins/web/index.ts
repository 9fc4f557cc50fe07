import type { FromSchema } from 'json-schema-to-ts';
import { summarize } from '@/core/agent/summarize';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { webFetch, FETCH_TIMEOUT_MS, type WebFetchDeps, type WebFetchResult } from './fetch';
import { webJobs } from './offscreen';
import './protocol';
import { webSchemas } from './schemas';
import { clampResults, type SearchResult } from './search/engines';
import { SearchService } from './search/service';
import { searchStore } from './search/settings';

/** What the web tools use. */
export interface WebService {
  search: Pick<SearchService, 'search'>;
  fetch: WebFetchDeps;
}

/** A summary may take the model a while after the 30 s fetch. */
const SUMMARY_ALLOWANCE_MS = 90_000;

export const webFetchTool = defineTool<FromSchema<typeof webSchemas.web_fetch>, WebFetchResult, WebService>({
  name: 'web_fetch',
  description:
    'Fetch a web address (http/https) with a new request and read it: HTML pages come back as Markdown of their main content (navigation, sidebars and ads removed, title first), JSON parsed, plain text as it is. Give prompt to get only a summary of what you need (saves context on long pages). For a page the user has open, possibly behind a login, read the open tab instead. Returns {url, content_type, content, truncated, final_url}.',
  inputSchema: webSchemas.web_fetch,
  timeoutMs: FETCH_TIMEOUT_MS + SUMMARY_ALLOWANCE_MS,
  // A request to any address: what it sends (the URL itself) leaves the browser.
  annotations: { readOnly: true, destructive: false, openWorld: true, target: (input: { url: string }) => ({ url: input.url }) },
  execute: (input, { signal, service }) => webFetch(input, signal, service.fetch),
});

export const webSearchTool = defineTool<FromSchema<typeof webSchemas.web_search>, SearchResult[], WebService>({
  name: 'web_search',
  description:
    'Search the web with the search engine the user chose in Settings (DuckDuckGo by default) and get [{title, url, snippet}], 5 results by default, at most 10. Then read promising results with web_fetch.',
  inputSchema: webSchemas.web_search,
  annotations: { readOnly: true, destructive: false, openWorld: true },
  execute: ({ query, max_results }, { signal, service }) => service.search.search(query, clampResults(max_results), signal),
});

/** The built-in `web` plugin: fetch pages and search the web. */
export const webPlugin = definePlugin<WebService>({
  id: 'web',
  name: 'Web',
  description: 'Search the web and read pages by their address.',
  tools: [webSearchTool, webFetchTool],
  setup(ctx) {
    const search = new SearchService(searchStore(ctx.storage), {
      fetch: (input, init) => fetch(input, init),
      parsePage: (engine, html, url) => ctx.offscreen(webJobs, 'parseSearchPage', { engine, html, url }),
    });
    ctx.handle('getSearchSettings', () => search.view());
    ctx.handle('saveSearchSettings', (data) => search.save(data));
    ctx.handle('testSearch', (data) => search.test(data));
    return {
      service: {
        search,
        fetch: {
          fetch: (url, init) => fetch(url, init),
          htmlToMarkdown: async (html, url) => (await ctx.offscreen(webJobs, 'extractHtml', { html, url })).markdown,
          summarize: async (request) => summarize(await ctx.getModelClient(), request),
        },
      },
    };
  },
});

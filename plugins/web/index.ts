import type { FromSchema } from 'json-schema-to-ts';
import { summarize } from '@/core/agent/summarize';
import type { ModelClient } from '@/core/agent/provider';
import { runDomOp } from '@/core/dom/host';
import { clampResults, type SearchResult } from '@/core/search/engines';
import type { SearchService } from '@/core/search/service';
import { definePlugin, defineTool } from '@/core/registry/registry';
import { webFetch, FETCH_TIMEOUT_MS, type WebFetchResult } from './fetch';
import { webSchemas } from './schemas';

export interface WebPluginServices {
  search: Pick<SearchService, 'search'>;
  getModelClient(): Promise<ModelClient>;
}

/** A summary may take the model a while after the 30 s fetch. */
const SUMMARY_ALLOWANCE_MS = 90_000;

export function createWebFetch(services: Pick<WebPluginServices, 'getModelClient'>) {
  return defineTool<FromSchema<typeof webSchemas.web_fetch>, WebFetchResult>({
    name: 'web_fetch',
    description:
      'Fetch a web address (http/https) with a new request and read it: HTML pages come back as Markdown of their main content (navigation, sidebars and ads removed, title first), JSON parsed, plain text as it is. Give prompt to get only a summary of what you need (saves context on long pages). For a page the user has open, possibly behind a login, use get_tab_content instead. Returns {url, content_type, content, truncated, final_url}.',
    inputSchema: webSchemas.web_fetch,
    timeoutMs: FETCH_TIMEOUT_MS + SUMMARY_ALLOWANCE_MS,
    execute: (input, { signal }) =>
      webFetch(input, signal, {
        fetch: (url, init) => fetch(url, init),
        htmlToMarkdown: async (html, url) => (await runDomOp('extractHtml', { html, url })).markdown,
        summarize: async (request) => summarize(await services.getModelClient(), request),
      }),
  });
}

export function createWebSearch(services: Pick<WebPluginServices, 'search'>) {
  return defineTool<FromSchema<typeof webSchemas.web_search>, SearchResult[]>({
    name: 'web_search',
    description:
      'Search the web with the search engine the user chose in Settings (DuckDuckGo by default) and get [{title, url, snippet}], 5 results by default, at most 10. Then read promising results with web_fetch.',
    inputSchema: webSchemas.web_search,
    execute: ({ query, max_results }, { signal }) => services.search.search(query, clampResults(max_results), signal),
  });
}

/** The built-in `web` plugin: fetch pages and search the web. */
export function createWebPlugin(services: WebPluginServices) {
  return definePlugin({
    id: 'web',
    source: 'builtin',
    name: 'Web',
    description: 'Search the web and read pages by their address.',
    tools: [createWebSearch(services), createWebFetch(services)],
  });
}

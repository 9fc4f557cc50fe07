import type { FromSchema } from 'json-schema-to-ts';
import { summarize } from '@/core/agent/summarize';
import { browserAddressProbe } from '@/core/net/address';
import { sameOrigin } from '@/core/net/origin';
import { readPdf } from '@/core/extract/pdf-reading';
import { offscreenRef } from '@/core/offscreen/jobs';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { untrusted } from '@/core/registry/untrusted';
import { checkFetchUrl, webFetch, FETCH_TIMEOUT_MS, type WebFetchDeps, type WebFetchResult } from './fetch';
import { localAllowList } from './local-allow';
import type { webJobs } from './offscreen';
import './protocol';
import { webSchemas } from './schemas';
import { clampResults, type SearchResult } from './search/engines';
import { SearchService } from './search/service';
import { searchSettingsFile, searchStore } from './search/settings';

/** The jobs of ./offscreen.ts, by name: their code runs in Chrome's offscreen document or Firefox's background page (core/offscreen/host.ts). */
const offscreen = offscreenRef<typeof webJobs>('web');

/** What the web tools use. */
export interface WebService {
  search: Pick<SearchService, 'search' | 'target'>;
  fetch: WebFetchDeps;
  /** Summarizes with the model of the conversation `conversationId`. */
  summarize(request: Parameters<WebFetchDeps['summarize']>[0], conversationId?: string): Promise<string>;
}

/** A summary may take the model a while after the 30 s fetch. */
const SUMMARY_ALLOWANCE_MS = 90_000;

export const webFetchTool = defineTool<FromSchema<typeof webSchemas.web_fetch>, WebFetchResult, WebService>({
  name: 'web_fetch',
  description:
    'Fetch a public web address and read its main content as Markdown (a PDF with page markers, JSON and text as they are), as untrusted data; read a page open in a tab from the tab instead.',
  inputSchema: webSchemas.web_fetch,
  alwaysOffered: true,
  timeoutMs: FETCH_TIMEOUT_MS + SUMMARY_ALLOWANCE_MS,
  // The one parse of the address: the gate's target and the request get the same href.
  prepare: (input) => ({ ...input, url: checkFetchUrl(input.url).href }),
  // A request to any address: what it sends (the URL itself) leaves the browser.
  annotations: { readOnly: true, destructive: false, openWorld: true, target: (input: { url: string }) => ({ url: input.url }) },
  execute: (input, { signal, service, conversationId, approvedUrl, reach }) =>
    webFetch(input, signal, {
      ...service.fetch,
      // An address on the user's own network is fetched when the user allowed this call to reach
      // it (the approval gate asked), else only where the plugin allows it (the providers, tests).
      allowLocal: async (url) => sameOrigin(approvedUrl, url) || Boolean(await service.fetch.allowLocal?.(url)),
      // Redirect hops, and a name that leads into the user's network, go to the gate on the way.
      ...(reach ? { reach } : {}),
      summarize: (request) => service.summarize(request, conversationId),
    }),
});

export const webSearchTool = defineTool<FromSchema<typeof webSchemas.web_search>, string, WebService>({
  name: 'web_search',
  description:
    'Search the web with the user\'s chosen engine for results (title, url, snippet) as untrusted data; read promising ones with web_fetch.',
  inputSchema: webSchemas.web_search,
  alwaysOffered: true,
  // The query goes to the engine the user chose in settings (so not asked about as their own
  // network, as a provider's address is not): after a private read it may carry that data.
  annotations: {
    readOnly: true,
    destructive: false,
    openWorld: true,
    target: async (input: { query: string }, { service }) => ({ url: await (service as WebService).search.target(input.query), configured: true }),
  },
  execute: async ({ query, max_results }, { signal, service }) =>
    untrusted(`web search results for "${query}"`, (await service.search.search(query, clampResults(max_results), signal)) satisfies SearchResult[]),
});

/** The built-in `web` plugin: fetch pages and search the web. */
export const webPlugin = definePlugin<WebService>({
  id: 'web',
  name: 'Web',
  description: 'Search the web and read pages by their address.',
  tools: [webSearchTool, webFetchTool],
  settingsFile: searchSettingsFile,
  setup(ctx) {
    // The user's model providers (a local Ollama, say) are theirs to reach.
    const allowLocal = localAllowList(ctx.storage, ctx.configuredOrigins);
    const probe = browserAddressProbe();
    const search = new SearchService(searchStore(ctx.storage), {
      fetch: (input, init) => fetch(input, init),
      probe,
      parsePage: (engine, html, url) => ctx.offscreen(offscreen, 'parseSearchPage', { engine, html, url }),
    });
    ctx.handle('getSearchSettings', () => search.view());
    ctx.handle('saveSearchSettings', (data) => search.save(data));
    ctx.handle('testSearch', (data) => search.test(data));
    return {
      service: {
        search,
        fetch: {
          fetch: (url, init) => fetch(url, init),
          allowLocal,
          probe,
          htmlToMarkdown: async (html, url) => (await ctx.offscreen(offscreen, 'extractHtml', { html, url })).markdown,
          readPdf: (bytes, source) => readPdf(ctx.offscreen, bytes, source),
          summarize: async (request) => summarize(await ctx.getModelClient(), request),
        },
        // With the model of the conversation the call belongs to.
        summarize: async (request, conversationId) => summarize(await ctx.getModelClient(conversationId), request),
      },
    };
  },
});

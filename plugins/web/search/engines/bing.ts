import { defineEngine, httpError, jsonBody, missing, request, SearchError, unrecognized } from '../engine';

/** Bing Web Search API v7: JSON, with the user's subscription key. */
export const bing = defineEngine({
  id: 'bing',
  name: 'Bing',
  hint: 'search.hintBing',
  endpoint: 'https://api.bing.microsoft.com/v7.0/search',
  queryParam: 'q',
  key: {
    secretName: 'search.bing.apiKey',
    // Bing subscription keys are 32 hexadecimal characters; accept any plain token of sane length.
    shape: /^[A-Za-z0-9_-]{16,128}$/,
    words: {
      label: 'search.bingKey',
      hint: 'search.bingKeyHint',
      remove: 'search.removeBing',
      badShape: 'search.errors.bingKeyShape',
      missing: 'search.errors.bingKeyMissing',
      imported: 'search.import.bingKey',
    },
  },
  async search(q, n, run) {
    const { config } = run;
    if (!config.apiKey) throw missing(run.engine, 'an API key (Bing Web Search subscription key)');
    const url = new URL(config.endpoint);
    url.searchParams.set('q', q);
    url.searchParams.set('count', String(n));
    url.searchParams.set('textDecorations', 'false');
    url.searchParams.set('textFormat', 'Raw');
    url.searchParams.set('responseFilter', 'Webpages');
    const response = await request(run, url.href, { headers: { 'Ocp-Apim-Subscription-Key': config.apiKey, Accept: 'application/json' } });
    const body = await jsonBody(response);
    if (!response.ok) {
      const detail: string | undefined = body?.error?.message ?? body?.errors?.[0]?.message;
      throw httpError(run.engine, response.status, detail);
    }
    if (!body || typeof body !== 'object') throw unrecognized(run.engine, 'the answer was not JSON');
    if (body._type === 'ErrorResponse') {
      throw new SearchError('bing', `Bing refused the search: ${body.errors?.[0]?.message ?? 'no reason given'}.`);
    }
    if (body._type !== 'SearchResponse') throw unrecognized(run.engine, 'the answer was not a SearchResponse');
    const pages = body.webPages?.value;
    if (pages === undefined) return [];
    if (!Array.isArray(pages)) throw unrecognized(run.engine, 'webPages.value is not a list');
    return pages
      .filter((p: any) => typeof p?.url === 'string' && /^https?:\/\//i.test(p.url))
      .slice(0, n)
      .map((p: any) => ({ title: String(p.name ?? ''), url: p.url as string, snippet: String(p.snippet ?? '') }));
  },
});

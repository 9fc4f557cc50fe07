import { defineEngine, httpError, jsonBody, missing, request, unrecognized } from '../engine';

/** Google Custom Search JSON API: the user's API key and search engine ID (`cx`). */
export const google = defineEngine({
  id: 'google',
  name: 'Google Custom Search',
  hint: 'search.hintGoogle',
  endpoint: 'https://www.googleapis.com/customsearch/v1',
  queryParam: 'q',
  needsCseId: true,
  key: {
    secretName: 'search.google.apiKey',
    // "AIza" and 35 more characters.
    shape: /^AIza[0-9A-Za-z_-]{35}$/,
    words: {
      label: 'search.googleKey',
      hint: 'search.googleKeyHint',
      remove: 'search.removeGoogle',
      badShape: 'search.errors.googleKeyShape',
      missing: 'search.errors.googleKeyMissing',
      imported: 'search.import.googleKey',
    },
  },
  async search(q, n, run) {
    const { config } = run;
    if (!config.apiKey) throw missing(run.engine, 'an API key');
    if (!config.cseId) throw missing(run.engine, 'a search engine ID (cx)');
    const url = new URL(config.endpoint);
    url.searchParams.set('key', config.apiKey);
    url.searchParams.set('cx', config.cseId);
    url.searchParams.set('q', q);
    url.searchParams.set('num', String(n));
    const response = await request(run, url.href, { headers: { Accept: 'application/json' } });
    const body = await jsonBody(response);
    if (!response.ok) {
      const detail: string | undefined = body?.error?.message;
      if (response.status === 400 && /API key not valid/i.test(detail ?? '')) throw httpError(run.engine, 403, detail);
      throw httpError(run.engine, response.status, detail);
    }
    if (!body || typeof body !== 'object') throw unrecognized(run.engine, 'the answer was not JSON');
    if (body.kind !== 'customsearch#search') throw unrecognized(run.engine, 'the answer was not a customsearch#search');
    if (body.items === undefined) return [];
    if (!Array.isArray(body.items)) throw unrecognized(run.engine, 'items is not a list');
    return body.items
      .filter((i: any) => typeof i?.link === 'string' && /^https?:\/\//i.test(i.link))
      .slice(0, n)
      .map((i: any) => ({ title: String(i.title ?? ''), url: i.link as string, snippet: String(i.snippet ?? '').replace(/\s+/g, ' ').trim() }));
  },
});

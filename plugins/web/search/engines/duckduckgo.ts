import { defineEngine, fromPage, httpError, request } from '../engine';
import { isWebUrl, text, type SearchPage, type SearchResult } from '../parse';

/** DuckDuckGo: its no-JavaScript results page (html.duckduckgo.com/html/), asked as its own form asks it (POST). */
export const duckduckgo = defineEngine({
  id: 'duckduckgo',
  name: 'DuckDuckGo',
  hint: 'search.hintDuckduckgo',
  endpoint: 'https://html.duckduckgo.com/html/',
  queryParam: 'q',
  readPage: (doc) => parseDuckDuckGo(doc),
  async search(q, n, run) {
    const { config, deps } = run;
    const body = new URLSearchParams({ q, b: '', kl: '' });
    const response = await request(run, config.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html' },
      body: body.toString(),
    });
    const html = await response.text();
    // The bot check answers (202 or 403) with its challenge page: say so rather than "HTTP 403".
    const page = await deps.parsePage('duckduckgo', html, response.url || config.endpoint);
    if (page.kind !== 'blocked' && !response.ok) throw httpError(run.engine, response.status, undefined);
    return fromPage(run.engine, page, n);
  },
});

/**
 * DuckDuckGo wraps result links as `//duckduckgo.com/l/?uddg=<the real URL, encoded>&rut=…`;
 * ads go through `duckduckgo.com/y.js`. Returns the real URL, '' for ads and unreadable links.
 */
export function unwrapDuckDuckGoLink(href: string | null): string {
  if (!href) return '';
  let url: URL;
  try {
    url = new URL(href, 'https://duckduckgo.com/');
  } catch {
    return '';
  }
  if (/(^|\.)duckduckgo\.com$/i.test(url.hostname)) {
    if (url.pathname === '/l/' || url.pathname === '/l') {
      const target = url.searchParams.get('uddg');
      return target && isWebUrl(target) ? target : '';
    }
    return ''; // y.js (ads) and other internal links
  }
  return isWebUrl(url.href) ? url.href : '';
}

export function parseDuckDuckGo(doc: Document): SearchPage {
  // The bot check answers with its own page: a challenge form ("Unfortunately, bots use
  // DuckDuckGo too…", "Select all squares containing a duck").
  if (doc.querySelector('form#challenge-form, #anomaly-modal, .anomaly-modal__modal') || /bots use DuckDuckGo too/i.test(text(doc.body))) {
    return { kind: 'blocked', detail: 'DuckDuckGo answered with its "are you a robot" challenge instead of results.' };
  }
  const results: SearchResult[] = [];
  const blocks = new Set(Array.from(doc.querySelectorAll('#links .result, .serp__results .result, .results .result')));
  for (const block of blocks) {
    if (block.matches('.result--ad, .result--no-result') || block.querySelector('.badge--ad')) continue;
    const link = block.querySelector<HTMLAnchorElement>('a.result__a');
    if (!link) continue;
    const url = unwrapDuckDuckGoLink(link.getAttribute('href'));
    const title = text(link);
    if (!url || !title) continue;
    results.push({ title, url, snippet: text(block.querySelector('.result__snippet')) });
  }
  if (results.length) return { kind: 'results', results };
  if (doc.querySelector('.no-results, .result--no-result')) return { kind: 'empty' };
  return { kind: 'unrecognized', detail: 'no result blocks (.result with a.result__a) and no "No results" notice were found' };
}

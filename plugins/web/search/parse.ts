/**
 * Reading search engines' HTML results pages (DuckDuckGo's no-JavaScript page, Baidu's results
 * page) from a `Document`. Each parser tells apart four pages: results, an honest "no results"
 * page, a block or CAPTCHA page, and a page whose layout it no longer recognises — so an empty
 * list is only ever returned for the second.
 */

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export type HtmlEngineId = 'duckduckgo' | 'baidu';

export type SearchPage =
  | { kind: 'results'; results: SearchResult[] }
  | { kind: 'empty' }
  | { kind: 'blocked'; detail: string }
  | { kind: 'unrecognized'; detail: string };

export function parseSearchPage(engine: HtmlEngineId, doc: Document, url: string): SearchPage {
  return engine === 'duckduckgo' ? parseDuckDuckGo(doc) : parseBaidu(doc, url);
}

function text(el: Element | null | undefined): string {
  return (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function isWebUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

// ——— DuckDuckGo (html.duckduckgo.com/html/) ———

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

// ——— Baidu (www.baidu.com/s) ———

/**
 * Baidu's redirect links (`www.baidu.com/link?url=…`) are opaque: they must be followed. A link
 * of the same shape on the results page's own host counts too (a test server standing in).
 */
export function isBaiduRedirect(url: string, pageUrl?: string): boolean {
  try {
    const u = new URL(url);
    if (!/\/link$/.test(u.pathname) || !u.searchParams.has('url')) return false;
    if (/(^|\.)baidu\.com$/i.test(u.hostname)) return true;
    return pageUrl !== undefined && new URL(pageUrl).origin === u.origin;
  } catch {
    return false;
  }
}

const BAIDU_SNIPPET = '[class*="content-right_"], [class*="summary-text_"], .c-abstract, [data-module="abstract"], .c-span-last';

export function parseBaidu(doc: Document, url: string): SearchPage {
  const title = doc.title ?? '';
  if (/wappass\.baidu\.com|\/captcha\//i.test(url) || /百度安全验证|安全验证/.test(title) || doc.querySelector('#verify, .vcode-spin, .passMod_dialog-wrapper')) {
    return { kind: 'blocked', detail: 'Baidu answered with its security check (百度安全验证) instead of results.' };
  }
  const container = doc.querySelector('#content_left');
  const results: SearchResult[] = [];
  const matched = new Set(container ? Array.from(container.querySelectorAll(':scope > .result, :scope > .c-container, :scope > div > .result, :scope > div > .c-container')) : []);
  // A result block holds an inner `.c-container` of its own: count the outer one only.
  const blocks = [...matched].filter((block) => !(block.parentElement && matched.has(block.parentElement)));
  for (const block of blocks) {
    // Ads (推广/广告) and Baidu's own "people also search" boxes are not results.
    if (block.matches('.ec_wise_ad, [data-tuiguang], [data-placeid]') || block.getAttribute('tpl') === 'recommend_list') continue;
    const link = block.querySelector<HTMLAnchorElement>('h3 a[href]');
    if (!link) continue;
    const resultTitle = text(link);
    const mu = block.getAttribute('mu') ?? '';
    const href = link.getAttribute('href') ?? '';
    const target = isWebUrl(mu) && !isBaiduRedirect(mu, url) ? mu : isWebUrl(href) ? href : '';
    if (!target || !resultTitle) continue;
    let snippet = text(block.querySelector(BAIDU_SNIPPET));
    if (!snippet) snippet = text(block).replace(resultTitle, '').trim().slice(0, 300);
    results.push({ title: resultTitle, url: target, snippet });
  }
  if (results.length) return { kind: 'results', results };
  if (doc.querySelector('.nors') || /抱歉没有找到/.test(text(container ?? doc.body))) return { kind: 'empty' };
  return { kind: 'unrecognized', detail: 'no result blocks (#content_left .result with an h3 link) and no "no results" notice were found' };
}

import { resolvesLocal } from '@/core/net/address';
import { addressKind, localNetworkKind } from '@/core/net/local-network';
import { sameOrigin } from '@/core/net/origin';
import { defineEngine, fromPage, httpError, request, type SearchDeps } from '../engine';
import { isWebUrl, text, type SearchPage, type SearchResult } from '../parse';

const REDIRECT_TIMEOUT_MS = 6_000;
/** Baidu's own redirect hops followed at most for one result link. */
const MAX_BAIDU_HOPS = 5;

/** Baidu: its results page (www.baidu.com/s); result links are redirects, followed to the real address. */
export const baidu = defineEngine({
  id: 'baidu',
  name: 'Baidu',
  hint: 'search.hintBaidu',
  endpoint: 'https://www.baidu.com/s',
  queryParam: 'wd',
  readPage: parseBaidu,
  async search(q, n, run) {
    const { config, deps, signal } = run;
    const url = new URL(config.endpoint);
    url.searchParams.set('wd', q);
    url.searchParams.set('rn', String(Math.max(n, 10)));
    url.searchParams.set('ie', 'utf-8');
    const response = await request(run, url.href, { headers: { Accept: 'text/html' } });
    if (!response.ok) throw httpError(run.engine, response.status, undefined);
    const html = await response.text();
    const pageUrl = response.url || url.href;
    const page = await deps.parsePage('baidu', html, pageUrl);
    const results = fromPage(run.engine, page, n);
    const engineOrigin = new URL(config.endpoint).origin;
    return Promise.all(
      results.map(async (r) => (isBaiduRedirect(r.url, pageUrl) ? { ...r, url: await followRedirect(r.url, pageUrl, engineOrigin, deps, signal) } : r)),
    );
  },
});

/**
 * Baidu's redirect links (`www.baidu.com/link?url=…`) are opaque: they must be followed. A link
 * of the same shape on the results page's own origin counts too (a test server standing in).
 */
export function isBaiduRedirect(url: string, pageUrl?: string): boolean {
  try {
    const u = new URL(url);
    if (!/\/link$/.test(u.pathname) || !u.searchParams.has('url')) return false;
    if (/(^|\.)baidu\.com$/i.test(u.hostname)) return true;
    return sameOrigin(pageUrl, u);
  } catch {
    return false;
  }
}

/**
 * Whether one of Baidu's own redirect hops may be requested: http(s), and not on the user's
 * network by its name or (Firefox) by the address it resolves to. The engine's configured origin
 * (the real one, or the tests' loopback override) is the user's choice and always may.
 */
async function baiduHopAllowed(url: URL, engineOrigin: string, deps: SearchDeps): Promise<boolean> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.origin === engineOrigin) return true;
  return !localNetworkKind(url) && !(await resolvesLocal(deps.probe, url.hostname));
}

/**
 * Finds where one of Baidu's `/link?url=…` redirects leads, without visiting it: Baidu's own hops
 * are followed by hand (`redirect: 'manual'`, at most `MAX_BAIDU_HOPS`), each checked like a
 * `web_fetch` hop before it is requested and by the address that answered, and the first address
 * outside Baidu is the result (named to the model, never requested here). When Baidu answers
 * with its JavaScript hop page, the address written in it. On failure or refusal the wrapped
 * link is kept: it still leads to the page.
 */
async function followRedirect(link: string, pageUrl: string, engineOrigin: string, deps: SearchDeps, signal: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(REDIRECT_TIMEOUT_MS);
  try {
    let url = new URL(link);
    for (let hop = 0; hop < MAX_BAIDU_HOPS; hop++) {
      if (!(await baiduHopAllowed(url, engineOrigin, deps))) return link;
      const watch = deps.probe?.watch?.(url.href);
      try {
        const response = await deps.fetch(url.href, { redirect: 'manual', credentials: 'omit', cache: 'no-store', signal: AbortSignal.any([signal, timeout]) });
        if (watch && url.origin !== engineOrigin) {
          const ip = await watch.address();
          if (ip === null || addressKind(ip)) {
            void response.body?.cancel().catch(() => undefined);
            return link;
          }
        }
        let location: string | null = null;
        if (response.type === 'opaqueredirect') location = (await watch?.location()) ?? null;
        else if (response.status >= 300 && response.status < 400) location = response.headers.get('location');
        if (location === null) {
          if (response.type === 'opaqueredirect' || !response.ok) return link;
          const page = (await response.text()).slice(0, 4000);
          const found = /(?:location\.replace\(|URL=)['"]?(https?:\/\/[^'")\s>]+)/i.exec(page)?.[1];
          return found && !isBaiduRedirect(found, pageUrl) ? found : link;
        }
        void response.body?.cancel().catch(() => undefined);
        const next = new URL(location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') return link;
        if (!isBaiduRedirect(next.href, pageUrl)) return next.href;
        url = next;
      } finally {
        watch?.stop();
      }
    }
    return link;
  } catch {
    return link;
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

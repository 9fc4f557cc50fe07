// web_search's four engines against a local server that answers with each engine's real result
// markup and JSON shapes (tests/fixtures/search-engines.mjs), over real HTTP.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clampResults, search, SearchError, type SearchConfig, type SearchDeps, type SearchEngineId } from '@/plugins/web/search/engines';
import { parseSearchPage } from '@/plugins/web/search/engines';
import { parseBaidu } from '@/plugins/web/search/engines/baidu';
import { parseDuckDuckGo, unwrapDuckDuckGoLink } from '@/plugins/web/search/engines/duckduckgo';
import { BING_KEY, GOOGLE_CX, GOOGLE_KEY, resultsFor, startSearchEngines } from '@/tests/fixtures/search-engines.mjs';
import { parseHtml } from '@/tests/unit/helpers/dom';

let engines: Awaited<ReturnType<typeof startSearchEngines>>;

const deps: SearchDeps = {
  fetch: (input, init) => fetch(input, init),
  parsePage: async (engine, html, url) => parseSearchPage(engine, parseHtml(html), url),
};

function config(engine: SearchEngineId, extra: Partial<SearchConfig> = {}): SearchConfig {
  const keys: Partial<SearchConfig> = engine === 'bing' ? { apiKey: BING_KEY } : engine === 'google' ? { apiKey: GOOGLE_KEY, cseId: GOOGLE_CX } : {};
  return { engine, endpoint: engines.endpoints[engine], ...keys, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<SearchError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SearchError);
  return error as SearchError;
}

beforeAll(async () => {
  engines = await startSearchEngines();
});
afterAll(async () => {
  await engines.close();
});

describe.each(['duckduckgo', 'bing', 'baidu', 'google'] as const)('%s', (engine) => {
  const name = { duckduckgo: 'DuckDuckGo', bing: 'Bing', baidu: 'Baidu', google: 'Google Custom Search' }[engine];

  test('returns title, real URL and snippet of each result, in order', async () => {
    const results = await search('open source browser', 3, config(engine), deps);
    const expected = resultsFor('open source browser');
    expect(results).toHaveLength(3);
    expect(results.map((r) => r.title)).toEqual(expected.slice(0, 3).map((r) => r.title));
    expect(results[0]!.snippet).toContain('Everything about open source browser');
    if (engine === 'baidu') {
      // The third result had only Baidu's redirect link: it was followed to where it leads.
      expect(results[2]!.url).toBe(`${engines.origin}/landing/3`);
      expect(results.slice(0, 2).map((r) => r.url)).toEqual(expected.slice(0, 2).map((r) => r.url));
    } else {
      expect(results.map((r) => r.url)).toEqual(expected.slice(0, 3).map((r) => r.url));
    }
    for (const r of results) expect(r.url).toMatch(/^https?:\/\//);
  });

  test('an honest "no results" answer is an empty list', async () => {
    expect(await search('nothing', 5, config(engine), deps)).toEqual([]);
  });

  test('a layout it no longer knows is an error naming the engine, not an empty list', async () => {
    const error = await failure(search('layout', 5, config(engine), deps));
    expect(error.message).toContain(name);
    expect(error.message).toMatch(/could not be read/);
  });

  test('a server error is an error naming the engine and the status', async () => {
    const error = await failure(search('http500', 5, config(engine), deps));
    expect(error.message).toContain(name);
    if (engine !== 'google') expect(error.message).toContain('HTTP 500');
  });
});

describe('blocks and keys', () => {
  test('DuckDuckGo\'s bot check (HTTP 202 challenge page) is reported as a CAPTCHA', async () => {
    const error = await failure(search('captcha', 5, config('duckduckgo'), deps));
    expect(error.message).toMatch(/DuckDuckGo blocked the search with a CAPTCHA/);
  });

  test('Baidu\'s security check (redirect to wappass … captcha) is reported as a CAPTCHA', async () => {
    const error = await failure(search('captcha', 5, config('baidu'), deps));
    expect(error.message).toMatch(/Baidu blocked the search with a CAPTCHA/);
    expect(error.message).toContain('百度安全验证');
  });

  test('Bing without a key says where to set one; with a wrong key, that the key was refused', async () => {
    let error = await failure(search('anything', 5, config('bing', { apiKey: undefined }), deps));
    expect(error.message).toMatch(/Bing needs an API key/);
    expect(error.message).toContain('Settings → Agent → Search engines');
    error = await failure(search('anything', 5, config('bing', { apiKey: 'ffffffffffffffffffffffffffffffff' }), deps));
    expect(error.message).toMatch(/Bing refused the API key \(HTTP 401\)/);
    expect(error.message).toContain('Access denied due to invalid subscription key');
  });

  test('Bing rate limiting (429) says to wait', async () => {
    const error = await failure(search('http429', 5, config('bing'), deps));
    expect(error.message).toMatch(/Bing is limiting requests \(HTTP 429\)/);
  });

  test('Google needs a key and an engine ID; a bad key is refused with Google\'s own words', async () => {
    expect((await failure(search('x', 5, config('google', { apiKey: undefined }), deps))).message).toMatch(/Google Custom Search needs an API key/);
    expect((await failure(search('x', 5, config('google', { cseId: undefined }), deps))).message).toMatch(/needs a search engine ID/);
    const error = await failure(search('x', 5, config('google', { apiKey: 'AIzaSyBAD0000000000000000000000000000000' }), deps));
    expect(error.message).toMatch(/refused the API key/);
    expect(error.message).toContain('API key not valid');
    expect((await failure(search('http429', 5, config('google'), deps))).message).toMatch(/HTTP 429/);
  });

  test('the Bing key travels in its header, and no engine gets cookies', async () => {
    await search('header check', 2, config('bing'), deps);
    const request = engines.requests.findLast((r) => r.engine === 'bing');
    expect(request?.headers['ocp-apim-subscription-key']).toBe(BING_KEY);
    expect(request?.headers.cookie).toBeUndefined();
  });

  test('an unreachable engine is an error naming it', async () => {
    const error = await failure(search('x', 5, config('duckduckgo', { endpoint: 'http://127.0.0.1:9/html/' }), deps));
    expect(error.message).toMatch(/DuckDuckGo could not be reached/);
  });

  test('an empty or overlong query is refused with a reason', async () => {
    expect((await failure(search('   ', 5, config('duckduckgo'), deps))).message).toMatch(/empty/);
    expect((await failure(search('x'.repeat(500), 5, config('duckduckgo'), deps))).message).toMatch(/at most 400/);
  });
});

describe('result counts', () => {
  test('default 5, at most 10: larger asks are clamped, not refused', () => {
    expect(clampResults(undefined)).toBe(5);
    expect(clampResults(3)).toBe(3);
    expect(clampResults(50)).toBe(10);
    expect(clampResults(0)).toBe(1);
    expect(clampResults(-4)).toBe(1);
    expect(clampResults(2.6)).toBe(3);
  });

  test('Google is asked for at most 10 (its API refuses more)', async () => {
    const results = await search('many', 25, config('google'), deps);
    expect(results.length).toBeLessThanOrEqual(10);
    expect(results.length).toBe(resultsFor('many').length);
  });
});

describe('parsers on their own', () => {
  test('DuckDuckGo links are unwrapped from /l/?uddg=…; ads are left out', () => {
    expect(unwrapDuckDuckGoLink('//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.example.com%2Fa%3Fb%3D1&rut=abc')).toBe('https://www.example.com/a?b=1');
    expect(unwrapDuckDuckGoLink('https://duckduckgo.com/y.js?ad_domain=x.com&u3=https%3A%2F%2Fx.com')).toBe('');
    expect(unwrapDuckDuckGoLink('https://direct.example.org/page')).toBe('https://direct.example.org/page');
    expect(unwrapDuckDuckGoLink('javascript:alert(1)')).toBe('');
  });

  test('a DuckDuckGo result with a hostile link is skipped, not passed on', () => {
    const doc = parseHtml(`<div id="links"><div class="result"><h2><a class="result__a" href="javascript:alert(1)">Evil</a></h2></div>
      <div class="result"><h2><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fok.example.com%2F">Fine</a></h2><a class="result__snippet">ok</a></div></div>`);
    expect(parseDuckDuckGo(doc)).toEqual({ kind: 'results', results: [{ title: 'Fine', url: 'https://ok.example.com/', snippet: 'ok' }] });
  });

  test('Baidu: `mu` gives the real URL; ads and related-search boxes are not results', () => {
    const doc = parseHtml(`<div id="content_left">
      <div class="result c-container ec_wise_ad" data-tuiguang="1"><h3><a href="http://www.baidu.com/baidu.php?url=x">广告</a></h3></div>
      <div class="result c-container" mu="https://zh.wikipedia.org/wiki/%E7%81%AB"><h3 class="t"><a href="http://www.baidu.com/link?url=abc">火 - 维基百科</a></h3><span class="content-right_8Zs40">火是一种现象</span></div>
    </div>`);
    expect(parseBaidu(doc, 'https://www.baidu.com/s?wd=x')).toEqual({
      kind: 'results',
      results: [{ title: '火 - 维基百科', url: 'https://zh.wikipedia.org/wiki/%E7%81%AB', snippet: '火是一种现象' }],
    });
  });
});

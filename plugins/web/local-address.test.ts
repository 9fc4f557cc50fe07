// The local network by address, and every redirect hop through the approval gate (ToolContext.reach):
// web_fetch against a real HTTP server on 127.0.0.1, reached under public-looking names. The
// browser's part is played by a probe that says what Firefox (`dns.resolve`) or Chrome (the
// answering `ip` of `webRequest`) would: which address a name resolves to or answered from.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AddressProbe } from '@/core/net/address';
import { addressKind, LOCAL_NETWORK_CODE, LocalNetworkError } from '@/core/net/local-network';
import type { ReachHow, ReachVerdict } from '@/core/registry/types';
import { unwrapUntrusted } from '@/core/registry/untrusted';
import { webFetchTool } from '@/plugins/web';
import { ReachRefusedError, webFetch, type WebFetchDeps } from '@/plugins/web/fetch';
import { testLocalOrigins } from '@/plugins/web/local-allow';

const SECRET = 'Router admin: wifi password hunter2';

let server: http.Server;
let port = 0;
/** What the server was asked, as `host path` (the name the request was made for). */
const served: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    served.push(`${req.headers['x-host']} ${path}`);
    const redirect = (to: string) => {
      res.writeHead(302, { location: to });
      res.end();
    };
    if (path === '/page') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(SECRET);
    }
    if (path === '/hop1') return redirect(`http://b.test:${port}/hop2?d=${encodeURIComponent('inbox text')}`);
    if (path === '/hop2') return redirect(`http://c.test:${port}/page`);
    if (path === '/to-lan') return redirect('http://192.168.1.1/admin');
    if (path === '/to-nas') return redirect(`http://nas.test:${port}/page`);
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Where each test name resolves (Firefox's answer) and answers from (the `ip` webRequest reports). */
const RESOLVES: Record<string, string[]> = {
  'nas.test': ['192.168.1.20'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'intranet.test': ['fd12::5', '10.1.2.3'],
  'a.test': ['203.0.113.1'],
  'b.test': ['203.0.113.2'],
  'c.test': ['203.0.113.3'],
  // Public when resolved, local when connected (DNS rebinding between the two).
  'rebind.test': ['203.0.113.9'],
};
const ANSWERS: Record<string, string> = { ...Object.fromEntries(Object.entries(RESOLVES).map(([h, a]) => [h, a[0]!])), 'rebind.test': '10.0.0.5' };

/** Every name is served by the test server; the name the request was for goes in `x-host`. */
const toServer: typeof fetch = (input, init) => {
  const url = new URL(String(input));
  const headers = { ...(init?.headers as Record<string, string>), 'x-host': url.hostname };
  return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { ...init, headers });
};

const firefox: AddressProbe = {
  resolve: async (host) => RESOLVES[host] ?? [],
  watch: (url) => ({ location: async () => null, address: async () => ANSWERS[new URL(url).hostname] ?? null, stop: () => undefined }),
};
const chrome: AddressProbe = { watch: firefox.watch };

/** A gate that records what it was asked (and what had been requested by then) and answers `answer`. */
function gate(answer: (url: string, how: ReachHow) => ReachVerdict | Promise<ReachVerdict>) {
  const asked: Array<{ url: string; how: ReachHow; servedBefore: string[] }> = [];
  return {
    asked,
    reach: async (url: string, how: ReachHow) => {
      asked.push({ url, how, servedBefore: [...served] });
      return answer(url, how);
    },
  };
}
const YES = (): ReachVerdict => ({ ok: true });
const NO = (): ReachVerdict => ({ ok: false, code: 'denied', error: 'The user declined this call. web_fetch was not run.' });

function deps(extra: Partial<WebFetchDeps>): WebFetchDeps {
  return {
    fetch: toServer,
    htmlToMarkdown: async (html) => html,
    summarize: async () => '',
    ...extra,
  };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

const signal = () => new AbortController().signal;
const url = (host: string, path = '/page') => `http://${host}:${port}${path}`;

describe('Firefox: the name is resolved before anything is sent', () => {
  test('a public-looking name that resolves to a private address is refused, never requested', async () => {
    served.length = 0;
    for (const host of ['nas.test', '127.0.0.1.nip.io', 'intranet.test']) {
      const error = await failure(webFetch({ url: url(host) }, signal(), deps({ probe: firefox })));
      expect(error, host).toBeInstanceOf(LocalNetworkError);
      expect((error as LocalNetworkError).code).toBe(LOCAL_NETWORK_CODE);
      expect(error.message).toMatch(new RegExp(`is served from ${RESOLVES[host]!.find((a) => addressKind(a))!.replace(/\./g, '\\.')}.*so it was not requested`));
    }
    expect(served).toEqual([]);
  });

  test('with a gate: the card asks first (localAddress), and the address is requested only after the yes', async () => {
    served.length = 0;
    const yes = gate(YES);
    const result = await webFetch({ url: url('nas.test') }, signal(), deps({ probe: firefox, reach: yes.reach }));
    expect(yes.asked).toEqual([{ url: url('nas.test'), how: { localAddress: '192.168.1.20' }, servedBefore: [] }]);
    expect(unwrapUntrusted(result.content)?.content).toBe(SECRET);

    served.length = 0;
    const no = gate(NO);
    const error = await failure(webFetch({ url: url('nas.test') }, signal(), deps({ probe: firefox, reach: no.reach })));
    expect(error).toBeInstanceOf(ReachRefusedError);
    expect((error as ReachRefusedError).code).toBe('denied');
    expect(error.message).not.toContain('hunter2');
    expect(served).toEqual([]);
  });

  test('a name that resolved public but answered from a local address (rebinding) is withheld too', async () => {
    served.length = 0;
    const error = await failure(webFetch({ url: url('rebind.test') }, signal(), deps({ probe: firefox })));
    expect(error).toBeInstanceOf(LocalNetworkError);
    expect(error.message).toMatch(/is served from 10\.0\.0\.5.*its answer was withheld/);
    expect(error.message).not.toContain('hunter2');
  });

  test('an allowed origin (configured, or the tests\' list) is read without asking', async () => {
    const asked = gate(NO);
    const result = await webFetch({ url: url('nas.test') }, signal(), deps({ probe: firefox, reach: asked.reach, allowLocal: (u) => u.hostname === 'nas.test' }));
    expect(unwrapUntrusted(result.content)?.content).toBe(SECRET);
    expect(asked.asked).toEqual([]);
  });
});

describe('Chrome: the answer is withheld until the user says yes', () => {
  test('without a gate: a response from a private address is refused and its content is not given', async () => {
    served.length = 0;
    const error = await failure(webFetch({ url: url('127.0.0.1.nip.io') }, signal(), deps({ probe: chrome })));
    expect(error).toBeInstanceOf(LocalNetworkError);
    expect(error.message).toMatch(/127\.0\.0\.1\.nip\.io.* is served from 127\.0\.0\.1, which is on this computer.*its answer was withheld/);
    expect(error.message).not.toContain('hunter2');
    // Chrome cannot resolve first: the request was made, its answer not used.
    expect(served).toEqual(['127.0.0.1.nip.io /page']);
  });

  test('with a gate: asked with the answering address after the request; content only after the yes', async () => {
    const yes = gate(YES);
    const result = await webFetch({ url: url('intranet.test') }, signal(), deps({ probe: chrome, reach: yes.reach }));
    expect(yes.asked.map((a) => a.how)).toEqual([{ localAddress: 'fd12::5' }]);
    expect(unwrapUntrusted(result.content)?.content).toBe(SECRET);

    const no = gate(NO);
    const error = await failure(webFetch({ url: url('intranet.test') }, signal(), deps({ probe: chrome, reach: no.reach })));
    expect(error).toBeInstanceOf(ReachRefusedError);
    expect(error.message).not.toContain('hunter2');
  });

  test('an answer whose address the browser did not report is withheld', async () => {
    const silent: AddressProbe = { watch: () => ({ location: async () => null, address: async () => null, stop: () => undefined }) };
    const error = await failure(webFetch({ url: url('a.test') }, signal(), deps({ probe: silent })));
    expect(error.message).toMatch(/did not report which address answered .*so its answer was withheld/);
    expect(error.message).not.toContain('hunter2');
  });

  test('a public answer is read without asking', async () => {
    const asked = gate(NO);
    const result = await webFetch({ url: url('a.test') }, signal(), deps({ probe: chrome, reach: asked.reach }));
    expect(unwrapUntrusted(result.content)?.content).toBe(SECRET);
    expect(asked.asked).toEqual([]);
  });

  test('the time the user takes to answer does not count against the fetch\'s time limit', async () => {
    const slow = gate(async () => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      return { ok: true };
    });
    const result = await webFetch({ url: url('nas.test') }, signal(), deps({ probe: chrome, reach: slow.reach, timeoutMs: 400 }));
    expect(unwrapUntrusted(result.content)?.content).toBe(SECRET);
  });
});

describe('every redirect hop goes through the gate before it is requested', () => {
  test('an open redirect chain: each hop is asked about, in order, before it is requested', async () => {
    served.length = 0;
    const yes = gate(YES);
    const result = await webFetch({ url: url('a.test', '/hop1') }, signal(), deps({ probe: chrome, reach: yes.reach }));
    expect(unwrapUntrusted(result.content)?.content).toBe(SECRET);
    expect(yes.asked.map((a) => [a.url, a.how.redirectFrom])).toEqual([
      [url('b.test', '/hop2?d=inbox%20text'), url('a.test', '/hop1')],
      [url('c.test'), url('b.test', '/hop2?d=inbox%20text')],
    ]);
    expect(yes.asked[0]!.servedBefore).toEqual(['a.test /hop1']);
    expect(yes.asked[1]!.servedBefore).toEqual(['a.test /hop1', 'b.test /hop2']);
  });

  test('a refused middle hop: the other origin receives nothing, nor does anything after it', async () => {
    served.length = 0;
    const no = gate((u) => (new URL(u).hostname === 'b.test' ? NO() : YES()));
    const error = await failure(webFetch({ url: url('a.test', '/hop1') }, signal(), deps({ probe: chrome, reach: no.reach })));
    expect(error).toBeInstanceOf(ReachRefusedError);
    expect(served).toEqual(['a.test /hop1']);
  });

  test('a hop to a local name asks with its address; without a gate it is refused as before', async () => {
    served.length = 0;
    const no = gate(NO);
    await failure(webFetch({ url: url('a.test', '/to-lan') }, signal(), deps({ probe: chrome, reach: no.reach })));
    expect(no.asked.map((a) => a.how)).toEqual([{ redirectFrom: url('a.test', '/to-lan'), localAddress: '192.168.1.1' }]);
    const error = await failure(webFetch({ url: url('a.test', '/to-lan') }, signal(), deps({ probe: chrome })));
    expect(error).toBeInstanceOf(LocalNetworkError);
    expect(error.message).toMatch(/192\.168\.1\.1\/admin points at the local network/);
  });

  test('a hop to a name that resolves locally: one ask names both the redirect and the address', async () => {
    served.length = 0;
    const no = gate(NO);
    await failure(webFetch({ url: url('a.test', '/to-nas') }, signal(), deps({ probe: firefox, reach: no.reach })));
    expect(no.asked.map((a) => a.how)).toEqual([{ redirectFrom: url('a.test', '/to-nas'), localAddress: '192.168.1.20' }]);
    expect(served).toEqual(['a.test /to-nas']);
    // Without a gate: refused by its address, never requested.
    served.length = 0;
    const error = await failure(webFetch({ url: url('a.test', '/to-nas') }, signal(), deps({ probe: firefox })));
    expect(error).toBeInstanceOf(LocalNetworkError);
    expect(served).toEqual(['a.test /to-nas']);
  });

  test('the tool hands its context\'s reach to the fetch', async () => {
    served.length = 0;
    const no = gate(NO);
    const service = { fetch: deps({ probe: chrome }), search: { search: async () => [], target: async () => 'https://search.example/?q=' }, summarize: async () => '' };
    await expect(webFetchTool.execute({ url: url('a.test', '/hop1') }, { signal: signal(), service, reach: no.reach })).rejects.toBeInstanceOf(ReachRefusedError);
    expect(no.asked).toHaveLength(1);
    expect(served).toEqual(['a.test /hop1']);
  });
});

describe('the tests\' allow-list', () => {
  test('takes http loopback origins and http names under .example, nothing else', async () => {
    const list = JSON.stringify([
      'http://127.0.0.1:8080',
      'http://evil.example:41235',
      'http://mail.example',
      'http://a.b.example:1',
      'https://evil.example',
      'http://evil.example.com',
      'http://example',
      'http://evil.example:41235/path',
      'http://192.168.1.1',
      'http://nas.test',
    ]);
    expect(await testLocalOrigins(async () => list)).toEqual(['http://127.0.0.1:8080', 'http://evil.example:41235', 'http://mail.example', 'http://a.b.example:1']);
  });
});

describe('Baidu result links: followed hop by hop, each hop checked, the target never visited', () => {
  const block = (href: string, title: string) => `<div class="result c-container"><h3 class="t"><a href="${href}">${title}</a></h3><span class="content-right_8Zs40">About ${title}</span></div>`;

  test('a link that leads into the user\'s network is named, never requested; a Baidu hop that resolves locally is not requested', async () => {
    const { parseSearchPage, search } = await import('@/plugins/web/search/engines');
    const { parseHtml } = await import('@/tests/unit/helpers/dom');
    const engine = `http://127.0.0.1:${port}`;
    const trap = 'http://localhost:6379/admin';
    const pages: Record<string, { status: number; headers?: Record<string, string>; body?: string }> = {
      '/s': {
        status: 200,
        body: `<html><body><div id="content_left">${block(`${engine}/link?url=one`, 'One')}${block(`${engine}/link?url=two`, 'Two')}${block(`${engine}/link?url=three`, 'Three')}</div></body></html>`,
      },
    };
    const requested: string[] = [];
    // The engine's own pages are answered here; anything else would be a request out.
    const baiduFetch: typeof fetch = async (input) => {
      const u = new URL(String(input));
      requested.push(u.href);
      if (u.origin !== engine) return new Response('elsewhere', { status: 200 });
      if (u.pathname === '/s') return new Response(pages['/s']!.body, { status: 200, headers: { 'content-type': 'text/html' } });
      const to = { one: trap, two: 'http://www.baidu.com/link?url=inner', three: 'https://www.example.org/three' }[u.searchParams.get('url') ?? ''];
      return new Response(null, { status: 302, headers: { location: to ?? '/' } });
    };
    const probe: AddressProbe = { resolve: async (host) => (host === 'www.baidu.com' ? ['10.0.0.8'] : ['203.0.113.5']) };
    const results = await search('q', 3, { engine: 'baidu', endpoint: `${engine}/s` }, { fetch: baiduFetch, probe, parsePage: async (e, html, u) => parseSearchPage(e, parseHtml(html), u) });
    expect(results.map((r) => r.url)).toEqual([trap, `${engine}/link?url=two`, 'https://www.example.org/three']);
    expect(requested.sort()).toEqual([`${engine}/link?url=one`, `${engine}/link?url=three`, `${engine}/link?url=two`, `${engine}/s?wd=q&rn=10&ie=utf-8`].sort());
  });
});

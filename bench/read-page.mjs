#!/usr/bin/env node
// bench/read-page: the accessibility outline of read_page (plugins/page-actions/page/outline.ts)
// on every saved corpus page, in real Chromium (Playwright) and Firefox ESR (puppeteer-core over
// WebDriver BiDi).
//
// Each page is served from 127.0.0.1 with a Content-Security-Policy that lets nothing load from
// elsewhere (and, in Chromium, every other request is answered at once; in Firefox a dead proxy
// refuses it), so nothing waits on the network. After `load`, an esbuild bundle of outline.ts and
// the element-reference registry is evaluated in the page, and buildOutline runs --runs times
// (a fresh registry each time). Per browser: median and p95 over pages of the first call and of
// each page's median call; median/p95/max outline size in characters and tokens (characters / 4);
// the pages over 8,000 tokens. Baseline in the same page and run: `document.body.innerText`
// (the browser's own text of the page, laid out).
//
// With --baseline DIR (another checkout, e.g. the main branch's), that checkout's outline.ts is
// bundled too and measured in the same page right before this one's, and the figures print side by
// side. Last, a micro-bench of the MAIN-world listener tracker (page/listener-tracker.ts): 100,000
// addEventListener('click') calls on fresh elements, unwrapped and wrapped, alternating, 5 rounds.
//
// Usage: node bench/read-page.mjs [chromium|firefox] [--runs 5] [--max-length 24000] [--pages a,b] [--json file] [--baseline DIR]
// The full corpus is read from ../shared/corpus/pages (SHARED_CORPUS_DIR overrides), the
// project's own pages from tests/fixtures/corpus; a page in both is measured once.

import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '5' },
    'max-length': { type: 'string', default: '24000' },
    pages: { type: 'string', default: '' },
    json: { type: 'string', default: path.join(ROOT, 'bench/results/read-page.json') },
    baseline: { type: 'string', default: '' },
  },
});
const RUNS = Math.max(1, Number(args.runs));
const MAX_LENGTH = Number(args['max-length']);
const ONLY = args.pages.split(',').filter(Boolean);
const BROWSERS = positionals.length ? positionals : ['chromium', 'firefox'];
const TOKEN_BUDGET = 8_000;

const FOLDERS = [path.join(ROOT, 'tests/fixtures/corpus'), process.env.SHARED_CORPUS_DIR ?? path.resolve(ROOT, '../shared/corpus/pages')];

/** Every corpus page once: { name, file }. */
async function corpusPages() {
  const pages = new Map();
  for (const folder of FOLDERS) {
    if (!existsSync(folder)) continue;
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name, 'source.html');
      if (!entry.isDirectory() || pages.has(entry.name) || !existsSync(file)) continue;
      if (ONLY.length && !ONLY.includes(entry.name)) continue;
      pages.set(entry.name, file);
    }
  }
  return [...pages].map(([name, file]) => ({ name, file })).sort((a, b) => a.name.localeCompare(b.name));
}

/** outline.ts and the registry of `root`, bundled for the page: `globalThis[name].measure(runs, maxLength)`. */
async function bundle(root = ROOT, name = '__sidequestReadPage') {
  const entry = `
    import { createElementRefs } from '@/core/page/element-refs';
    import { buildOutline } from '@/plugins/page-actions/page/outline';
    globalThis.${name} = {
      measure(runs, maxLength) {
        const outline = [];
        const innerText = [];
        let result;
        let innerTextChars = 0;
        for (let i = 0; i < runs; i++) {
          const refs = createElementRefs(window);
          const started = performance.now();
          result = buildOutline(document, refs, { maxLength });
          outline.push(performance.now() - started);
          const textStarted = performance.now();
          const text = document.body ? document.body.innerText : '';
          innerText.push(performance.now() - textStarted);
          innerTextChars = text.length;
        }
        return { outline, innerText, chars: result.text.length, nodes: result.nodes, truncated: result.truncated,
          innerTextChars, elements: document.getElementsByTagName('*').length, head: result.text.slice(0, 300) };
      },
    };`;
  const out = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'project-alias',
        setup(b) {
          b.onResolve({ filter: /^@\// }, (a) => ({ path: path.join(root, `${a.path.slice(2)}.ts`) }));
        },
      },
    ],
  });
  return out.outputFiles[0].text;
}

/** The listener tracker's micro-bench: `globalThis.__sidequestTracker()` → { unwrapped: ms[], wrapped: ms[] }. */
async function trackerBundle() {
  const entry = `
    import { installListenerTracker } from '@/plugins/page-actions/page/listener-tracker';
    globalThis.__sidequestTracker = () => {
      const N = 100000;
      const original = EventTarget.prototype.addEventListener;
      installListenerTracker(window);
      const wrapped = EventTarget.prototype.addEventListener;
      const out = { unwrapped: [], wrapped: [], same: original === wrapped };
      const handler = () => {};
      for (let round = 0; round < 5; round++) {
        for (const [key, add] of [['unwrapped', original], ['wrapped', wrapped]]) {
          const elements = Array.from({ length: N }, () => document.createElement('div'));
          const started = performance.now();
          for (let i = 0; i < N; i++) add.call(elements[i], 'click', handler);
          out[key].push(performance.now() - started);
        }
      }
      return out;
    };`;
  const out = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
    plugins: [{ name: 'project-alias', setup(b) { b.onResolve({ filter: /^@\// }, (a) => ({ path: path.join(ROOT, `${a.path.slice(2)}.ts`) })); } }],
  });
  return out.outputFiles[0].text;
}

// Nothing from elsewhere: no scripts of the page (the bench's bundle is evaluated by the driver),
// styles and images only from here (the saved pages' own inline styles apply).
const CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; frame-src 'self'; media-src 'self'";

function serve(pages) {
  const byName = new Map(pages.map((p) => [p.name, p.file]));
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const name = decodeURIComponent(url.pathname.replace(/^\/page\//, '').replace(/\/$/, ''));
    const file = url.pathname.startsWith('/page/') ? byName.get(name) : undefined;
    if (!file) {
      res.writeHead(404, { 'content-security-policy': CSP }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
    res.end(await readFile(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
};
const median = (values) => quantile(values, 0.5);

async function openChromium() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.route((url) => url.hostname !== '127.0.0.1', (route) => route.fulfill({ status: 204, body: '' }));
  return {
    version: `Chromium ${browser.version()}`,
    goto: (url) => page.goto(url, { waitUntil: 'load', timeout: 30_000 }),
    evaluate: (code) => page.evaluate(code),
    close: () => browser.close(),
  };
}

async function openFirefox() {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr',
    headless: true,
    defaultViewport: { width: 1280, height: 800 },
    extraPrefsFirefox: {
      // Every request that is not for 127.0.0.1 goes to a proxy that refuses it at once.
      'network.proxy.type': 1,
      'network.proxy.http': '127.0.0.1',
      'network.proxy.http_port': 9,
      'network.proxy.ssl': '127.0.0.1',
      'network.proxy.ssl_port': 9,
      'network.proxy.no_proxies_on': '127.0.0.1',
      'network.proxy.allow_hijacking_localhost': false,
      'network.dns.disablePrefetch': true,
      'network.prefetch-next': false,
    },
  });
  const page = await browser.newPage();
  return {
    version: `Firefox ${(await browser.version()).replace(/^firefox\//i, '')}`,
    goto: (url) => page.goto(url, { waitUntil: 'load', timeout: 30_000 }),
    evaluate: (code) => page.evaluate(code),
    close: () => browser.close(),
  };
}

async function measureBrowser(name, pages, code, origin, baseCode, trackerCode) {
  const driver = name === 'firefox' ? await openFirefox() : await openChromium();
  const rows = [];
  let tracker;
  try {
    for (const { name: page } of pages) {
      try {
        await driver.goto(`${origin}/page/${encodeURIComponent(page)}/`);
        let base;
        if (baseCode) {
          // The baseline first, in the same page: its first call pays the same cold start.
          await driver.evaluate(baseCode);
          base = await driver.evaluate(`globalThis.__sidequestReadPageBase.measure(${RUNS}, ${MAX_LENGTH})`);
        }
        await driver.evaluate(code);
        const r = await driver.evaluate(`globalThis.__sidequestReadPage.measure(${RUNS}, ${MAX_LENGTH})`);
        rows.push({
          page, first: r.outline[0], median: median(r.outline), innerText: median(r.innerText), innerTextFirst: r.innerText[0], chars: r.chars, tokens: r.chars / 4, nodes: r.nodes, truncated: r.truncated, elements: r.elements, innerTextChars: r.innerTextChars,
          ...(base ? { baseFirst: base.outline[1] ?? base.outline[0], baseMedian: median(base.outline), baseChars: base.chars, baseTokens: base.chars / 4, baseNodes: base.nodes } : {}),
        });
      } catch (error) {
        console.error(`${name} / ${page}: ${String(error?.message ?? error).split('\n')[0]}`);
      }
    }
    if (trackerCode) {
      await driver.goto(`${origin}/page/${encodeURIComponent(pages[0].name)}/`);
      await driver.evaluate(trackerCode);
      tracker = await driver.evaluate('globalThis.__sidequestTracker()');
    }
  } finally {
    await driver.close().catch(() => undefined);
  }
  return { browser: driver.version, rows, tracker };
}

function report(result) {
  const { rows } = result;
  const col = (key) => rows.map((r) => r[key]);
  const ms = (v) => `${v.toFixed(2)} ms`;
  const over = rows.filter((r) => r.tokens > TOKEN_BUDGET);
  const cut = rows.filter((r) => r.truncated);
  console.log(`\n${result.browser}: ${rows.length} pages, ${RUNS} runs each, max_length ${MAX_LENGTH}`);
  console.log('| measure | median | p95 | max |');
  console.log('|---|---:|---:|---:|');
  console.log(`| buildOutline, first call | ${ms(median(col('first')))} | ${ms(quantile(col('first'), 0.95))} | ${ms(Math.max(...col('first')))} |`);
  console.log(`| buildOutline, page's median call | ${ms(median(col('median')))} | ${ms(quantile(col('median'), 0.95))} | ${ms(Math.max(...col('median')))} |`);
  console.log(`| baseline: body.innerText, page's median | ${ms(median(col('innerText')))} | ${ms(quantile(col('innerText'), 0.95))} | ${ms(Math.max(...col('innerText')))} |`);
  console.log(`| outline, characters | ${median(col('chars'))} | ${quantile(col('chars'), 0.95)} | ${Math.max(...col('chars'))} |`);
  console.log(`| outline, tokens (chars / 4) | ${Math.round(median(col('tokens')))} | ${Math.round(quantile(col('tokens'), 0.95))} | ${Math.round(Math.max(...col('tokens')))} |`);
  console.log(`| lines (nodes) | ${median(col('nodes'))} | ${quantile(col('nodes'), 0.95)} | ${Math.max(...col('nodes'))} |`);
  console.log(`| elements in the page | ${median(col('elements'))} | ${quantile(col('elements'), 0.95)} | ${Math.max(...col('elements'))} |`);
  console.log(`| baseline: innerText characters | ${median(col('innerTextChars'))} | ${quantile(col('innerTextChars'), 0.95)} | ${Math.max(...col('innerTextChars'))} |`);
  console.log(`Pages over ${TOKEN_BUDGET} tokens: ${over.length}${over.length ? ` (${over.map((r) => r.page).join(', ')})` : ''}; cut at max_length: ${cut.length}.`);
  const slow = [...rows].sort((a, b) => b.median - a.median).slice(0, 3);
  console.log(`Slowest: ${slow.map((r) => `${r.page} ${r.median.toFixed(1)} ms (${r.elements} elements)`).join(', ')}.`);
  console.log(`Budget ≤ 15 ms median and ≤ 30 ms p95 (issue 41), ≤ ${TOKEN_BUDGET} tokens: ${median(col('median')) <= 15 && quantile(col('median'), 0.95) <= 30 && !over.length ? 'met' : 'NOT met'}.`);
  if (rows.length && rows[0].baseMedian !== undefined) {
    const baseOver = rows.filter((r) => r.baseTokens > TOKEN_BUDGET);
    console.log(`Baseline (${args.baseline}), same pages and run:`);
    console.log('| measure | baseline median | baseline p95 | this median | this p95 |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(`| buildOutline, page's median call | ${ms(median(col('baseMedian')))} | ${ms(quantile(col('baseMedian'), 0.95))} | ${ms(median(col('median')))} | ${ms(quantile(col('median'), 0.95))} |`);
    console.log(`| outline, tokens | ${Math.round(median(col('baseTokens')))} | ${Math.round(quantile(col('baseTokens'), 0.95))} | ${Math.round(median(col('tokens')))} | ${Math.round(quantile(col('tokens'), 0.95))} |`);
    console.log(`| lines (nodes) | ${median(col('baseNodes'))} | ${quantile(col('baseNodes'), 0.95)} | ${median(col('nodes'))} | ${quantile(col('nodes'), 0.95)} |`);
    console.log(`Baseline pages over ${TOKEN_BUDGET} tokens: ${baseOver.length}.`);
  }
  if (result.tracker) {
    const { unwrapped, wrapped } = result.tracker;
    console.log(`Listener tracker: 100,000 addEventListener('click') on fresh elements, median of 5: unwrapped ${ms(median(unwrapped))}, wrapped ${ms(median(wrapped))} (× ${(median(wrapped) / median(unwrapped)).toFixed(2)}; ${((median(wrapped) - median(unwrapped)) * 10).toFixed(1)} ns more a call).`);
  }
}

async function main() {
  const pages = await corpusPages();
  if (!pages.length) throw new Error('No corpus pages found.');
  const code = await bundle();
  const baseCode = args.baseline ? await bundle(path.resolve(args.baseline), '__sidequestReadPageBase') : '';
  const trackerCode = await trackerBundle();
  const server = await serve(pages);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const results = [];
  try {
    for (const name of BROWSERS) {
      const result = await measureBrowser(name, pages, code, origin, baseCode, trackerCode);
      report(result);
      results.push(result);
    }
  } finally {
    server.close();
  }
  await mkdir(path.dirname(args.json), { recursive: true });
  await writeFile(args.json, JSON.stringify({ at: new Date().toISOString(), runs: RUNS, maxLength: MAX_LENGTH, results }, null, 2));
}

await main();

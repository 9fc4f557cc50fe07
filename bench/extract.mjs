#!/usr/bin/env node
// bench/extract: page → Markdown over the saved pages in ../shared/corpus/pages, in real Chromium.
//
// For each page and each method: time (median of --runs runs on a freshly parsed document; the
// parse itself is not timed), Markdown size as a share of the HTML, whether the title is in the
// output, and how much of the article text (the page's expected.html) survives — against the
// same measures of two baselines run in the same browser, in the same run:
//   readability+turndown   Readability and Turndown used plainly (defaults, HTML string between them)
//   turndown(body)         Turndown (defaults, scripts and styles removed) over the whole <body>
// and, with --rendered (default on), Sidequest's get_tab_content path: the page rendered in an
// iframe and read live (visible-DOM copy included).
//
// Usage: node bench/extract.mjs [--runs 5] [--pages a,b] [--no-rendered] [--verbose] [--json file]

import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { createJiti } from 'jiti';
// Node 20 cannot import TypeScript itself; jiti does, as in the build.
const { readabilityFast } = await createJiti(import.meta.url).import('../build/readability-fast.ts');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = path.resolve(ROOT, '../shared/corpus/pages');

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const RUNS = Number(option('runs', '5'));
const RENDERED = !flag('no-rendered');
const VERBOSE = flag('verbose');
const ONLY = option('pages', '')?.split(',').filter(Boolean);

/** Bundles bench/extract-page.ts (and the extraction module it imports) for the browser. */
async function bundle() {
  const out = await build({
    configFile: false, plugins: [readabilityFast()],
    logLevel: 'warn',
    resolve: { alias: { '@': ROOT } },
    build: {
      write: false,
      minify: true,
      lib: { entry: path.join(ROOT, 'bench/extract-page.ts'), formats: ['iife'], name: 'SidequestBench', fileName: () => 'bench.js' },
    },
  });
  const outputs = Array.isArray(out) ? out.flatMap((o) => o.output) : out.output;
  return outputs.find((o) => o.type === 'chunk').code;
}

function serve(code) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    try {
      if (url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><meta charset="utf-8"><title>bench</title><body><script src="/bench.js"></script></body>');
      } else if (url.pathname === '/bench.js') {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
        res.end(code);
      } else if (url.pathname.startsWith('/corpus/')) {
        const file = path.join(CORPUS, decodeURIComponent(url.pathname.slice('/corpus/'.length)));
        if (!file.startsWith(CORPUS)) throw new Error('outside the corpus');
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(await readFile(file));
      } else {
        res.writeHead(404).end();
      }
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ——— Text measures ———

const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu;

/** Words of a text, lower-cased; CJK characters count one by one. */
export function tokens(text) {
  return (text.toLowerCase().match(TOKEN) ?? []);
}

/** The readable text of Markdown: link and image targets dropped, their labels kept (nested ones too). */
export function markdownText(markdown) {
  let text = markdown;
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text.replace(/!?\[((?:\\.|[^\][\\])*)\]\((?:\\.|[^)\\])*\)/g, '$1');
  }
  return text;
}

function counts(words) {
  const map = new Map();
  for (const w of words) map.set(w, (map.get(w) ?? 0) + 1);
  return map;
}

/** Share of the expected words found in the output (recall), and share of the output that is not expected (noise). */
export function overlap(expectedText, outputText) {
  const expected = counts(tokens(expectedText));
  const output = counts(tokens(outputText));
  let common = 0;
  let expectedTotal = 0;
  let outputTotal = 0;
  for (const [w, n] of expected) {
    expectedTotal += n;
    common += Math.min(n, output.get(w) ?? 0);
  }
  for (const n of output.values()) outputTotal += n;
  return {
    recall: expectedTotal ? common / expectedTotal : 1,
    noise: outputTotal ? 1 - common / outputTotal : 0,
  };
}

/**
 * Whether the title opens the output: 80 % of its words in the first five lines. (The expected
 * titles come from Readability under jsdom; Chromium's Readability words a few of them slightly
 * differently, e.g. without a leading "Evolve:".) Pages without a title do not count.
 */
function titleIn(title, markdown) {
  const wanted = tokens(title);
  if (!wanted.length) return null;
  const head = counts(tokens(markdownText(markdown.split('\n').filter((l) => l.trim()).slice(0, 5).join('\n'))));
  let found = 0;
  for (const w of wanted) {
    const n = head.get(w) ?? 0;
    if (n > 0) {
      found++;
      head.set(w, n - 1);
    }
  }
  return found / wanted.length >= 0.8;
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const median = (values) => quantile(values, 0.5);
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

// ——— Run ———

async function main() {
  const names = (await readdir(CORPUS, { withFileTypes: true }))
    .filter((d) => d.isDirectory() && (!ONLY?.length || ONLY.includes(d.name)))
    .map((d) => d.name)
    .sort();
  const code = await bundle();
  const server = await serve(code);
  const { port } = server.address();
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const page = await browser.newPage();
  // The saved pages refer to images, fonts and styles on the web: answer them all at once, empty.
  await page.route((url) => url.hostname !== '127.0.0.1', (route) => route.fulfill({ status: 204, body: '' }));
  await page.goto(`http://127.0.0.1:${port}/`);
  const version = browser.version();

  /** @type {Map<string, any[]>} */
  const rows = new Map();
  const perPage = [];
  let warm = false;
  for (const name of names) {
    const meta = JSON.parse(await readFile(path.join(CORPUS, name, 'expected-metadata.json'), 'utf8'));
    const run = await page.evaluate(
      async ({ name, runs, rendered }) => {
        const get = (f) => fetch(`/corpus/${name}/${f}`).then((r) => r.text());
        const [html, expected] = await Promise.all([get('source.html'), get('expected.html')]);
        return globalThis.SidequestBench.runPage(name, html, expected, runs, rendered);
      },
      { name, runs: warm ? RUNS : Math.max(RUNS, 3), rendered: RENDERED },
    );
    warm = true;
    const entry = { name, title: meta.title ?? '', htmlChars: run.htmlChars, methods: {} };
    for (const [method, result] of Object.entries(run.results)) {
      if (result.error) console.error(`${name} / ${method}: ${result.error.split('\n')[0]}`);
      const { recall, noise } = overlap(run.expectedText, markdownText(result.markdown));
      const row = {
        ms: median(result.ms),
        share: result.markdown.length / run.htmlChars,
        title: titleIn(entry.title, result.markdown),
        recall,
        noise,
        chars: result.markdown.length,
        error: Boolean(result.error),
      };
      entry.methods[method] = row;
      if (!rows.has(method)) rows.set(method, []);
      rows.get(method).push(row);
    }
    perPage.push(entry);
  }
  await browser.close();
  server.close();

  const plain = 'readability+turndown';
  const table = [];
  for (const [method, list] of rows) {
    const lost = perPage.filter((p) => p.methods[method] && p.methods[plain] && p.methods[method].recall < p.methods[plain].recall - 0.005);
    table.push({
      method,
      pages: list.length,
      'median ms': median(list.map((r) => r.ms)).toFixed(2),
      'p95 ms': quantile(list.map((r) => r.ms), 0.95).toFixed(2),
      'size/HTML (median)': `${(median(list.map((r) => r.share)) * 100).toFixed(1)} %`,
      'title in output': `${list.filter((r) => r.title === true).length}/${list.filter((r) => r.title !== null).length}`,
      'article text kept (mean)': `${(mean(list.map((r) => r.recall)) * 100).toFixed(1)} %`,
      'kept (min)': `${(Math.min(...list.map((r) => r.recall)) * 100).toFixed(1)} %`,
      'noise (mean)': `${(mean(list.map((r) => r.noise)) * 100).toFixed(1)} %`,
      [`pages losing text vs ${plain}`]: method === plain ? '—' : String(lost.length),
      'time vs plain (median of page ratios)': method === plain ? '1.00' : median(perPage.filter((p) => p.methods[method] && p.methods[plain]).map((p) => p.methods[method].ms / p.methods[plain].ms)).toFixed(2),
    });
  }
  console.log(`bench/extract — ${names.length} pages from ../shared/corpus/pages, Chromium ${version}, ${RUNS} runs a page (median per page)`);
  console.table(table);

  if (VERBOSE) {
    for (const p of perPage) {
      const ours = p.methods.sidequest;
      const base = p.methods[plain];
      const line = Object.entries(p.methods)
        .map(([m, r]) => `${m}: ${r.ms.toFixed(1)}ms ${(r.share * 100).toFixed(1)}% ${r.title ? 'T' : '-'} ${(r.recall * 100).toFixed(0)}%/${(r.noise * 100).toFixed(0)}%`)
        .join(' | ');
      const flagLost = ours && base && ours.recall < base.recall - 0.005 ? '  <-- loses text' : '';
      console.log(`${p.name.padEnd(36)} ${line}${flagLost}`);
    }
  }
  const jsonFile = option('json', '');
  if (jsonFile) {
    await mkdir(path.dirname(path.resolve(jsonFile)), { recursive: true });
    await writeFile(jsonFile, JSON.stringify({ version, runs: RUNS, table, perPage }, null, 2));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

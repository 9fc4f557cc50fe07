// Page tools speed, in real Chromium with the benchmark build of the extension (built here:
// `npm run build:bench`, which answers the benchmark-only `measureToolCalls`):
//
//   node bench/page-tools.mjs [--calls 500] [--runs 20]      (npm run bench:page-tools)
//
// 1. Round trip of one page tool call through the registry — background → isolated relay → page
//    MAIN world → execute → back, with input validation, the origin check and JSON-safe results —
//    measured in the background around `registry.invoke`, against calling the same function
//    directly in the page, in the same run.
// 2. Discovery on pages with 1, 10 and 100 tools: the time the page itself takes (dispatching
//    devtoolstooldiscovery and checking the groups) and the whole refresh as the sidebar sees it
//    (request → page → port → registry → answer).
//
// Prints a table; writes the raw figures to bench/results/page-tools.json.

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launch, ROOT } from '../tests/e2e/harness.mjs';

const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '500' }, runs: { type: 'string', default: '20' } } });
const CALLS = Number(args.calls);
const RUNS = Number(args.runs);
const WARMUP = 50;

/** A page offering `n` tools; the first, `echo`, is the one the round trip calls. */
function benchPage(n) {
  return `<!doctype html><html><head><title>Bench ${n} tools</title></head><body><h1>${n} tools</h1><script>
    const echo = { name: 'echo', description: 'Returns its input.', inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
      execute: async (input) => ({ x: input.x, at: 'page' }) };
    const tools = [echo];
    for (let i = 1; i < ${n}; i++) tools.push({ name: 'tool_' + i, description: 'Bench tool number ' + i + ' with a description of ordinary length for a page tool.',
      inputSchema: { type: 'object', properties: { a: { type: 'string', description: 'An argument.' }, b: { type: 'integer', minimum: 0 } }, required: ['a'] },
      execute: () => i });
    window.__benchEcho = echo;
    window.addEventListener('devtoolstooldiscovery', (e) => e.respondWith({ name: 'Bench', description: 'Benchmark tools', tools }));
  </script></body></html>`;
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return { n: values.length, p50: at(0.5), p95: at(0.95), mean, min: sorted[0], max: sorted.at(-1) };
}

const fmt = (ms) => (ms < 0.01 ? ms.toPrecision(2) : ms < 1 ? ms.toFixed(3) : ms.toFixed(2));

const server = http.createServer((req, res) => {
  const n = Number(new URL(req.url, 'http://x').searchParams.get('n') ?? '1');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(benchPage(n));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

execFileSync('npm', ['run', '--silent', 'build:bench'], { cwd: ROOT, stdio: 'ignore' });
process.env.SIDEQUEST_BUILD_MODE = 'bench';
const h = await launch('chromium');
try {
  const app = await h.newPage(`${origin}/bench.html?n=1`);
  const ext = await h.openExtensionPage('popup.html');
  // The extension's own protocol (@webext-core/messaging's format), from an extension page.
  const send = (type, data) =>
    ext.evaluate(
      async ([type, data]) => {
        const reply = await chrome.runtime.sendMessage({ id: Math.random(), type, data, timestamp: Date.now() });
        if (reply?.err) throw new Error(reply.err.message);
        return reply?.res;
      },
      [type, data],
    );
  await send('decidePageTools', { origin, decision: 'always' });
  const findTab = async () => {
    for (let i = 0; i < 100; i++) {
      const tabs = await send('listPageTools');
      const tab = tabs.find((t) => t.origin === origin && t.offered);
      if (tab) return tab;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('The bench page\'s tools never reached the registry.');
  };
  const tab = await findTab();
  const echoName = tab.groups[0].tools.find((t) => t.name === 'echo').modelName;

  // ——— 1. Round trip vs. direct ———
  await send('measureToolCalls', { name: echoName, input: { x: 1 }, iterations: WARMUP });
  const viaRegistry = await send('measureToolCalls', { name: echoName, input: { x: 1 }, iterations: CALLS });
  if (viaRegistry.ok !== CALLS) throw new Error(`Calls failed: ${viaRegistry.lastError}`);
  const direct = await app.evaluate(async ([calls, warmup]) => {
    const durations = [];
    for (let i = 0; i < warmup + calls; i++) {
      const started = performance.now();
      await window.__benchEcho.execute({ x: i });
      if (i >= warmup) durations.push(performance.now() - started);
    }
    // performance.now() is coarse in pages (0.1 ms): also time a large batch.
    const batch = 20_000;
    const batchStart = performance.now();
    for (let i = 0; i < batch; i++) await window.__benchEcho.execute({ x: i });
    return { durations, batchMean: (performance.now() - batchStart) / batch };
  }, [CALLS, WARMUP]);

  // The reference's path, for scale: chrome-devtools-mcp runs a page tool with a CDP
  // Runtime.evaluate from outside the page (here from Node over Playwright's CDP session).
  const cdp = await h.context.newCDPSession(app.raw);
  const evaluateOnce = () =>
    cdp.send('Runtime.evaluate', { expression: 'window.__benchEcho.execute({ x: 1 })', awaitPromise: true, returnByValue: true });
  for (let i = 0; i < WARMUP; i++) await evaluateOnce();
  const viaCdp = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await evaluateOnce();
    viaCdp.push(performance.now() - started);
  }
  await cdp.detach();

  const reg = stats(viaRegistry.durations);
  const dir = stats(direct.durations);
  const ref = stats(viaCdp);

  // ——— 2. Discovery ———
  const discovery = [];
  for (const n of [1, 10, 100]) {
    await app.raw.goto(`${origin}/bench.html?n=${n}`);
    const current = await (async () => {
      for (let i = 0; i < 100; i++) {
        const tabs = await send('listPageTools');
        const t = tabs.find((v) => v.origin === origin && v.groups[0]?.tools.length === n);
        if (t) return t;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`The page with ${n} tools was never listed.`);
    })();
    const inPage = [];
    const refresh = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const view = await send('refreshPageTools', { tabId: current.tabId, reason: 'bench' });
      refresh.push(performance.now() - started);
      inPage.push(view.discoveryMs);
      if (view.groups[0].tools.length !== n) throw new Error(`expected ${n} tools, got ${view.groups[0].tools.length}`);
    }
    discovery.push({ tools: n, inPage: stats(inPage), refresh: stats(refresh) });
  }

  const rows = [
    ['measure', 'n', 'p50 ms', 'p95 ms', 'mean ms'],
    ['page tool call through the registry', reg.n, fmt(reg.p50), fmt(reg.p95), fmt(reg.mean)],
    ['same function called directly in the page', dir.n, fmt(dir.p50), fmt(dir.p95), fmt(direct.batchMean)],
    ['same function via CDP Runtime.evaluate (reference)', ref.n, fmt(ref.p50), fmt(ref.p95), fmt(ref.mean)],
    ...discovery.flatMap((d) => [
      [`discovery in the page, ${d.tools} tool${d.tools === 1 ? '' : 's'}`, d.inPage.n, fmt(d.inPage.p50), fmt(d.inPage.p95), fmt(d.inPage.mean)],
      [`refresh as the sidebar sees it, ${d.tools} tool${d.tools === 1 ? '' : 's'}`, d.refresh.n, fmt(d.refresh.p50), fmt(d.refresh.p95), fmt(d.refresh.mean)],
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r) => `| ${r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  console.log(`Page tools in Chromium (${CALLS} calls after ${WARMUP} warm-up; ${RUNS} refreshes each)\n`);
  console.log(line(rows[0]));
  console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const r of rows.slice(1)) console.log(line(r));
  console.log(`\nBridge overhead per call: p50 ${fmt(reg.p50 - direct.batchMean)} ms over the direct call; ${(reg.p50 / ref.p50).toFixed(2)}× the reference path's p50, ${(reg.p95 / ref.p95).toFixed(2)}× its p95.`);
  console.log(`Target call p50 ≤ 1 ms and p95 ≤ 3 ms: ${reg.p50 <= 1 && reg.p95 <= 3 ? 'met' : 'NOT met'}.`);
  console.log('The direct row\'s mean is the mean of a 20 000-call batch (the page clock is coarse, 0.1 ms).');

  const out = path.join(ROOT, 'bench/results/page-tools.json');
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify({ at: new Date().toISOString(), calls: CALLS, registry: reg, direct: { ...dir, batchMean: direct.batchMean }, referenceCdp: ref, discovery }, null, 2));
} finally {
  await h.close();
  server.close();
}

// The background's memory over a long day: `npm run bench:memory`, or
// `node bench/memory.mjs [chromium|firefox] [runs] [--no-build]` (the production build, made here
// unless --no-build). Prints tables; writes nothing to the repo.
//
// - Chromium: the service worker's JS heap, read through the DevTools protocol: a browser-level
//   CDP session attaches to the worker's target (`Target.attachToTarget`) and sends it
//   `HeapProfiler.collectGarbage`, then `Runtime.getHeapUsage` (used bytes after GC). Playwright's
//   CDP sessions cannot address a flattened child session, so the worker's commands travel in
//   `Target.sendMessageToTarget` (the attach is made with `flatten: false`); the figures are the
//   worker's own either way.
// - Firefox: the MV2 background page has no `performance.memory`; the driver reaches the parent
//   process's chrome scope over WebDriver BiDi (`--remote-allow-system-access`, which the harness
//   passes) and reads about:memory's reports there (`nsIMemoryReporterManager.getReports`, after
//   `minimizeMemoryUsage`, which collects garbage in every process): the sum of the background
//   page's window (`explicit/window-objects/top(moz-extension://<uuid>/_generated_background_page.html…)`),
//   and its JS part (`js-realm`, `js-zone`). Not the same measure as Chromium's heap: compare each
//   browser with its own idle figure.
//
// Idle: after start, the provider set and the sidebar open, before any run. Then `runs` scripted
// runs (default 100) of 10 steps each (tests/model-server: list_tabs and read_page on a local page
// that opens before each run and closes after it), a reading every 10 runs. "Flat" from run 50 to
// run 100: growth < 200 KB or < 1 % of the idle figure, whichever is larger.

import { startModelServer } from '../tests/model-server/server.mjs';
import { startFixtureServer } from '../tests/e2e/fixture-server.mjs';
import { execFileSync } from 'node:child_process';
import { launch, ROOT } from '../tests/e2e/harness.mjs';
import { configureProvider, openSidebar } from '../tests/e2e/helpers.mjs';
import { callBackground, oneRun, runScript } from '../tests/e2e/memory-runs.mjs';
import { table } from './print.mjs';

const KB = 1024;
const MB = 1024 * KB;
const args = process.argv.slice(2);
const named = args.filter((a) => a === 'chromium' || a === 'firefox');
const browsers = named.length ? named : ['chromium', 'firefox'];
const RUNS = Number(args.find((a) => /^\d+$/.test(a)) ?? 100);
const EVERY = 10;
const IDLE_BUDGET = 15 * MB;

const fmt = (bytes) => `${(bytes / MB).toFixed(2)} MB`;
const signed = (bytes) => `${bytes >= 0 ? '+' : '−'}${(Math.abs(bytes) / KB).toFixed(0)} KB`;

/** Chromium: the service worker's used JS heap after a full GC, through a browser CDP session. */
async function chromiumHeap(h) {
  const browserSession = await h.context.browser().newBrowserCDPSession();
  const { targetInfos } = await browserSession.send('Target.getTargets');
  const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(h.origin));
  if (!worker) throw new Error('The extension has no service worker target.');
  const { sessionId } = await browserSession.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false });
  let id = 0;
  const waiting = new Map();
  browserSession.on('Target.receivedMessageFromTarget', (event) => {
    if (event.sessionId !== sessionId) return;
    const message = JSON.parse(event.message);
    const settle = waiting.get(message.id);
    if (!settle) return;
    waiting.delete(message.id);
    settle(message);
  });
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      waiting.set(n, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      browserSession.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: n, method, params }) }).catch(reject);
    });
  return {
    label: 'service worker JS heap used, after GC',
    async read() {
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.collectGarbage');
      const usage = await call('Runtime.getHeapUsage');
      return { main: usage.usedSize, detail: `total ${fmt(usage.totalSize)}, embedder ${fmt(usage.embedderHeapUsedSize ?? 0)}` };
    },
  };
}

/** Firefox: about:memory's reports of the background page, from the parent's chrome scope over BiDi. */
async function firefoxMemory(h) {
  const connection = h.browser.connection;
  const tree = await connection.send('browsingContext.getTree', { 'moz:scope': 'chrome' });
  const chrome = tree.result.contexts[0]?.context;
  if (!chrome) throw new Error('No chrome context over BiDi (is --remote-allow-system-access passed?).');
  const uuid = new URL(h.origin).host;
  const expression = `new Promise((resolve, reject) => {
    const mgr = Cc['@mozilla.org/memory-reporter-manager;1'].getService(Ci.nsIMemoryReporterManager);
    mgr.minimizeMemoryUsage(() => {
      let window = 0;
      let js = 0;
      mgr.getReports((process, path, kind, units, amount) => {
        // 'explicit/window-objects/top(<the page's address, slashes as backslashes>, id=…)/…'
        const top = path.split('/')[2] ?? '';
        if (units !== Ci.nsIMemoryReporter.UNITS_BYTES || !path.startsWith('explicit/window-objects/')) return;
        if (!top.includes('${uuid}') || !top.includes('_generated_background_page')) return;
        window += amount;
        if (path.includes('/js-')) js += amount;
      }, null, () => resolve(JSON.stringify({ window, js })), null, false);
    });
  })`;
  return {
    label: 'background page (about:memory explicit/window-objects), after GC',
    async read() {
      const reply = await connection.send('script.evaluate', { expression, target: { context: chrome }, awaitPromise: true });
      if (reply.result.type !== 'success') throw new Error(`about:memory: ${JSON.stringify(reply.result.exceptionDetails ?? reply.result).slice(0, 300)}`);
      const { window, js } = JSON.parse(reply.result.result.value);
      if (!window) throw new Error('about:memory has no window of the background page.');
      return { main: window, detail: `of which JS ${fmt(js)}` };
    },
  };
}

async function bench(browserName) {
  const model = await startModelServer();
  const site = await startFixtureServer();
  const h = await launch(browserName, { preciseClock: true });
  try {
    (await configureProvider(h, { baseUrl: model.url })).close();
    const sidebar = await openSidebar(h);
    model.setScript(runScript);
    const meter = browserName === 'chromium' ? await chromiumHeap(h) : await firefoxMemory(h);
    // Start-up settles (the sidebar's first requests, plugin start-up tasks).
    await new Promise((r) => setTimeout(r, 2000));
    const idle = await meter.read();
    const rows = [['after', meter.label, 'vs idle', 'detail']];
    rows.push(['idle (start, sidebar open)', fmt(idle.main), '', idle.detail]);
    const at = {};
    const started = Date.now();
    for (let n = 1; n <= RUNS; n++) {
      const run = await oneRun(h, sidebar, site, n);
      if (run.status !== 'idle' || run.failed.length) throw new Error(`run ${n} ended ${run.status}: ${run.failed.join('; ')}`);
      if (n % EVERY === 0) {
        const reading = await meter.read();
        at[n] = reading.main;
        rows.push([`run ${n}`, fmt(reading.main), signed(reading.main - idle.main), reading.detail]);
      }
    }
    // A build from before the retained sets has no such message (a baseline run of this bench).
    const counts = (await callBackground(sidebar, 'getRetainedCounts').catch(() => undefined)) ?? { counts: {} };
    console.log(`\n## Background memory in ${browserName}: ${RUNS} runs of 10 steps (${((Date.now() - started) / 1000).toFixed(0)} s; load ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')})\n`);
    table(rows);
    const half = at[Math.round(RUNS / 2 / EVERY) * EVERY];
    const end = at[RUNS];
    if (half !== undefined && end !== undefined) {
      const growth = end - half;
      const flat = Math.max(200 * KB, idle.main * 0.01);
      console.log(`\ngrowth run ${RUNS / 2} → ${RUNS}: ${signed(growth)} (${((growth / idle.main) * 100).toFixed(1)} % of idle ${fmt(idle.main)}); flat means < ${(flat / KB).toFixed(0)} KB: ${growth < flat ? 'flat (no growth beyond it)' : 'GROWING'}`);
    }
    if (browserName === 'chromium') console.log(`idle budget ≤ ${fmt(IDLE_BUDGET)}: ${idle.main <= IDLE_BUDGET ? 'within' : 'over'}`);
    const nonzero = Object.entries(counts.counts).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`);
    if (nonzero.length) console.log(`retained sets after the runs (non-zero): ${nonzero.join(', ')}`);
  } finally {
    await h.close();
    await model.close();
    await site.close();
  }
}

if (!args.includes('--no-build')) {
  for (const b of browsers) execFileSync('npx', ['wxt', 'build', ...(b === 'firefox' ? ['-b', 'firefox'] : [])], { cwd: ROOT, stdio: 'ignore' });
}
for (const b of browsers) await bench(b);

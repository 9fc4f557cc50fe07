// Send click → the model request arrives: the time from the user's click on Send in the sidebar
// to the first model request reaching the scripted model server on 127.0.0.1. Run on demand:
// `npm run bench:send` (or `node bench/send.mjs [chromium|firefox] [--no-build] [--runs=10]`);
// `npm run bench` runs it too. Prints tables; writes nothing to the repo.
//
// - The sidebar page in a tab; a capture listener stamps the click on Send in the page
//   (performance.timeOrigin + performance.now()); the server stamps the request when it arrives
//   (its `receivedAt`, the same expression in Node). The offset between the two clocks is measured
//   as in bench/stream.mjs (15 round trips, the shortest counts) and taken off the page's times.
// - Warm: the first message of a new conversation (Send creates it, then sends), and a follow-up
//   in the same conversation. After the background was stopped (Chromium only): the MV3 service
//   worker stopped through the DevTools protocol (`ServiceWorker.stopAllWorkers`, the harness's
//   `stopBackground`), then Send at once. Firefox's MV2 background page is persistent: it cannot
//   be stopped short of reloading the add-on (which closes the sidebar), so Firefox is measured warm.
//   The same, Send a second after the stop: by then the sidebar's events port, dropped with the
//   worker, has reconnected and woken it (what a person with the sidebar open meets).
//   Each cold send is split by the worker's own marks (core/background/service.ts) and its
//   `performance.timeOrigin`: click → the worker starts → `main()` runs (background.js fetched,
//   compiled and evaluated) → start-up done (what every handler waits for) → the request arrives.
// - Baselines in the same page and run: a bare `runtime.sendMessage` round trip to the background
//   (a message no handler takes), and a fetch from the page to the model server (`GET /models`).
//   For the send after a stop, in a Chromium of its own: an extension whose worker is two lines,
//   stopped the same way and woken by a message from its page (the browser's own floor).

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startModelServer } from '../tests/model-server/server.mjs';
import { launch, ROOT } from '../tests/e2e/harness.mjs';
import { configureProvider, openSidebar, waitForIdle } from '../tests/e2e/helpers.mjs';
import { table } from './print.mjs';

const args = process.argv.slice(2);
const RUNS = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 10);
const COLD_RUNS = Math.max(3, Math.ceil(RUNS / 2));
const named = args.filter((a) => !a.startsWith('--'));
const selected = named.length ? named : ['chromium', 'firefox'];
const ANSWER = 'Request received.';
/** How long after a stop the last row's Send comes: the sidebar reconnects its events port after 200 ms. */
const REOPENED_AFTER_MS = 1000;

function quantile(values, q) {
  const sorted = [...values].filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

const fmt = (ms) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : '—');
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Offset of the page's clock against Node's (page − node), from the round trip with the least time. */
async function clockOffset(page) {
  let best;
  for (let i = 0; i < 15; i++) {
    const t0 = now();
    const p = await page.evaluate(() => performance.timeOrigin + performance.now());
    const t1 = now();
    if (!best || t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: p - (t0 + t1) / 2 };
  }
  return best;
}

/** Stamps each click on the composer's Send button, in the page, as it is dispatched. */
function installClickStamp() {
  globalThis.__sendClicks = [];
  document.addEventListener(
    'click',
    (event) => {
      if (event.target instanceof Element && event.target.closest('form.composer button[type="submit"]')) {
        globalThis.__sendClicks.push(performance.timeOrigin + performance.now());
      }
    },
    true,
  );
}

/** Baselines from the page: a bare message round trip to the background, and a fetch to the model server. */
function baselines({ url, n }) {
  const api = globalThis.browser ?? globalThis.chrome;
  return (async () => {
    const message = [];
    const fetched = [];
    for (let i = 0; i < n; i++) {
      let t0 = performance.now();
      // A message no handler takes: the background's listener looks and answers nothing.
      await api.runtime.sendMessage({ id: -1, type: 'bench:ping', data: null, timestamp: Date.now() }).catch(() => undefined);
      message.push(performance.now() - t0);
      t0 = performance.now();
      await (await fetch(`${url}/models`)).text();
      fetched.push(performance.now() - t0);
    }
    return { message, fetched };
  })();
}

/**
 * The marks the background sets on its own clock (core/background/service.ts): when `main()` ran
 * (the script evaluated) and when start-up was done, from the start of the running worker
 * (`origin`: when it started, on the browser's clock, as the page's click stamps).
 */
async function workerMarks(h) {
  const worker = h.context.serviceWorkers().at(-1);
  const none = { origin: NaN, main: NaN, started: NaN };
  if (!worker) return none;
  return worker
    .evaluate(() => ({
      origin: performance.timeOrigin,
      main: performance.getEntriesByName('sidequest:main')[0]?.startTime ?? NaN,
      started: performance.getEntriesByName('sidequest:started')[0]?.startTime ?? NaN,
    }))
    .catch(() => none);
}

/**
 * The floor of a send after a stop, in the same run: an extension whose worker is two lines (a
 * listener that answers), stopped as the bench stops Sidequest's and woken by a message from its
 * own page, in a Chromium of its own. Returns the times from the message to the answer (ms).
 */
async function bareWorkerWakes(n) {
  const { chromium } = await import('playwright-core');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sidequest-bare-worker-'));
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'bare worker', version: '1', background: { service_worker: 'worker.js' } }));
  await writeFile(path.join(dir, 'worker.js'), 'chrome.runtime.onMessage.addListener((message, sender, reply) => void reply(true));\n');
  await writeFile(path.join(dir, 'page.html'), '<!doctype html><title>bare worker</title>');
  const context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
  });
  try {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    const page = await context.newPage();
    await page.goto(`chrome-extension://${new URL(worker.url()).host}/page.html`);
    const cdp = await context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    const wakes = [];
    for (let i = 0; i < n; i++) {
      await cdp.send('ServiceWorker.stopAllWorkers');
      await sleep(300);
      wakes.push(
        await page.evaluate(async () => {
          const started = performance.now();
          await chrome.runtime.sendMessage('wake');
          return performance.now() - started;
        }),
      );
    }
    return wakes;
  } finally {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(browserName) {
  const model = await startModelServer({ script: () => ({ text: ANSWER }) });
  const h = await launch(browserName, { preciseClock: true });
  try {
    (await configureProvider(h, { baseUrl: model.url })).close();
    const sidebar = await openSidebar(h);
    await sidebar.evaluate(installClickStamp);
    let clock = await clockOffset(sidebar);

    /** The last Send's click and the request's arrival, on the page's clock. */
    let last = { clickAt: NaN, arrivedAt: NaN };
    /** One Send: returns click → request arrived (ms), or NaN if no request came. */
    const sendOnce = async (text, { fresh }) => {
      if (fresh) await sidebar.click('button', 'New conversation');
      await sidebar.fill('Message', text);
      const before = model.requests.length;
      const clicks = await sidebar.evaluate(() => globalThis.__sendClicks.length);
      await sidebar.click('button', 'Send');
      const deadline = Date.now() + 20_000;
      while (model.requests.length === before && Date.now() < deadline) await sleep(5);
      const request = model.requests[before];
      await waitForIdle(sidebar);
      const clickAt = await sidebar.evaluate((i) => globalThis.__sendClicks[i], clicks);
      if (!request || clickAt === undefined) return NaN;
      last = { clickAt, arrivedAt: performance.timeOrigin + request.receivedAt + clock.offset };
      return last.arrivedAt - clickAt;
    };

    // One unreported warm-up of each path.
    await sendOnce('Warm-up', { fresh: true });
    await sendOnce('Warm-up again', { fresh: false });
    const fresh = [];
    const followUp = [];
    for (let i = 0; i < RUNS; i++) {
      fresh.push(await sendOnce(`New conversation ${i + 1}`, { fresh: true }));
      followUp.push(await sendOnce(`Follow-up ${i + 1}`, { fresh: false }));
    }
    const cold = [];
    const coldParts = { woken: [], main: [], started: [], sent: [] };
    const later = [];
    let wokenBefore = 0;
    if (browserName === 'chromium') {
      for (let i = 0; i < COLD_RUNS; i++) {
        await sidebar.click('button', 'New conversation');
        await h.stopBackground();
        cold.push(await sendOnce(`After a stop ${i + 1}`, { fresh: false }));
        const marks = await workerMarks(h);
        coldParts.woken.push(marks.origin - last.clickAt);
        coldParts.main.push(marks.main);
        coldParts.started.push(marks.started - marks.main);
        coldParts.sent.push(last.arrivedAt - (marks.origin + marks.started));
        // The page's own clock offset again (a stopped worker does not move it, but the tab may have slept).
        clock = await clockOffset(sidebar);
      }
      // What a person with the sidebar open meets: its events port dropped with the worker, and
      // reconnects 200 ms later (core/ui/events.ts), which wakes the worker before they click.
      for (let i = 0; i < COLD_RUNS; i++) {
        await sidebar.click('button', 'New conversation');
        // Idle a moment first, as before Chrome stops a worker (it does after 30 s).
        await sleep(REOPENED_AFTER_MS);
        await h.stopBackground();
        await sleep(REOPENED_AFTER_MS);
        later.push(await sendOnce(`A second after a stop ${i + 1}`, { fresh: false }));
        const marks = await workerMarks(h);
        if (marks.origin < last.clickAt) wokenBefore++;
        clock = await clockOffset(sidebar);
      }
    }
    const base = await sidebar.evaluate(baselines, { url: model.url, n: 20 });
    const bare = cold.length ? await bareWorkerWakes(COLD_RUNS * 2) : [];
    const loadavg = (await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`\n## Send click → model request arrives, ${browserName} (scripted model on 127.0.0.1; load average ${loadavg})\n`);
    console.log(`clock page − node: ${clock.offset.toFixed(2)} ms (round trip ${clock.rtt.toFixed(2)} ms; page times are corrected by it)`);
    const row = (what, values, budget) => [what, values.length, fmt(quantile(values, 0.5)), fmt(quantile(values, 0.95)), fmt(Math.min(...values)), budget];
    table([
      ['what', 'n', 'median', 'p95', 'min', 'budget'],
      row('Send, new conversation (warm)', fresh, '≤ 25 ms'),
      row('Send, follow-up in the conversation (warm)', followUp, '≤ 25 ms'),
      ...(cold.length
        ? [
            row('Send after the service worker was stopped', cold, '≤ 60 ms'),
            row('  of it: click → the worker starts', coldParts.woken, ''),
            row('  of it: worker start → main() (background.js compiled and evaluated)', coldParts.main, ''),
            row('  of it: main() → start-up done', coldParts.started, ''),
            row('  of it: start-up done → request arrives', coldParts.sent, ''),
            row(`Send ${REOPENED_AFTER_MS / 1000} s after the worker was stopped (the sidebar's port woke it: ${wokenBefore} of ${later.length})`, later, ''),
          ]
        : [['Send after the background was stopped', 0, 'n/a: Firefox MV2 keeps its background page', '', '', '']]),
      row('bare runtime.sendMessage round trip (baseline)', base.message, ''),
      ...(bare.length ? [row('a worker of two lines, stopped, woken by a message: message → answer (baseline)', bare, '')] : []),
      row('fetch page → model server, GET /models (baseline)', base.fetched, ''),
    ]);
    const ratio = quantile(fresh, 0.5) / quantile(base.message, 0.5);
    console.log(`new conversation median / bare message round trip: ${ratio.toFixed(1)}×`);
    if (bare.length) console.log(`send after a stop, median / a worker of two lines woken: ${(quantile(cold, 0.5) / quantile(bare, 0.5)).toFixed(1)}×`);
  } finally {
    await h.close();
    await model.close();
  }
}

if (!args.includes('--no-build')) {
  execFileSync('npx', ['wxt', 'build'], { cwd: ROOT, stdio: 'ignore' });
  execFileSync('npx', ['wxt', 'build', '-b', 'firefox'], { cwd: ROOT, stdio: 'ignore' });
}
for (const b of selected) await measure(b);

// A long conversation kept in the context window: what the extension spends on context management
// per agent step (turning the stored history into the prompt, measuring it, shortening it, the
// summary), and how many summary requests the model is sent. Run on demand: `npm run bench:context`,
// or `node bench/context.mjs [chromium|firefox] [--steps=300] [--no-build]`. Prints tables; writes
// nothing to the repo.
//
// The built extension (a benchmark build: `npm run build:bench`) in the real browser, with the
// scripted model on 127.0.0.1 and a profile whose context window is 32k tokens. Run 1: the agent
// reads 300 local pages with web_fetch (each result ≈ 20 KB), one a step. Run 2, in the same
// conversation: the user asks for 10 more. The background times, per request, `toModelPrompt`
// and the context window's `fit` (`core/agent/context-timing.ts`, 'getContextTimings'); the
// summary requests (recognized by their system prompt, SUMMARY_SYSTEM_PROMPT) are counted at the
// model server. Baselines in the same run: the whole step (request → next request, the model
// server's clock) and one JSON.stringify of the last request's prompt, in the background.

import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { startModelServer, contentText } from '../tests/model-server/server.mjs';
import { launch, ROOT } from '../tests/e2e/harness.mjs';
import { allowLocalOrigins, openSidebar, sendMessage, waitForIdle } from '../tests/e2e/helpers.mjs';
import { readFileSync } from 'node:fs';
import { table, quantile } from './print.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const browsers = args.filter((a) => !a.startsWith('--')).length ? args.filter((a) => !a.startsWith('--')) : ['chromium', 'firefox'];
const STEPS = flag('steps', 300);
const MORE = flag('more', 10);
const CONTEXT = flag('context', 32_768);
const RESULT_CHARS = 20_000;
// The first line of SUMMARY_SYSTEM_PROMPT (core/agent/context-window.ts).
const SUMMARY_MARK = 'You summarize the earlier part of a conversation';

const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(3)} ms` : '–');
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Page n: ≈ 20 KB of article text (distinct per page: the same page read again would be a loop). */
function page(n) {
  const paragraphs = [];
  for (let i = 0; paragraphs.join('').length < RESULT_CHARS; i++) {
    paragraphs.push(`<p>Page ${n}, paragraph ${i + 1}: tide pools keep their animals through winter storms; measurement ${n * 31 + i * 17} was taken at dawn near the north rocks.</p>`);
  }
  return `<!doctype html><html><head><title>Page ${n}</title></head><body><main><article><h1>Page ${n}</h1>${paragraphs.join('')}</article></main></body></html>`;
}

async function startPages() {
  const server = http.createServer((req, res) => {
    const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? 0);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(n));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((r) => server.close(r)) };
}

/** Calls the background's protocol from an extension page, as @webext-core/messaging does. */
async function callBackground(p, type, data) {
  const reply = await p.evaluate(
    ([t, d]) => (globalThis.browser ?? globalThis.chrome).runtime.sendMessage({ id: 1, type: t, data: d, timestamp: Date.now() }),
    [type, data],
  );
  if (reply?.err) throw new Error(reply.err.message);
  return reply.res;
}

/** The default profile: the scripted model, with the context window set (Advanced → Context window). */
async function configure(h, baseUrl) {
  const options = await h.openExtensionPage('options.html', { width: 1000, height: 900 });
  await options.click('link', 'Model provider');
  await options.waitFor(() => document.querySelector('#base-url')?.value !== '');
  await options.fill('Base URL', baseUrl);
  await options.fill('Model', 'scripted-model');
  await options.evaluate((limit) => {
    document.querySelector('details.advanced').open = true;
    const input = document.querySelector('#context-length');
    input.value = String(limit);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, CONTEXT);
  await options.click('button', 'Save');
  await options.waitForText('Saved.');
  await options.close();
}

async function bench(browserName) {
  const model = await startModelServer();
  const pages = await startPages();
  const h = await launch(browserName, { preciseClock: true });
  try {
    await configure(h, model.url);
    const sidebar = await openSidebar(h);
    await allowLocalOrigins(sidebar, [pages.origin]);
    await sidebar.evaluate(() => (globalThis.browser ?? globalThis.chrome).storage.local.set({ agent: { maxSteps: 1000 } }));

    const runs = [];
    let read = 0;
    for (const [index, target] of [STEPS, STEPS + MORE].entries()) {
      const run = { summaries: 0, steps: [], requests: [] };
      runs.push(run);
      const done = `Run ${index + 1} done: ${target} pages read.`;
      let answered = false;
      model.setScript((req) => {
        if (!req.tools.length && contentText(req.messages[0]).startsWith(SUMMARY_MARK)) {
          run.summaries++;
          return { text: `The user asked to read the pages one by one; ${read} pages were read so far, each about tide pools and measurements.` };
        }
        run.requests.push(req.receivedAt);
        if (read < target) {
          read++;
          return { text: `Reading page ${read}.`, toolCalls: [{ name: 'web_fetch', arguments: { url: `${pages.origin}/page?n=${read}` } }] };
        }
        answered = true;
        return { text: done };
      });
      await callBackground(sidebar, 'getContextTimings', { reset: true });
      const started = Date.now();
      if (index === 0) {
        await sidebar.click('button', 'New conversation');
        await sendMessage(sidebar, `Read the pages 1 to ${STEPS} one by one with web_fetch, then say when you are done.`);
      } else {
        await sendMessage(sidebar, `Now read ${MORE} more.`);
      }
      const progress = setInterval(() => process.env.BENCH_VERBOSE && console.log(`[${browserName}] run ${index + 1}: ${read} pages read, ${run.summaries} summaries`), 10_000);
      try {
        // Watched from here, not in the page: a page with hundreds of 20 KB results is slow to search.
        for (const until = Date.now() + 60 * 60_000; !answered; ) {
          if (Date.now() > until) throw new Error(`run ${index + 1} did not finish`);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        await waitForIdle(sidebar, 300_000);
      } catch (error) {
        console.log(`[${browserName}] stuck at ${read} pages read; the sidebar shows:\n${(await sidebar.evaluate(() => document.body.innerText).catch(() => '')).slice(-1500)}`);
        throw error;
      } finally {
        clearInterval(progress);
      }
      await waitForIdle(sidebar);
      run.seconds = (Date.now() - started) / 1000;
      run.context = await callBackground(sidebar, 'getContextTimings', { reset: true });
      for (let i = 1; i < run.requests.length; i++) run.steps.push(run.requests[i] - run.requests[i - 1]);
      model.reset();
    }

    console.log(`\n## Context management in ${browserName}: ${STEPS} steps of ≈ 20 KB results, a ${CONTEXT}-token window (load average ${loadavg()})\n`);
    for (const [index, run] of runs.entries()) {
      const t = run.context.timings;
      // Per request: the prompt built + fitted, without the model's summary requests and the summary's storage.
      const compute = t.map((x) => x.convertMs + x.fitMs - x.modelMs - x.storageMs);
      const withStorage = t.map((x) => x.convertMs + x.fitMs - x.modelMs);
      const plain = t.filter((x) => !x.summaries).map((x) => x.convertMs + x.fitMs - x.modelMs - x.storageMs);
      const late = t.slice(-50).map((x) => x.convertMs + x.fitMs - x.modelMs - x.storageMs);
      console.log(`Run ${index + 1}: ${t.length} requests, ${run.summaries} summary requests, ${run.seconds.toFixed(0)} s; last prompt ${t.at(-1)?.messages ?? 0} messages, ${(run.context.chars / 1024).toFixed(0)} KB as JSON\n`);
      table([
        ['per request', 'median', 'p95', 'max'],
        ['context management (toModelPrompt + fit, no model, no storage)', ms(quantile(compute, 0.5)), ms(quantile(compute, 0.95)), ms(Math.max(...compute))],
        ['  toModelPrompt', ms(quantile(t.map((x) => x.convertMs), 0.5)), ms(quantile(t.map((x) => x.convertMs), 0.95)), ms(Math.max(...t.map((x) => x.convertMs)))],
        ['  fit', ms(quantile(t.map((x) => x.fitMs - x.modelMs - x.storageMs), 0.5)), ms(quantile(t.map((x) => x.fitMs - x.modelMs - x.storageMs), 0.95)), ms(Math.max(...t.map((x) => x.fitMs - x.modelMs - x.storageMs)))],
        ['  the same, steps without a summary request', ms(quantile(plain, 0.5)), ms(quantile(plain, 0.95)), ms(Math.max(...plain))],
        ['  the same, the last 50 requests', ms(quantile(late, 0.5)), ms(quantile(late, 0.95)), ms(Math.max(...late))],
        ['  with the summary\'s storage', ms(quantile(withStorage, 0.5)), ms(quantile(withStorage, 0.95)), ms(Math.max(...withStorage))],
        ['whole step, request → next request (baseline)', ms(quantile(run.steps, 0.5)), ms(quantile(run.steps, 0.95)), ms(Math.max(...run.steps))],
        ['one JSON.stringify of the last prompt (baseline)', ms(quantile(run.context.stringify, 0.5)), '', ms(Math.max(...run.context.stringify))],
      ]);
      console.log(
        `context management / whole step (medians): ${((quantile(compute, 0.5) / quantile(run.steps, 0.5)) * 100).toFixed(2)} %; / one stringify: ${(quantile(compute, 0.5) / quantile(run.context.stringify, 0.5)).toFixed(2)}×; budget ≤ 1 ms\n`,
      );
    }
    console.log(`summary requests: run 1 ${runs[0].summaries}, run 2 ${runs[1].summaries} (run 2 reuses run 1's summary: 0 until the conversation grows past it)`);
  } finally {
    await h.close();
    await model.close();
    await pages.close();
  }
}

if (!args.includes('--no-build')) {
  // The context timer and its message exist only in benchmark builds.
  execFileSync('npm', ['run', '--silent', 'build:bench'], { cwd: ROOT, stdio: 'ignore' });
}
process.env.SIDEQUEST_BUILD_MODE = 'bench';
for (const b of browsers) await bench(b);

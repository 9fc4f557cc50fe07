// One page action's time from call to result, on TodoMVC's shipped builds (tests/fixtures/todomvc),
// in Chromium and Firefox with the benchmark build of the extension (built here unless --no-build:
// `npm run build:bench`, which answers the benchmark-only `measureToolCalls` and
// `measureExecuteScript`):
//
//   node bench/page-actions.mjs [chromium|firefox] [--calls 40] [--apps react,vue] [--no-build]
//   (npm run bench:page-actions)
//
// Measured in the background around `registry.invoke` (input validation, finding the tab, the page
// agent's request through `scripting.executeScript`, the actionability checks, the events, the
// "what changed" outline, the reply's checks): `click` on the todo's checkbox (it ticks and unticks,
// a real change each time) and `fill` of the new-todo box (no submit). Baselines in the same run
// and tab: a `scripting.executeScript` round trip of a function that does nothing (the floor of any
// page call), and `read_page` of the whole page.
//
// Prints a table; writes the raw figures to bench/results/page-actions.json.

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launch, ROOT, selectedBrowsers } from '../tests/e2e/harness.mjs';
import { outlineNodes, readable, startPageActionsServer, tabWith, TODOMVC_APPS, waitForDeep } from '../tests/e2e/page-actions-helpers.mjs';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { calls: { type: 'string', default: '40' }, apps: { type: 'string' }, 'no-build': { type: 'boolean', default: false } },
});
const CALLS = Number(args.calls);
const WARMUP = 5;
const APPS = args.apps ? args.apps.split(',') : TODOMVC_APPS;
const BROWSERS = positionals.length ? positionals : selectedBrowsers();

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: values.length, p50: at(0.5), p95: at(0.95), mean: values.reduce((s, v) => s + v, 0) / values.length, max: sorted.at(-1) };
}
const fmt = (ms) => (ms < 1 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));

if (!args['no-build']) execFileSync('npm', ['run', '--silent', 'build:bench'], { cwd: ROOT, stdio: 'ignore' });
process.env.SIDEQUEST_BUILD_MODE = 'bench';
const site = await startPageActionsServer();
const results = [];

for (const browserName of BROWSERS) {
  const h = await launch(browserName, { preciseClock: true });
  try {
    const ext = await h.openExtensionPage('popup.html');
    // The extension's own protocol (@webext-core/messaging's format), from an extension page.
    const send = (type, data) =>
      ext.evaluate(
        async ([type, data]) => {
          const api = globalThis.browser ?? globalThis.chrome;
          const reply = await api.runtime.sendMessage({ id: Math.floor(Math.random() * 1e9), type, data, timestamp: Date.now() });
          if (reply?.err) throw new Error(reply.err.message);
          return reply?.res;
        },
        [type, data],
      );
    const measure = async (name, input, iterations) => {
      const r = await send('measureToolCalls', { name, input, iterations });
      if (r.ok !== iterations) throw new Error(`${name} failed in ${browserName}: ${r.lastError}`);
      return r;
    };

    for (const app of APPS) {
      const url = site.url(`/todomvc/${app}/`);
      const page = await h.newPage(url);
      await waitForDeep(page, 'input[placeholder="What needs to be done?"]');
      if (page.raw.bringToFront) await page.raw.bringToFront();
      const tabId = await tabWith(ext, url);
      const tab_id = tabId;

      const outline = async () => readable((await measure('read_page', { tab_id }, 1)).lastOutput);
      const box = outlineNodes(await outline(), 'textbox')[0];
      if (!box) throw new Error(`No textbox in ${app}'s outline`);
      await measure('fill', { tab_id, ref: box.ref, text: 'buy milk', submit: true }, 1);
      const checkbox = outlineNodes(await outline(), 'checkbox')
        .filter((n) => !/\ball\b/i.test(n.name))
        .at(-1);
      if (!checkbox) throw new Error(`No todo checkbox in ${app}'s outline after adding one`);

      const run = async (fn) => {
        await fn(WARMUP);
        return fn(CALLS);
      };
      const exec = await run(async (n) => (await send('measureExecuteScript', { tabId, iterations: n })).durations);
      const read = await run(async (n) => (await measure('read_page', { tab_id }, n)).durations);
      const click = await run(async (n) => (await measure('click', { tab_id, ref: checkbox.ref }, n)).durations);
      const fill = await run(async (n) => (await measure('fill', { tab_id, ref: box.ref, text: 'buy bread' }, n)).durations);
      // Beside Playwright's own click through the DevTools protocol (issue 41): the same checkbox,
      // same tab, same run; Playwright's actionability checks, then Input.dispatchMouseEvent
      // (trusted events), timed in Node around `locator.click()` (its CDP round trips included).
      let playwright;
      if (browserName === 'chromium' && page.raw.getByRole) {
        const toggle = page.raw.getByRole('checkbox').last();
        playwright = await run(async (n) => {
          const durations = [];
          for (let i = 0; i < n; i++) {
            const t0 = performance.now();
            await toggle.click();
            durations.push(performance.now() - t0);
          }
          return durations;
        });
      }
      const row = { browser: browserName, app, exec: stats(exec), read_page: stats(read), click: stats(click), fill: stats(fill), ...(playwright ? { playwright_click: stats(playwright) } : {}) };
      results.push({ ...row, raw: { exec, read, click, fill, ...(playwright ? { playwright } : {}) } });
      if (playwright) console.log(`${browserName.padEnd(8)} ${app.padEnd(15)} click ${fmt(row.click.p50)} ms beside Playwright's CDP click ${fmt(row.playwright_click.p50)} ms (p50): ${(row.click.p50 / row.playwright_click.p50).toFixed(2)}×`);
      console.log(
        `${browserName.padEnd(8)} ${app.padEnd(15)} executeScript ${fmt(row.exec.p50)} / ${fmt(row.exec.p95)}  read_page ${fmt(row.read_page.p50)} / ${fmt(row.read_page.p95)}  click ${fmt(row.click.p50)} / ${fmt(row.click.p95)}  fill ${fmt(row.fill.p50)} / ${fmt(row.fill.p95)} ms (p50 / p95)`,
      );
      await page.close();
    }
  } finally {
    await h.close();
  }
}
await site.close();

console.log('\n| browser | app | executeScript no-op (baseline) | read_page | click | fill |');
console.log('|---|---|---|---|---|---|');
for (const r of results) {
  const cell = (s) => `${fmt(s.p50)} / ${fmt(s.p95)}`;
  console.log(`| ${r.browser} | ${r.app} | ${cell(r.exec)} | ${cell(r.read_page)} | ${cell(r.click)} | ${cell(r.fill)} |`);
}
for (const browserName of BROWSERS) {
  const mine = results.filter((r) => r.browser === browserName);
  const all = (k) => stats(mine.flatMap((r) => r.raw[k]));
  const click = all('click');
  const fill = all('fill');
  const exec = all('exec');
  console.log(
    `${browserName}: all apps, click ${fmt(click.p50)} / ${fmt(click.p95)} ms, fill ${fmt(fill.p50)} / ${fmt(fill.p95)} ms, executeScript ${fmt(exec.p50)} / ${fmt(exec.p95)} ms (p50 / p95); budget ≤ 50 ms median: ${click.p50 <= 50 && fill.p50 <= 50 ? 'met' : 'NOT met'}`,
  );
}
const beside = results.filter((r) => r.raw.playwright);
if (beside.length) {
  const ours = stats(beside.flatMap((r) => r.raw.click));
  const theirs = stats(beside.flatMap((r) => r.raw.playwright));
  const ratio = ours.p50 / theirs.p50;
  console.log(`chromium: click ${fmt(ours.p50)} / ${fmt(ours.p95)} ms beside Playwright's CDP click ${fmt(theirs.p50)} / ${fmt(theirs.p95)} ms (p50 / p95): ratio ${ratio.toFixed(2)}× (budget ≤ 1.5×: ${ratio <= 1.5 ? 'met' : 'NOT met'})`);
}
await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
await writeFile(path.join(ROOT, 'bench/results/page-actions.json'), JSON.stringify({ calls: CALLS, at: new Date().toISOString(), results }, null, 1));

// Where a cold start of Chrome's service worker goes, module by module: `node bench/evaluation.mjs
// [starts] [--no-build]`. It builds the `marks` mode (`wxt build --mode marks`, in
// `.output/chrome-mv3-marks`: every module begins with a `performance.mark`, build/module-marks.ts)
// unless --no-build, then stops and wakes the worker `starts` times (default 10) and reads its marks:
// the worker's start → the first module (background.js fetched and compiled), the evaluation (first
// module → `main()`), `main()` → start-up done, and the modules whose top-level code took longest.
// The marks cost a little themselves (≈ 250 of them); compare figures of the same build only.
// Chromium only: Firefox's MV2 background page is not stopped. Prints tables; writes nothing.

import { execFileSync } from 'node:child_process';
import { quantile, table } from './print.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const STARTS = Number(args.find((a) => /^\d+$/.test(a)) ?? 10);
const MODULE_MARK = 'sidequest:module:';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => quantile(values, 0.5);

if (!args.includes('--no-build')) {
  execFileSync('npx', ['wxt', 'build', '--mode', 'marks'], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NODE_ENV: 'production' } });
}
process.env.SIDEQUEST_BUILD_MODE = 'marks';
const { launch } = await import('../tests/e2e/harness.mjs');

const h = await launch('chromium', { preciseClock: true });
const parts = { compiled: [], evaluated: [], started: [] };
const byModule = new Map();
try {
  // A page of the extension wakes the worker with a message no handler takes.
  const page = await h.openExtensionPage('popup.html');
  await sleep(500);
  for (let i = 0; i < STARTS; i++) {
    await h.stopBackground();
    await sleep(300);
    await page.evaluate(() => chrome.runtime.sendMessage({ id: -1, type: 'bench:ping', data: null, timestamp: Date.now() }).catch(() => undefined));
    // Start-up done (or given up on) before the marks are read.
    let marks = [];
    for (let wait = 0; wait < 50; wait++) {
      const worker = h.context.serviceWorkers().at(-1);
      marks = (await worker?.evaluate(() => performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])).catch(() => [])) ?? [];
      if (marks.some(([name]) => name === 'sidequest:started')) break;
      await sleep(100);
    }
    const at = (name) => marks.find(([n]) => n === name)?.[1] ?? NaN;
    const main = at('sidequest:main');
    const modules = marks.filter(([name, time]) => name.startsWith(MODULE_MARK) && time <= main);
    if (!modules.length) throw new Error('No module marks: is this the `marks` build?');
    parts.compiled.push(modules[0][1]);
    parts.evaluated.push(main - modules[0][1]);
    parts.started.push(at('sidequest:started') - main);
    modules.forEach(([name, time], k) => {
      const next = k + 1 < modules.length ? modules[k + 1][1] : main;
      const list = byModule.get(name) ?? [];
      list.push(next - time);
      byModule.set(name, list);
    });
  }
  const fmt = (ms) => `${ms.toFixed(2)} ms`;
  const evaluation = median(parts.evaluated);
  console.log(`\n## A cold start of Chrome's service worker (${STARTS} starts, medians; the \`marks\` build)\n`);
  table([
    ['part', 'median', 'min', 'max'],
    ...[
      ['worker start → first module (background.js fetched and compiled)', parts.compiled],
      ['first module → main() (evaluation)', parts.evaluated],
      ['main() → start-up done', parts.started],
    ].map(([what, values]) => [what, fmt(median(values)), fmt(Math.min(...values)), fmt(Math.max(...values))]),
  ]);
  console.log(`\nThe 20 modules whose top-level code took longest (of ${byModule.size} evaluated before main()):\n`);
  const rows = [...byModule].map(([name, values]) => [name.slice(MODULE_MARK.length), median(values)]).sort((a, b) => b[1] - a[1]);
  table([['module', 'median', 'share of the evaluation'], ...rows.slice(0, 20).map(([name, ms]) => [name, fmt(ms), `${((ms / evaluation) * 100).toFixed(1)} %`])]);
} finally {
  await h.close();
}

// A long day in the background, in Chromium and Firefox: 100 agent runs of 10 short scripted
// steps (list_tabs and read_page on a local page that opens before the run and closes after it;
// an extension page opened and closed now and then) leave no growing set behind. The background
// counts what it keeps in memory (`getRetainedCounts`, core/retained.ts: numbers only, for the
// extension's own pages): conversations' states, runs, streamed answers, event-port pages,
// listeners, waiting approvals, page-tool sessions and tab maps, plugin records, timers. The counts
// after run 50 and after run 100 must be equal, or, for a bounded cache, within its bound. Never a
// timing.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar } from './helpers.mjs';
import { callBackground, oneRun, runScript, STEPS } from './memory-runs.mjs';

const RUNS = Number(process.env.MEMORY_RUNS ?? 100);
/** The sets that grew from `before` to `now`, beyond their bound when they have one. */
function grown(before, now) {
  const out = [];
  for (const [name, count] of Object.entries(now.counts)) {
    const was = before.counts[name] ?? 0;
    const limit = now.limits[name];
    if (limit !== undefined ? count > limit : count > was) out.push(`${name}: ${was} → ${count}${limit !== undefined ? ` (bound ${limit})` : ''}`);
  }
  return out;
}

for (const browserName of selectedBrowsers()) {
  describe(`memory over a long day in ${browserName}`, { timeout: 900_000 }, () => {
    let h;
    let model;
    let site;
    let sidebar;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer();
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
      // The sidebar stays open all day (its event connection is one of the counted sets).
      sidebar = await openSidebar(h);
      model.setScript(runScript);
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test(`${RUNS} runs of ${STEPS} steps leave no growing set behind (counts after run ${RUNS / 2} and run ${RUNS})`, async (t) => {
      const taken = {};
      const idle = await callBackground(sidebar, 'getRetainedCounts');
      assert.ok(Object.keys(idle.counts).length > 10, 'the core and the plugins count what they keep');
      assert.ok(Object.keys(idle.counts).some((name) => name.startsWith('page_tools/')), 'plugins count theirs too');
      for (let n = 1; n <= RUNS; n++) {
        const run = await oneRun(h, sidebar, site, n);
        assert.deepEqual(run, { status: 'idle', tools: STEPS - 1, failed: [] }, `run ${n} took its ${STEPS} steps`);
        // An extension page opened and closed now and then (its event connection must go with it).
        if (n % 5 === 3) await (await h.openExtensionPage('popup.html')).close();
        if (n === RUNS / 2 || n === RUNS) {
          // A closed page's port and a closed tab's entries go on the browser's events: let them land.
          await new Promise((r) => setTimeout(r, 500));
          taken[n] = await callBackground(sidebar, 'getRetainedCounts');
        }
      }
      const half = taken[RUNS / 2];
      const end = taken[RUNS];
      t.diagnostic(`after run ${RUNS / 2}: ${JSON.stringify(half.counts)}`);
      t.diagnostic(`after run ${RUNS}: ${JSON.stringify(end.counts)}`);
      assert.deepEqual(Object.keys(end.counts), Object.keys(half.counts), 'the same sets are counted');
      assert.deepEqual(grown(half, end), [], `nothing grows from run ${RUNS / 2} to run ${RUNS}`);
      // What a finished day holds: no run, no streamed answer, no meter, no waiting card, no timer.
      for (const name of ['runner/runs', 'runner/streaming', 'runner/meters', 'gate/pendingApprovals', 'keepAlive/holders', 'interaction/waitingQuestions', 'page_tools/pendingCalls']) {
        assert.equal(end.counts[name], 0, `${name} is empty between runs`);
      }
      // The pages open before the runs (the sidebar in a tab; Firefox also opens its own sidebar panel
      // for a newly installed add-on), no more: the closed extension pages' connections were dropped.
      assert.equal(end.counts['events/ports'], idle.counts['events/ports'], 'only the pages open all day are connected');
      assert.equal(end.counts['page_tools/sessions'], 0, 'no page-tools session of a closed tab');
      assert.equal(end.counts['page-actions/controlledTabs'], 0, 'no controlled tab after the runs ended');
      assert.equal(end.counts['page-actions/tabTokens'], 0, 'no page token of a closed tab');
    });

    test('the counts are for the extension\'s own pages only', async () => {
      const page = await h.newPage(site.url('/beta.html'));
      try {
        // A web page has no runtime API at all; the content-script side is in sender-boundary.test.mjs.
        const api = await page.evaluate(() => typeof (globalThis.chrome?.runtime?.sendMessage ?? globalThis.browser?.runtime?.sendMessage));
        assert.equal(api, 'undefined');
      } finally {
        await page.close();
      }
    });
  });
}

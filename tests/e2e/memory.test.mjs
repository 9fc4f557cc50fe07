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

const RUNS = Number(process.env.MEMORY_RUNS ?? 100);
const STEPS = 10;

/** Calls the background's protocol from an extension page, as @webext-core/messaging frames it. */
export async function callBackground(page, type, data) {
  const reply = await page.evaluate(
    ([t, d]) => (globalThis.browser ?? globalThis.chrome).runtime.sendMessage({ id: 1, type: t, data: d, timestamp: Date.now() }),
    [type, data],
  );
  if (reply?.err) throw new Error(`${type}: ${reply.err.message}`);
  return reply?.res;
}

/**
 * The scripted model of one run: STEPS requests, the first STEPS - 1 each asking for one tool
 * (list_tabs and read_page in turn: read_page reads the tab the user looks at), the last answering.
 */
export function runScript(req) {
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const done = req.messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
  if (done >= STEPS - 1) return { text: `Run done after ${done} tools.` };
  return { toolCalls: [{ name: done % 2 === 0 ? 'list_tabs' : 'read_page', arguments: {} }] };
}

/**
 * One run as a person starts it: a page opens (the tab the agent reads), a new conversation gets a
 * message, the run ends, the page closes. Returns the conversation's end status and its tool results.
 */
export async function oneRun(h, ext, site, n) {
  const page = await h.newPage(site.url('/alpha.html'));
  try {
    const conversation = await callBackground(ext, 'createConversation');
    await callBackground(ext, 'sendMessage', { conversationId: conversation.id, text: `Run ${n}: look at my tabs and the page` });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const got = await callBackground(ext, 'getConversation', { id: conversation.id });
      if (got.conversation.status !== 'running') {
        const results = got.messages.filter((m) => m.role === 'tool');
        return { status: got.conversation.status, tools: results.length, failed: results.filter((m) => !m.result?.ok).map((m) => `${m.toolName}: ${m.result?.error}`) };
      }
      if (Date.now() > deadline) throw new Error(`run ${n} did not end`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await page.close();
  }
}

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
        if (n % 5 === 0) (await h.openExtensionPage('popup.html')).close();
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
      assert.equal(end.counts['events/ports'], 1, 'only the open sidebar is connected (closed pages were dropped)');
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

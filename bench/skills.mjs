// A replayed 10-step skill beside the same run with the scripted model (issue 21), in Chromium and
// Firefox with the production build (built here unless --no-build: `npm run build:all`):
//
//   node bench/skills.mjs [chromium|firefox] [--runs 7] [--no-build]   (npm run bench:skills)
//
// The run: `list_tabs`, then `read_page` of the tab it listed, nine times (read-only steps, so no
// card waits on a person; the site is allowed once with Always allow in a warm-up run), each read
// cut at another length (500, 550, … characters: the page's outline is longer), so that no read is
// the one before it again (the loop guard, core/agent/loop-guard.ts, ends a run that reads the
// same page a third time without acting; the replay passes the same guard). The model
// run: the scripted model on 127.0.0.1 answers each request at once with the next call. The
// replay: `/bench-ten` of the skill saved from that run (`skills/draft` + `skills/save`), which
// emits the same calls without the model (each `read_page`'s tab comes from step 1's result).
// Times come from the stored messages: the user's message → the run's last answer (both runs write
// the same messages), and the sum of the tools' own durations (`durationMs`), so the overhead of
// each is its time minus its tools'. Tokens: the runs' usage. Budget: replay ≤ 20 % of the model
// run's time, 0 tokens.
//
// Prints a table; writes the raw figures to bench/results/skills.json.

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startModelServer } from '../tests/model-server/server.mjs';
import { launch, ROOT, selectedBrowsers } from '../tests/e2e/harness.mjs';
import { configureProvider, openSidebar, sendMessage, startSite, tabIdOf, waitForIdle } from '../tests/e2e/helpers.mjs';
import { answerCards } from '../tests/e2e/page-actions-helpers.mjs';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '7' }, 'no-build': { type: 'boolean', default: false } },
});
const RUNS = Number(args.runs);
const STEPS = 10;
const BROWSERS = positionals.length ? positionals : selectedBrowsers();

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));

/** The extension's own protocol (@webext-core/messaging's format), from an extension page. */
async function callBackground(page, type, data) {
  const reply = await page.evaluate(
    ([t, d]) => (globalThis.browser ?? globalThis.chrome).runtime.sendMessage({ id: Math.floor(Math.random() * 1e9), type: t, data: d, timestamp: Date.now() }),
    [type, data],
  );
  if (reply?.err) throw new Error(`${type}: ${reply.err.message}`);
  return reply?.res;
}

const PAGE = `<!doctype html><html lang="en"><head><title>Bench page</title></head><body><h1>Orders</h1>
<table><tr><th>Order</th><th>Status</th></tr>${Array.from({ length: 20 }, (_, i) => `<tr><td>#${1000 + i}</td><td>${i % 3 ? 'shipped' : 'new'}</td></tr>`).join('')}</table>
<label for="q">Search orders</label> <input id="q"> <button type="button">Search</button></body></html>`;

if (!args['no-build']) execFileSync('npm', ['run', '--silent', 'build:all'], { cwd: ROOT, stdio: 'ignore' });
const site = await startSite('tools.example', { '/orders.html': () => ({ body: PAGE }) });
const results = [];

/** The run in the newest conversation: its time, its tools' time and its tokens, from the stored messages. */
async function lastRun(sidebar) {
  const [conversation] = (await callBackground(sidebar, 'listConversations')).sort((a, b) => b.createdAt - a.createdAt);
  const view = await callBackground(sidebar, 'getConversation', { id: conversation.id });
  const messages = view.messages;
  const user = messages.findLast((m) => m.role === 'user');
  const last = messages.at(-1);
  const tools = messages.filter((m) => m.role === 'tool' && m.createdAt >= user.createdAt);
  if (tools.length !== STEPS) throw new Error(`expected ${STEPS} tool results, got ${tools.length}: ${JSON.stringify(tools.map((t) => t.result ?? t.error)).slice(0, 800)}`);
  const failed = tools.filter((t) => t.result && t.result.ok === false);
  if (failed.length) throw new Error(`a step failed: ${JSON.stringify(failed[0]).slice(0, 800)}`);
  const usage = messages.filter((m) => m.role === 'assistant' && m.createdAt >= user.createdAt).map((m) => m.usage ?? {});
  const tokens = usage.reduce((s, u) => s + (u.inputTokens ?? 0) + (u.outputTokens ?? 0), 0);
  return {
    conversationId: conversation.id,
    total: last.createdAt - user.createdAt,
    tools: tools.reduce((s, t) => s + (t.durationMs ?? 0), 0),
    tokens,
    replayed: messages.some((m) => m.role === 'assistant' && m.by),
  };
}

for (const browserName of BROWSERS) {
  const model = await startModelServer();
  const h = await launch(browserName, { preciseClock: true });
  try {
    (await configureProvider(h, { baseUrl: model.url })).close();
    const page = await h.newPage(site.url('/orders.html'));
    const sidebar = await openSidebar(h, { autoApprove: false });
    const cards = answerCards(sidebar, () => 'Always allow');
    const tabId = await tabIdOf(sidebar, '/orders.html');
    model.setScript((req) => {
      const done = req.messages.filter((m) => m.role === 'tool').length;
      if (done === 0) return { toolCalls: [{ name: 'list_tabs', arguments: {} }] };
      if (done < STEPS) return { toolCalls: [{ name: 'read_page', arguments: { tab_id: tabId, max_length: 450 + 50 * done } }] };
      return { text: 'All ten steps done.' };
    });
    const modelRun = async (label) => {
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, `Read my orders page ten times (${label})`);
      await sidebar.waitForText('All ten steps done.', { timeout: 120_000, within: 'main' });
      await waitForIdle(sidebar);
      return lastRun(sidebar);
    };
    const replayRun = async () => {
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, '/bench-ten');
      await sidebar.waitForText('Replayed', { timeout: 120_000, within: 'main' });
      await waitForIdle(sidebar);
      return lastRun(sidebar);
    };

    // Warm-up: the site's read allowed for good (Always allow), and the skill saved from the run.
    const first = await modelRun('warm-up');
    const draft = await callBackground(sidebar, 'skills/draft', { conversationId: first.conversationId });
    if (draft.steps.length !== STEPS) throw new Error(`the draft has ${draft.steps.length} steps, not ${STEPS}`);
    await callBackground(sidebar, 'skills/save', { draft: { ...draft, name: 'bench-ten', description: 'Bench: read the orders page ten times.' } });
    await replayRun();
    cards.stop();

    const model_ = [];
    const replay = [];
    let modelRequestsDuringReplay = 0;
    for (let i = 0; i < RUNS; i++) {
      model_.push(await modelRun(`run ${i + 1}`));
      const before = model.requests.length;
      const r = await replayRun();
      modelRequestsDuringReplay += model.requests.length - before;
      if (!r.replayed) throw new Error('the replay was not marked as replayed');
      replay.push(r);
    }
    const m = { total: median(model_.map((r) => r.total)), tools: median(model_.map((r) => r.tools)), tokens: median(model_.map((r) => r.tokens)) };
    const r = { total: median(replay.map((x) => x.total)), tools: median(replay.map((x) => x.tools)), tokens: Math.max(...replay.map((x) => x.tokens)) };
    const row = {
      browser: browserName,
      runs: RUNS,
      model: m,
      replay: r,
      modelOverhead: median(model_.map((x) => x.total - x.tools)),
      replayOverhead: median(replay.map((x) => x.total - x.tools)),
      ratio: r.total / m.total,
      modelRequestsDuringReplay,
      asked: cards.cards.length,
    };
    results.push({ ...row, raw: { model: model_, replay } });
    console.log(
      `${browserName.padEnd(8)} model run ${fmt(m.total)} ms (tools ${fmt(m.tools)}, ${m.tokens} tokens) · replay ${fmt(r.total)} ms (tools ${fmt(r.tools)}, ${r.tokens} tokens) · replay/model ${(row.ratio * 100).toFixed(0)} % · model requests during replays: ${modelRequestsDuringReplay}`,
    );
    await page.close();
  } finally {
    await h.close();
    await model.close();
  }
}
await site.close();

console.log(`\n| browser | model run (median of ${RUNS}) | its tools | replay | its tools | overhead model / replay | replay ÷ model | replay tokens |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const x of results) {
  console.log(
    `| ${x.browser} | ${fmt(x.model.total)} ms | ${fmt(x.model.tools)} ms | ${fmt(x.replay.total)} ms | ${fmt(x.replay.tools)} ms | ${fmt(x.modelOverhead)} / ${fmt(x.replayOverhead)} ms | **${(x.ratio * 100).toFixed(0)} %** | ${x.replay.tokens} |`,
  );
}
for (const x of results) console.log(`${x.browser}: budget replay ≤ 20 % of the model run, 0 tokens: ${x.ratio <= 0.2 && x.replay.tokens === 0 ? 'met' : 'NOT met'}`);
await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
await writeFile(path.join(ROOT, 'bench/results/skills.json'), JSON.stringify({ runs: RUNS, at: new Date().toISOString(), results }, null, 1));

// A lean prompt (issue 40): what the instructions and tool definitions cost in tokens, with every
// built-in plugin on, before and after the catalogue (plugins/catalogue, `find_tools`). Run on
// demand: `npm run bench:prompt`, or `node bench/prompt.mjs [chromium|firefox] [--no-build]`
// (both when none is named). Prints tables; writes nothing to the repo.
//
// The built extension (a benchmark build: `npm run build:bench`; bench/run.mjs makes it in
// `npm run bench`, hence --no-build there) in the real browser, with the scripted model on
// 127.0.0.1 and the fixture page open in a tab. One browser session, two runs of the same
// ten-step task in a new conversation each: first with the catalogue plugin on (after: the core set
// the plugins mark `alwaysOffered` + `find_tools`, the rest offered once found or called,
// core/agent/offered-tools.ts), then with it switched off on the options page (Settings → Plugins,
// as a person would): every tool in every request, the behaviour before the catalogue.
//
// Measured at the model server, from each request's body as it arrived: tokens ≈ characters ÷ 4
// of the JSON on the wire: `body.tools`, the system message, and the conversation's own messages
// (every message but the system one: the user's words, the model's calls, the tools' results),
// which is the baseline of the same run. The scripted server has no tokenizer: the usage it sends
// back is a fixed placeholder (prompt_tokens 10, tests/model-server/server.mjs), not a count, so
// no provider count is printed beside the estimate.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startModelServer } from '../tests/model-server/server.mjs';
import { startFixtureServer } from '../tests/e2e/fixture-server.mjs';
import { launch, ROOT } from '../tests/e2e/harness.mjs';
import { configureProvider, openSidebar, sendMessage, tabIdOf, waitForIdle } from '../tests/e2e/helpers.mjs';
import { table } from './print.mjs';

const args = process.argv.slice(2);
const named = args.filter((a) => !a.startsWith('--'));
const browsers = named.length ? named : ['chromium', 'firefox'];

/** The plugin's switch on the options page (its name, "Tool search", + " plugin"). */
const CATALOGUE_SWITCH = 'Tool search plugin';
const DONE = 'All ten steps are done.';
const CHARS_PER_TOKEN = 4;

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const tokens = (chars) => chars / CHARS_PER_TOKEN;
const n = (v) => Math.round(v).toLocaleString('en-US');
const ratio = (after, before) => (before ? `${(after / before).toFixed(3)}×` : '–');

/**
 * The ten calls, one a step: tools that need no page of their own and no approval card, varied so
 * that the loop guard (three identical calls with identical results end a run) never ends the run.
 * Step 3 is `find_tools` with the catalogue on; with it off there is no such tool, and the step
 * lists the active tab instead.
 */
function calls(tabId, catalogue) {
  return [
    { name: 'list_tabs', arguments: {} },
    { name: 'get_tab_content', arguments: { tab_id: tabId } },
    catalogue ? { name: 'find_tools', arguments: { query: 'to-do list tasks' } } : { name: 'list_tabs', arguments: { active: true } },
    { name: 'list_tasks', arguments: {} },
    { name: 'create_task', arguments: { subject: 'Compare the fixture page with the notes' } },
    { name: 'read_page', arguments: { tab_id: tabId } },
    { name: 'list_tasks', arguments: {} },
    { name: 'list_tabs', arguments: { title_pattern: 'Alpha' } },
    { name: 'get_tab_content', arguments: { tab_id: tabId, selector: 'h1' } },
    { name: 'opfs_list', arguments: {} },
  ];
}

/** The parts of one request, in characters of JSON as it arrived. */
function parts(req) {
  const system = req.messages.filter((m) => m.role === 'system');
  const conversation = req.messages.filter((m) => m.role !== 'system');
  return {
    tools: req.body.tools ? JSON.stringify(req.body.tools).length : 0,
    system: system.length ? JSON.stringify(system).length : 0,
    conversation: JSON.stringify(conversation).length,
    all: JSON.stringify(req.body).length,
    toolCount: req.toolNames.length,
  };
}

/** Whether the catalogue's switch is on, as the options page shows it. */
const switchOn = (options) => options.evaluate((name) => document.querySelector(`[aria-label="${name}"]`)?.checked ?? null, CATALOGUE_SWITCH);

/** The ten-step task in a new conversation; returns its requests and what the run met. */
async function task(sidebar, model, tabId, catalogue) {
  const plan = calls(tabId, catalogue);
  model.reset();
  model.setScript((req) => {
    const done = req.messages.filter((m) => m.role === 'tool').length;
    return done < plan.length ? { text: `Step ${done + 1}.`, toolCalls: [plan[done]] } : { text: DONE };
  });
  const approvedBefore = sidebar.approved ?? 0;
  await sidebar.click('button', 'New conversation');
  await sendMessage(sidebar, 'Look at my tabs and the fixture page, keep a to-do list, and tell me when all ten steps are done.');
  for (const until = Date.now() + 60_000; model.requests.length <= plan.length && Date.now() < until; ) await sleep(50);
  await sidebar.waitForText(DONE, { timeout: 30_000, within: 'main' });
  await waitForIdle(sidebar);
  const requests = [...model.requests];
  if (requests.length !== plan.length + 1) throw new Error(`expected ${plan.length + 1} requests, the model got ${requests.length}`);
  // Each tool's result as the model read it: the run is only comparable if every call ran.
  const results = requests.at(-1).messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  const failed = results.filter((text) => /"ok":\s*false|^Error|"error":/i.test(text.slice(0, 200)));
  if (process.env.BENCH_VERBOSE) {
    console.log(`[${catalogue ? 'after' : 'before'}] the first request's tools, tokens each: ${(requests[0].body.tools ?? []).map((t) => `${t.function?.name} ${n(tokens(JSON.stringify(t).length))}`).join(', ')}`);
    for (const text of results) console.log(`[${catalogue ? 'after' : 'before'}] a result: ${text.slice(0, 400)}`);
  }
  return { requests, approvals: (sidebar.approved ?? 0) - approvedBefore, failed, toolsByStep: requests.map((r) => r.toolNames.length) };
}

async function bench(browserName) {
  const model = await startModelServer();
  const site = await startFixtureServer();
  const h = await launch(browserName, { preciseClock: true });
  const started = Date.now();
  try {
    await h.newPage(site.url('/alpha.html'));
    (await configureProvider(h, { baseUrl: model.url })).close();
    let sidebar = await openSidebar(h);
    const tabId = await tabIdOf(sidebar, '/alpha.html');

    // After: every built-in plugin on, as installed (the catalogue among them).
    let options = await h.openExtensionPage('options.html#plugins', { width: 1000, height: 800 });
    await options.find('switch', CATALOGUE_SWITCH);
    const switches = await options.evaluate(() => [...document.querySelectorAll('[role="switch"]')].map((s) => [s.getAttribute('aria-label'), s.checked]));
    const off = switches.filter(([, on]) => !on).map(([label]) => label);
    if (off.length) throw new Error(`not every built-in plugin is on: ${off.join(', ')}`);
    await options.close();
    const after = await task(sidebar, model, tabId, true);

    // Before: the catalogue switched off on the options page, as a person would (the sidebar closed
    // meanwhile, as tests/e2e/builtin-plugins.test.mjs does).
    await sidebar.close();
    options = await h.openExtensionPage('options.html#plugins', { width: 1000, height: 800 });
    await options.click('switch', CATALOGUE_SWITCH);
    await options.waitFor((name) => document.querySelector(`[aria-label="${name}"]`)?.checked === false, CATALOGUE_SWITCH);
    if ((await switchOn(options)) !== false) throw new Error('the catalogue did not switch off');
    await options.close();
    sidebar = await openSidebar(h);
    const before = await task(sidebar, model, tabId, false);
    await sidebar.close();

    const first = { before: parts(before.requests[0]), after: parts(after.requests[0]) };
    const sum = (run) => run.requests.map(parts).reduce((a, p) => ({ tools: a.tools + p.tools, system: a.system + p.system, conversation: a.conversation + p.conversation, all: a.all + p.all }), { tools: 0, system: 0, conversation: 0, all: 0 });
    const total = { before: sum(before), after: sum(after) };

    console.log(`\n## A lean prompt in ${browserName} (load average ${loadavg()}; ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    console.log('Tokens ≈ characters of the request\'s JSON ÷ 4. Before: the catalogue plugin switched off (every tool offered); after: on.');
    console.log('No provider count: the scripted server sends a fixed placeholder usage (prompt_tokens 10), not computed from the body.\n');
    console.log('### The first request of a new conversation, every built-in plugin on\n');
    table([
      ['', 'before', 'after', 'after / before'],
      ['tools offered', first.before.toolCount, first.after.toolCount, ratio(first.after.toolCount, first.before.toolCount)],
      ['tool definitions, tokens', n(tokens(first.before.tools)), n(tokens(first.after.tools)), ratio(first.after.tools, first.before.tools)],
      ['system message, tokens', n(tokens(first.before.system)), n(tokens(first.after.system)), ratio(first.after.system, first.before.system)],
      ['instructions + tools, tokens (budget ≤ 3,000)', n(tokens(first.before.tools + first.before.system)), n(tokens(first.after.tools + first.after.system)), ratio(first.after.tools + first.after.system, first.before.tools + first.before.system)],
      ["the user's message (baseline), tokens", n(tokens(first.before.conversation)), n(tokens(first.after.conversation)), ratio(first.after.conversation, first.before.conversation)],
    ]);
    console.log(`\nafter: offered ${after.requests[0].toolNames.join(', ')}`);

    console.log(`\n### The ten-step task: ${before.requests.length} requests (10 tool calls, then the answer), summed\n`);
    table([
      ['tokens sent', 'before', 'after', 'after / before'],
      ['tool definitions', n(tokens(total.before.tools)), n(tokens(total.after.tools)), ratio(total.after.tools, total.before.tools)],
      ['system messages', n(tokens(total.before.system)), n(tokens(total.after.system)), ratio(total.after.system, total.before.system)],
      ["the conversation's own messages (baseline)", n(tokens(total.before.conversation)), n(tokens(total.after.conversation)), ratio(total.after.conversation, total.before.conversation)],
      ['the whole request bodies', n(tokens(total.before.all)), n(tokens(total.after.all)), ratio(total.after.all, total.before.all)],
    ]);
    console.log('');
    table([
      ['', 'before', 'after'],
      ["tool definitions ÷ the conversation's own messages", `${(total.before.tools / total.before.conversation).toFixed(2)}×`, `${(total.after.tools / total.after.conversation).toFixed(2)}×`],
      ['tools offered, request by request', before.toolsByStep.join(' '), after.toolsByStep.join(' ')],
      ['approval cards clicked', before.approvals, after.approvals],
      ['tool results that were errors', before.failed.length, after.failed.length],
    ]);
    for (const [name, run] of [['before', before], ['after', after]]) {
      for (const text of run.failed) console.log(`${name}: a tool failed: ${text.slice(0, 300)}`);
    }
  } finally {
    await h.close();
    await model.close();
    await site.close();
  }
}

if (!args.includes('--no-build')) {
  // The same build as the other benches of `npm run bench` (production code; mode bench only adds the benches' messages).
  execFileSync('npm', ['run', '--silent', 'build:bench'], { cwd: ROOT, stdio: 'ignore' });
}
process.env.SIDEQUEST_BUILD_MODE = 'bench';
for (const b of browsers) await bench(b);

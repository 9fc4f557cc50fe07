// Large histories: how the sidebar behaves with a year of conversations. Run on demand:
// `node bench/history.mjs [chromium|firefox] [--no-build] [--runs=5] [--conversations=10000]
// [--skip=open,scroll,typed] [--quiet=20000,120000]`
// (also the end of `npm run bench`).
//
// In each browser, with the production build: a data set is made **through the import path**
// (Settings → Data → Import, a real file in the file input), then the sidebar is driven in a tab:
// - list open: click Conversations → the list is painted (the frame after the DOM has it);
// - conversation open: click a conversation in the list → its last message is painted;
// - scroll: the open conversation is scrolled to its top, 120 px a frame, loading earlier
//   messages on the way; frame intervals are recorded;
// - search: text typed in the list's search box → the matching conversation is shown (includes
//   the list's pause after typing); and the search request alone (`searchConversations`, sent
//   from the sidebar page: the background's answer, no pause);
// - after the large import, a quiet wait (`waitQuiet`: at least `--quiet`'s first figure, 20 s,
//   then until the first list page's round trip stops getting faster; printed): right after 38 MB
//   went in, Chromium's IndexedDB is busy for tens of seconds and every read is slow;
// - where the time goes (`breakdown`): the list's and the search's IndexedDB reads timed alone
//   from an extension page, beside the background's whole answers;
// Baseline in the same run: the same steps with a small history (10 conversations, one of 20
// messages), imported first; the large one (`--conversations`, default 10,000, of 10 messages
// each, and one of 2,000 messages) is then imported on top, in files of at most 2,500
// conversations (the import refuses files over 25 MB). Messages draw on a vocabulary of ~2,000
// made-up words beside the common ones, so the search has real text to look through. Figures are
// medians of `--runs` repetitions; ratios are large / small.

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launch, ROOT } from '../tests/e2e/harness.mjs';

const args = process.argv.slice(2);
const browsers = args.find((a) => a === 'chromium' || a === 'firefox') ? [args.find((a) => a === 'chromium' || a === 'firefox')] : ['chromium', 'firefox'];
const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
const largeCount = Number(args.find((a) => a.startsWith('--conversations='))?.slice(16) ?? 10_000);
// Rows to leave out for a quicker run: `--skip=open,scroll,typed`.
const skip = new Set((args.find((a) => a.startsWith('--skip='))?.slice(7) ?? '').split(',').filter(Boolean));
// The least and the most pause after the large import before measuring, ms (`--quiet=20000,120000`).
const [quietMin, quietMax] = (args.find((a) => a.startsWith('--quiet='))?.slice(8) ?? '20000,120000').split(',').map(Number);

if (!args.includes('--no-build')) {
  execFileSync('npx', ['wxt', 'build'], { cwd: ROOT, stdio: 'ignore' });
  execFileSync('npx', ['wxt', 'build', '-b', 'firefox'], { cwd: ROOT, stdio: 'ignore' });
}

// ——— The data sets (deterministic) ———

const COMMON = 'agent browser tab page model tool answer search result table list note file plan step run token budget trace export import history'.split(' ');
// ~2,000 made-up words (syllables), so the text has a long tail of rarer words as real text does.
const SYLLABLES = 'ka lo mi ne ru sa te vi zo pa re di fu go ha'.split(' ');
const RARE = [];
for (const a of SYLLABLES) for (const b of SYLLABLES) for (const c of SYLLABLES.slice(0, 9)) RARE.push(a + b + c);
function sentence(i, n) {
  const out = [];
  for (let k = 0; k < n; k++) {
    // Two words in three are common, one is drawn from the long tail.
    out.push(k % 3 === 2 ? RARE[(i * 131 + k * 977) % RARE.length] : COMMON[(i * 7 + k * 13) % COMMON.length]);
  }
  return out.join(' ');
}
function answerText(i) {
  return [`## Step ${i}`, '', `${sentence(i, 40)}.`, '', `- ${sentence(i + 1, 8)}`, `- ${sentence(i + 2, 8)}`, '', '```ts', `const x${i} = ${i};`, '```'].join('\n');
}

/** A conversation of `count` messages: user, answer with a tool call every 5th, its result, answer… */
function conversation(id, title, count, at) {
  const messages = [];
  let seq = 0;
  const t = at;
  while (messages.length < count) {
    const i = messages.length;
    messages.push({ id: `${id}-m${seq}`, conversationId: id, seq: seq++, createdAt: t + i, role: 'user', text: `${sentence(i, 12)}?` });
    if (messages.length >= count) break;
    if (i % 5 === 0 && messages.length + 2 < count) {
      const callId = `${id}-call${seq}`;
      messages.push({ id: `${id}-m${seq}`, conversationId: id, seq: seq++, createdAt: t + i + 1, role: 'assistant', text: 'Let me look.', status: 'complete', toolCalls: [{ id: callId, name: 'list_tabs', input: {} }], usage: { inputTokens: 900, outputTokens: 20 } });
      messages.push({ id: `${id}-m${seq}`, conversationId: id, seq: seq++, createdAt: t + i + 2, role: 'tool', toolCallId: callId, toolName: 'list_tabs', input: {}, status: 'done', result: { ok: true, output: { tabs: [{ id: 1, title: sentence(i, 5), url: 'https://example.com/' }] } }, durationMs: 3 });
    }
    messages.push({ id: `${id}-m${seq}`, conversationId: id, seq: seq++, createdAt: t + i + 3, role: 'assistant', text: answerText(i), status: 'complete', toolCalls: [], usage: { inputTokens: 1000 + i, outputTokens: 120 } });
  }
  return { conversation: { id, title, createdAt: at, updatedAt: at + count + 10, status: 'idle', model: 'bench-model' }, messages: messages.slice(0, count) };
}

/** `total` conversations; the most recent has `longCount` messages and the title `Long`. */
function dataSet(prefix, total, longCount) {
  const start = Date.UTC(2025, 0, 1);
  const list = [];
  for (let i = 0; i < total - 1; i++) list.push(conversation(`${prefix}-${i}`, `${prefix} ${sentence(i, 4)} ${i}`, 10, start + i * 3_600_000));
  // The needle for the search: in one message of one old conversation only.
  list[3].messages[1].text += ' zebra-needle';
  list.push(conversation(`${prefix}-long`, `${prefix} Long`, longCount, start + total * 3_600_000));
  return { format: 'sidequest-conversations', version: 1, exportedAt: new Date(start).toISOString(), conversations: list };
}

// ——— Measuring in the page ———

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
};
const quantile = (values, q) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * q))];
};

/** In the page: runs `act`, then waits until `done()` holds and a frame has been painted; ms. */
function timeInPage(page, { act, done }) {
  return page.evaluate(
    async ({ act, done }) => {
      const run = new Function(act);
      const check = new Function(`return (${done})`);
      const t0 = performance.now();
      run();
      await new Promise((resolve, reject) => {
        const limit = setTimeout(() => reject(new Error(`timed out waiting for ${done}`)), 20_000);
        const poll = () => {
          if (check()) {
            clearTimeout(limit);
            // The frame that shows it: after the next animation frame's paint.
            requestAnimationFrame(() => setTimeout(resolve, 0));
          } else requestAnimationFrame(poll);
        };
        poll();
      });
      return performance.now() - t0;
    },
    { act, done },
  );
}

async function importSet(h, dir, name, set) {
  const file = path.join(dir, name);
  await writeFile(file, JSON.stringify(set));
  const options = await h.openExtensionPage('options.html#data', { width: 1000, height: 800 });
  await options.find('button', 'Import');
  const started = Date.now();
  await options.setInputFile('input[type="file"][aria-label="Import conversations file"]', file);
  // The count as the page writes it (English: 1,000).
  await options.waitForText(`Imported ${set.conversations.length.toLocaleString('en-US')} conversations`, { timeout: 600_000 });
  const ms = Date.now() - started;
  await options.close();
  return ms;
}

async function measure(h, label, total, longCount, needles) {
  const sidebar = await h.openExtensionPage('sidepanel.html');
  await sidebar.find('textbox', 'Message');
  const list = [];
  const open = [];
  const search = [];
  const listSel = 'nav[aria-label="Conversations"] li';
  for (let i = 0; i < runs; i++) {
    // What the step before left to do (a 2,000-message conversation's view torn down) is not the list's.
    await settle(sidebar);
    list.push(await timeInPage(sidebar, {
      act: `document.querySelector('button[aria-label="Conversations"]').click()`,
      done: `document.querySelectorAll('${listSel}').length >= ${Math.min(total, 15)}`,
    }));
    if (skip.has('open')) {
      await sidebar.evaluate(() => document.querySelector('button[aria-label="Conversations"]').click());
      continue;
    }
    open.push(await timeInPage(sidebar, {
      act: `[...document.querySelectorAll('${listSel} button.open')].find((b) => b.textContent.includes('Long')).click()`,
      done: `document.querySelector('h1.title')?.textContent.includes('Long') && document.querySelectorAll('main article').length > 0 && [...document.querySelectorAll('main article')].at(-1).textContent.includes('Step ${lastStep(longCount)}')`,
    }));
    // Away and back, so the next open builds the conversation again.
    await sidebar.evaluate(() => document.querySelector('button[aria-label="New conversation"]').click());
    await sidebar.waitFor(() => !document.querySelector('main article'));
  }
  const scroll = skip.has('scroll') ? { frames: [NaN], worst: [], notLoaded: 0, maxArticles: 0, articles: 0, ms: NaN } : await scrollToTop(sidebar);
  // Search message text, typed in the list's search box.
  for (let i = 0; i < runs && !skip.has('typed'); i++) {
    await sidebar.evaluate(() => document.querySelector('button[aria-label="Conversations"]').getAttribute('aria-expanded') === 'true' || document.querySelector('button[aria-label="Conversations"]').click());
    await sidebar.find('textbox', 'Search conversations');
    // Back to the whole list first, so the count below is the new query's.
    await timeInPage(sidebar, {
      act: `const input = document.querySelector('#conversation-search'); input.value = ''; input.dispatchEvent(new Event('input'));`,
      done: `document.querySelectorAll('nav[aria-label="Conversations"] li').length >= ${Math.min(total, 15)}`,
    });
    search.push(await timeInPage(sidebar, {
      act: `const input = document.querySelector('#conversation-search'); input.value = 'zebra-needle'; input.dispatchEvent(new Event('input'));`,
      done: `document.querySelectorAll('nav[aria-label="Conversations"] li').length === ${needles}`,
    }));
  }
  // The search request alone: the background's answer to the page, without the list's pause.
  const request = [];
  const requestCommon = [];
  for (let i = 0; i < 2 * runs; i++) {
    (i % 2 ? request : requestCommon).push(await sidebar.evaluate(async (query) => {
      const api = globalThis.browser ?? globalThis.chrome;
      const t0 = performance.now();
      const reply = await api.runtime.sendMessage({ id: Math.floor(Math.random() * 1e9), type: 'searchConversations', data: { query }, timestamp: Date.now() });
      if (reply?.err) throw new Error(JSON.stringify(reply.err));
      return performance.now() - t0;
    }, i % 2 ? 'zebra-needle' : 'budget'));
  }
  await sidebar.close();
  return { label, list, open, search, request, requestCommon, scroll };
}

/** Scrolls the long conversation to its top, loading earlier messages on the way; frame intervals. */
async function scrollToTop(sidebar) {
  await sidebar.evaluate(() => document.querySelector('button[aria-label="Conversations"]').click());
  await sidebar.evaluate(() => [...document.querySelectorAll('nav[aria-label="Conversations"] li button.open')].find((b) => b.textContent.includes('Long')).click());
  await sidebar.waitFor(() => document.querySelectorAll('main article').length > 0);
  await new Promise((r) => setTimeout(r, 500));
  return sidebar.evaluate(async () => {
    // The log inside the main landmark is what scrolls.
    const main = document.querySelector('main [role="log"]');
    const frames = [];
    const changes = [];
    let maxArticles = document.querySelectorAll('main article').length;
    let added = 0;
    let removed = 0;
    const articles = (nodes) => [...nodes].filter((n) => n.nodeName === 'ARTICLE').length;
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        added += articles(r.addedNodes);
        removed += articles(r.removedNodes);
      }
    });
    observer.observe(main, { childList: true, subtree: true });
    let last = performance.now();
    const started = last;
    main.dispatchEvent(new WheelEvent('wheel'));
    await new Promise((resolve) => {
      const step = () => {
        const now = performance.now();
        frames.push(now - last);
        // What the frame had to do: messages added to and taken from the DOM since the last one.
        const count = document.querySelectorAll('main article').length;
        changes.push({ added, removed });
        added = removed = 0;
        maxArticles = Math.max(maxArticles, count);
        last = now;
        main.dispatchEvent(new WheelEvent('wheel'));
        main.scrollTop = Math.max(0, main.scrollTop - 120);
        const more = document.querySelector('.earlier button');
        if ((main.scrollTop === 0 && !more) || now - started > 20_000) resolve();
        else requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
    observer.disconnect();
    // Messages still behind Show earlier (not reached in the time limit).
    const notLoaded = Number(document.querySelector('.earlier button')?.textContent.replace(/\D/g, '') || 0);
    const worst = frames.map((ms, i) => ({ ms, change: changes[i] })).slice(1).sort((a, b) => b.ms - a.ms).slice(0, 5);
    return { frames: frames.slice(1), worst, notLoaded, maxArticles, articles: document.querySelectorAll('main article').length, ms: performance.now() - started };
  });
}

/** Waits until the page is idle (its work of the step before done; at most 2 s). */
function settle(page) {
  return page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 2000 })));
}

/** In an extension page: the extension's own IndexedDB (same origin as the background), opened at its version. */
const OPEN_DB = `new Promise((resolve, reject) => { const r = indexedDB.open('sidequest'); r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); })`;

/**
 * After a large import: waits until the browser is quiet again (LevelDB compacting in Chromium,
 * the import's transactions settling), at least `quietMin` ms, then until the first list page's
 * round trip (page → background → IndexedDB → page) stops getting faster: the median of the last
 * three probes (one a second) within 10 % of the three before, or `quietMax`. Returns the pause
 * and the probes.
 */
async function waitQuiet(h) {
  const page = await h.openExtensionPage('sidepanel.html');
  await page.find('textbox', 'Message');
  const started = Date.now();
  const probes = [];
  const probe = () => page.evaluate(async () => {
    const api = globalThis.browser ?? globalThis.chrome;
    const t0 = performance.now();
    const reply = await api.runtime.sendMessage({ id: Math.floor(Math.random() * 1e9), type: 'listConversationPage', data: { limit: 50 }, timestamp: Date.now() });
    if (reply?.err) throw new Error(JSON.stringify(reply.err));
    return performance.now() - t0;
  });
  for (;;) {
    probes.push(await probe());
    const waited = Date.now() - started;
    const recent = median(probes.slice(-3));
    const before = median(probes.slice(-6, -3));
    if (waited >= quietMax || (waited >= quietMin && probes.length >= 6 && recent >= before * 0.9)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  await page.close();
  return { ms: Date.now() - started, first: probes[0], last: median(probes.slice(-3)), probes: probes.length };
}

/**
 * Where the list's and the search's time goes, read from an extension page (the same origin, so
 * the same IndexedDB as the background): the index walk alone (keys), the same walk with the
 * records, the count, the search's reads, and the background's whole answer (`sendMessage`).
 * Medians of `runs`.
 */
async function breakdown(h) {
  const page = await h.openExtensionPage('sidepanel.html');
  await page.find('textbox', 'Message');
  const rows = [];
  for (let i = 0; i < runs; i++) {
    rows.push(await page.evaluate(async (OPEN) => {
      const db = await new Function(`return ${OPEN}`)();
      const req = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
      const time = async (f) => { const t0 = performance.now(); const v = await f(); return [performance.now() - t0, v]; };
      const walk = (keysOnly, n) => new Promise((resolve, reject) => {
        const tx = db.transaction('conversations', 'readonly');
        const index = tx.objectStore('conversations').index('[updatedAt+id]');
        const r = keysOnly ? index.openKeyCursor(null, 'prev') : index.openCursor(null, 'prev');
        const out = [];
        r.onerror = () => reject(r.error);
        r.onsuccess = () => {
          const c = r.result;
          if (!c || out.length >= n) return resolve(out);
          out.push(keysOnly ? c.primaryKey : c.value);
          c.continue();
        };
      });
      const store = (name) => db.transaction(name, 'readonly').objectStore(name);
      const api = globalThis.browser ?? globalThis.chrome;
      const send = (type, data) => time(async () => {
        const reply = await api.runtime.sendMessage({ id: Math.floor(Math.random() * 1e9), type, data, timestamp: Date.now() });
        if (reply?.err) throw new Error(JSON.stringify(reply.err));
        return reply.res;
      });
      const out = {};
      [out.keys50] = await time(() => walk(true, 50));
      let page50;
      [out.records50, page50] = await time(() => walk(false, 50));
      out.bytes50 = JSON.stringify(page50).length;
      [out.clone50] = await time(() => structuredClone(page50));
      [out.count] = await time(() => req(store('conversations').count()));
      [out.listPage] = await send('listConversationPage', { limit: 50 });
      // The search's reads: the recency order, a common word's rows, and 200 records one get() each.
      let order;
      [out.orderKeys, order] = await time(() => req(store('conversations').index('updatedAt').getAllKeys()));
      let rowsBudget;
      [out.termBudget, rowsBudget] = await time(() => req(store('searchIndex').index('tokens').getAllKeys(IDBKeyRange.bound('budget', 'budget\uffff'))));
      out.termBudgetRows = rowsBudget.length;
      [out.termNeedle] = await time(() => req(store('searchIndex').index('tokens').getAllKeys(IDBKeyRange.bound('zebra', 'zebra\uffff'))));
      [out.countBudget] = await time(() => req(store('searchIndex').index('tokens').count(IDBKeyRange.bound('budget', 'budget\uffff'))));
      [out.walk200] = await time(() => walk(false, 200));
      const ids = order.slice(-200);
      [out.rows200] = await time(() => { const s = store('searchIndex'); return Promise.all(ids.map((id) => req(s.getAll(IDBKeyRange.bound([id, -Infinity], [id, Infinity]))))); });
      [out.get200] = await time(() => { const s = store('conversations'); return Promise.all(ids.map((id) => req(s.get(id)))); });
      [out.getAll200] = await time(() => req(store('conversations').index('[updatedAt+id]').getAll(null, 200)));
      let hits;
      [out.searchBudget, hits] = await send('searchConversations', { query: 'budget' });
      out.budgetHits = hits.length;
      [out.searchNeedle, hits] = await send('searchConversations', { query: 'zebra-needle' });
      out.needleHits = hits.length;
      db.close();
      return out;
    }, OPEN_DB));
  }
  await page.close();
  const out = {};
  for (const key of Object.keys(rows[0])) {
    const values = rows.map((r) => r[key]);
    out[key] = { median: median(values), min: Math.min(...values), max: Math.max(...values) };
  }
  return out;
}

function lastStep(count) {
  // The last message of the generated long conversation is an answer "## Step <i>" (see conversation()).
  const c = conversation('x', 'x', count, 0);
  const last = [...c.messages].reverse().find((m) => m.role === 'assistant' && m.text.startsWith('## Step'));
  return last.text.match(/Step (\d+)/)[1];
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const [i, row] of rows.entries()) {
    console.log(row.map((cell, j) => (j === 0 ? String(cell).padEnd(widths[j]) : String(cell).padStart(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

const ms = (v) => `${v.toFixed(1)} ms`;

for (const browserName of browsers) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sidequest-history-'));
  const h = await launch(browserName, { preciseClock: true });
  try {
    console.log(`\n## Large histories in ${browserName} (${runs} runs, medians)\n`);
    const small = dataSet('small', 10, 20);
    const large = dataSet('large', largeCount, 2000);
    const importSmall = await importSet(h, dir, 'small.json', small);
    const baseParts = await breakdown(h);
    const base = await measure(h, 'small', 10, 20, 1);
    let importLarge = 0;
    // The import refuses files over 25 MB: the large set goes in as several files.
    for (let at = 0, part = 0; at < large.conversations.length; at += 2500, part++) {
      importLarge += await importSet(h, dir, `large-${part}.json`, { ...large, conversations: large.conversations.slice(at, at + 2500) });
    }
    // Both sets hold the search's needle once.
    const quiet = await waitQuiet(h);
    const bigParts = await breakdown(h);
    const big = await measure(h, 'large', largeCount + 10, 2000, 2);
    const messages = large.conversations.reduce((n, c) => n + c.messages.length, 0);
    const textChars = large.conversations.reduce((n, c) => n + c.messages.reduce((k, m) => k + (m.text?.length ?? 0), 0), 0);
    console.log(`large set: ${large.conversations.length.toLocaleString('en-US')} conversations, ${messages.toLocaleString('en-US')} messages, ${(textChars / 1024 / 1024).toFixed(1)} MB of message text; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const frames = (r) => `${median(r.scroll.frames).toFixed(1)} / ${quantile(r.scroll.frames, 0.95).toFixed(1)} / ${Math.max(...r.scroll.frames).toFixed(0)} ms`;
    table([
      ['what', '10 conv. / 20 msgs (baseline)', `${(largeCount + 10).toLocaleString('en-US')} conv. / 2,000 msgs`, 'ratio', 'budget'],
      ['import through Settings → Data', `${importSmall} ms`, `${importLarge} ms (${(JSON.stringify(large).length / 1024 / 1024).toFixed(1)} MB)`, '', ''],
      ['conversation list open (click → painted)', ms(median(base.list)), ms(median(big.list)), `${(median(big.list) / median(base.list)).toFixed(2)}×`, '≤ 50 ms'],
      ['conversation open (click → last message painted)', ms(median(base.open)), ms(median(big.open)), `${(median(big.open) / median(base.open)).toFixed(2)}×`, '≤ 300 ms'],
      ['search message text (typed → shown, incl. the pause)', ms(median(base.search)), ms(median(big.search)), `${(median(big.search) / median(base.search)).toFixed(2)}×`, ''],
      ['search request, one conversation matches (page → background → answer)', ms(median(base.request)), ms(median(big.request)), `${(median(big.request) / median(base.request)).toFixed(2)}×`, '≤ 100 ms'],
      ['search request, a common word (every conversation matches)', ms(median(base.requestCommon)), ms(median(big.requestCommon)), `${(median(big.requestCommon) / median(base.requestCommon)).toFixed(2)}×`, '≤ 100 ms'],
      ['scroll to the top: frame median / p95 / max', frames(base), frames(big), '', ''],
      ['scroll to the top: messages in the DOM at the end / at most', `${base.scroll.articles} / ${base.scroll.maxArticles}`, `${big.scroll.articles} / ${big.scroll.maxArticles}`, '', ''],
      ['scroll to the top: frames over 50 ms', String(base.scroll.frames.filter((f) => f > 50).length), `${big.scroll.frames.filter((f) => f > 50).length} of ${big.scroll.frames.length}`, '', ''],
      ['scroll to the top: took (messages not reached)', `${ms(base.scroll.ms)} (${base.scroll.notLoaded})`, `${ms(big.scroll.ms)} (${big.scroll.notLoaded})`, '', ''],
    ]);
    // The longest frames of the large scroll, with the messages the DOM gained (+) and lost (−) before them.
    console.log(`\nquiet wait after the import: ${(quiet.ms / 1000).toFixed(1)} s (least ${quietMin / 1000} s, most ${quietMax / 1000} s; first list page round trip ${ms(quiet.first)} at its start, ${ms(quiet.last)} at its end, ${quiet.probes} probes)`);
    console.log(`\nwhere the time goes (read from an extension page; median [min–max] of ${runs}):`);
    const part = (p) => `${p.median.toFixed(1)} [${p.min.toFixed(1)}–${p.max.toFixed(1)}]`;
    const labels = {
      keys50: 'list: index walk [updatedAt+id], 50 keys (cursor)',
      records50: 'list: the same walk with the 50 records',
      bytes50: 'list: the 50 records as JSON, characters',
      clone50: 'list: structuredClone of the 50 records',
      count: 'list: count() of conversations',
      listPage: 'list: listConversationPage(50), page → background → page',
      orderKeys: 'search: updatedAt index, every key (getAllKeys)',
      termBudget: 'search: tokens index, "budget*" keys (getAllKeys)',
      termBudgetRows: 'search: … rows it returns',
      termNeedle: 'search: tokens index, "zebra*" keys',
      countBudget: 'search: tokens index, count() of "budget*"',
      walk200: 'search: 200 newest conversations, cursor with records',
      rows200: 'search: their index rows, one getAll() each',
      get200: 'search: 200 conversations, one get() each',
      getAll200: 'search: 200 conversations, one getAll() on [updatedAt+id]',
      searchBudget: 'search: searchConversations("budget"), round trip',
      searchNeedle: 'search: searchConversations("zebra-needle"), round trip',
      budgetHits: 'search: … conversations found for "budget" (at most 200)',
      needleHits: 'search: … conversations found for "zebra-needle"',
    };
    table([['part', 'baseline', 'large'], ...Object.keys(labels).map((k) => [labels[k], part(baseParts[k]), part(bigParts[k])])]);
    console.log(`\nlongest scroll frames (large): ${big.scroll.worst.map((w) => `${w.ms.toFixed(0)} ms (+${w.change.added} −${w.change.removed})`).join(', ')}`);
  } finally {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  }
}

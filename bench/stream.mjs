// Token-to-screen: how fast a streamed answer shows in the sidebar, and what rendering it costs.
// Run on demand: `npm run bench:stream` (or `node bench/stream.mjs [chromium|firefox] [--no-build]
// [--streams=3] [--no-split] [--load=N] [--no-render-cost]`; --load=N runs N busy processes beside the streams);
// `npm run bench` runs it after its own figures. Prints tables; writes nothing to the repo.
//
// 1. Chunk-to-screen latency: the scripted model server streams a 50 KB Markdown answer
//    (paragraphs, lists, code blocks, tables, nested quotes) at about 2,000 tokens/s (8,000
//    characters/s, a token ≈ 4 characters) in pieces of a few tokens, and records when it writes
//    each piece. Every piece ends with a unique marker (`Q123Z`). The sidebar page, opened as a
//    tab and brought to front, watches its DOM (MutationObserver) and stamps each marker with the
//    end of the frame that first shows it (see `installRecorder`). Latency = stamp − write time.
// 2. Render cost: in the same page, the same app and store, answers of 12.5, 25, 50 and 100 KB are
//    fed to the chat store piece by piece as its `delta` handler does (the message replaced by one
//    with the longer text), one piece per task, back to back; the time from the first piece until
//    the frame that shows the last one. The main thread is busy throughout, so this is the page's
//    work to take in and show the whole answer. Linear rendering gives ratios ≈ 2, 4, 8.
//
// Clocks: the server stamps with performance.timeOrigin + performance.now() in Node, the page with
// the same expression in the page: both epoch milliseconds on this machine's clock. The script
// measures the offset between the two (15 round trips, the shortest counts), prints it and takes
// it off the page's times.

import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { startModelServer } from '../tests/model-server/server.mjs';
import { launch, ROOT } from '../tests/e2e/harness.mjs';
import { configureProvider, openSidebar, sendMessage, waitForIdle } from '../tests/e2e/helpers.mjs';
import { table, quantile } from './print.mjs';

const KB = 1024;
const CHARS_PER_SECOND = 8000; // 2,000 tokens/s at ≈ 4 characters a token
const PIECE_TEXT = 8; // characters of answer before a piece's marker: pieces of ≈ 4 tokens
const ROUNDS = 5;
const REPEAT_UNDER_MS = 10_000; // render-cost runs that took longer are not repeated
const SKIP_AFTER_MS = 90_000; // a size that took longer is not doubled (the code before this work took minutes)
const args = process.argv.slice(2);
const STREAMS = Number(args.find((a) => a.startsWith('--streams='))?.slice(10) ?? 3); // latency runs per browser
const SPLIT = !args.includes('--no-split'); // the bench's own subscription to the page's events (one more message a piece)
// --load=N: N busy processes (`node -e 'for(;;){}'`) beside the browsers during the streams: a busy machine.
const RENDER_COST = !args.includes('--no-render-cost'); // part 2 (render cost by size); leave it out for a quick run
const LOAD = Number(args.find((a) => a.startsWith('--load='))?.slice(7) ?? 0);
const browsers = args.filter((a) => !a.startsWith('--'));
const selected = browsers.length ? browsers : ['chromium', 'firefox'];

// ——— The answer ———

/** A small deterministic PRNG (mulberry32), so every run streams the same answer. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the sidebar agent reads each page and answers with short clear notes about what it found while ' +
  'working through tabs files tasks and tools so that you can follow every step it takes before ' +
  'deciding whether another search would help or whether the result already covers your question'
).split(' ');
const CODE = 'const let await return items value result fetch(url) map((x) => x.id) if (ok) { } filter(Boolean); count += 1;'.split(' ');

/**
 * A Markdown answer of about `size` characters, cut into pieces that each end with a unique marker
 * `<prefix><n>Z` placed after a visible word (never inside syntax such as a fence or a table's
 * delimiter row), so the marker shows when its piece does. The last piece may carry closing syntax.
 */
export function makeAnswer(size, prefix = 'Q', seed = 7) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const pieces = [];
  let piece = '';
  let total = 0;
  const syntax = (s) => {
    piece += s;
  };
  const word = (w) => {
    piece += w;
    if (piece.length >= PIECE_TEXT) {
      piece += ` ${prefix}${pieces.length}Z`;
      pieces.push(piece);
      total += piece.length;
      piece = '';
    }
  };
  const words = (n, join = ' ') => {
    for (let i = 0; i < n; i++) {
      word(pick(WORDS));
      if (i < n - 1) syntax(join);
    }
  };
  const length = () => total + piece.length;
  const blocks = [
    () => { syntax('## '); words(3 + Math.floor(rand() * 4)); syntax('\n\n'); },
    () => { words(40 + Math.floor(rand() * 40)); syntax('.\n\n'); },
    () => {
      for (let i = 0, n = 4 + Math.floor(rand() * 4); i < n; i++) { syntax('- '); words(6 + Math.floor(rand() * 8)); syntax('\n'); }
      syntax('\n');
    },
    () => {
      syntax('```ts\n');
      for (let i = 0, n = 8 + Math.floor(rand() * 6); i < n; i++) {
        syntax('  '.repeat(Math.floor(rand() * 3)));
        for (let j = 0, m = 3 + Math.floor(rand() * 5); j < m; j++) { word(pick(CODE)); if (j < m - 1) syntax(' '); }
        syntax('\n');
      }
      syntax('```\n\n');
    },
    () => {
      for (let i = 1, n = 3 + Math.floor(rand() * 4); i <= n; i++) { syntax(`${i}. `); words(5 + Math.floor(rand() * 8)); syntax('\n'); }
      syntax('\n');
    },
    () => {
      syntax('| '); words(1); syntax(' | '); words(2); syntax(' | '); words(1); syntax(' |\n|---|:---|---:|\n');
      for (let i = 0, n = 4 + Math.floor(rand() * 5); i < n; i++) {
        syntax('| '); words(2); syntax(' | '); words(3); syntax(' | '); words(1); syntax(' |\n');
      }
      syntax('\n');
    },
    () => { syntax('> '); words(12); syntax('\n>\n> > '); words(10); syntax('\n\n'); },
  ];
  for (let b = 0; length() < size - 700; b++) blocks[b % blocks.length]();
  while (length() < size) { words(1); syntax(' '); }
  if (piece) pieces[pieces.length - 1] += piece;
  return pieces;
}

// ——— In the page ———

/**
 * Installed in the sidebar page: finds markers in text the DOM gains and stamps each with the end
 * of the frame that paints it. A mutation made inside an animation frame callback is painted in
 * that frame; one made in any other task, in the next frame. A frame's end is seen by a message
 * posted from its first animation frame callback (it runs once the frame's style, layout and paint
 * are done). `requestAnimationFrame` is wrapped to collect the records of mutations made inside
 * callbacks before the frame goes on.
 */
function installRecorder(split) {
  const now = () => performance.timeOrigin + performance.now();
  const re = /\b[A-Z]\d+Z\b/g;
  // seen: marker → end of the frame that painted it; inDom: marker → when the DOM first had it.
  // callbackMs: the time of each animation frame callback of the app (where the Markdown renders).
  const state = { seen: new Map(), inDom: new Map(), arrived: new Map(), callbackMs: [], frameGaps: [], current: [], next: [] };
  // A second subscription to the background's events, as the sidebar's own (core/ui/events.ts):
  // when each piece reaches the page, before the app handles it.
  const events = split ? (globalThis.browser ?? globalThis.chrome).runtime.connect({ name: 'sidequest:events' }) : undefined;
  events?.onMessage.addListener((event) => {
    if (event?.type !== 'delta') return;
    const t = now();
    for (const m of event.text.matchAll(re)) if (!state.arrived.has(m[0])) state.arrived.set(m[0], t);
  });
  const scan = (text, into) => {
    if (!text) return;
    let t;
    for (const m of text.matchAll(re)) {
      if (state.seen.has(m[0])) continue;
      state.seen.set(m[0], NaN);
      state.inDom.set(m[0], (t ??= now()));
      into.push(m[0]);
    }
  };
  const take = (records, inFrame) => {
    const into = inFrame ? state.current : state.next;
    for (const r of records) {
      if (r.type === 'characterData') scan(r.target.data, into);
      else for (const n of r.addedNodes) scan(n.textContent, into);
    }
  };
  const observer = new MutationObserver((records) => take(records, false));
  observer.observe(document.querySelector('main') ?? document.body, { childList: true, subtree: true, characterData: true });
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) =>
    raf((t) => {
      const start = performance.now();
      try {
        callback(t);
      } finally {
        take(observer.takeRecords(), true);
        state.callbackMs.push(performance.now() - start);
      }
    });
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    const t = now();
    for (const marker of state.current) state.seen.set(marker, t);
    state.current = [];
  };
  let lastFrame = 0;
  const frame = () => {
    const t = now();
    if (lastFrame) state.frameGaps.push([t - lastFrame, t]);
    lastFrame = t;
    state.current.push(...state.next);
    state.next = [];
    channel.port2.postMessage(null);
    raf(frame);
  };
  raf(frame);
  globalThis.__streamBench = state;
}

/** Feeds an answer to the chat store piece by piece (as its delta handler does) and times it on screen. */
async function replay({ pieces, last }) {
  const now = () => performance.timeOrigin + performance.now();
  const chat = document.querySelector('#app').__vue_app__.config.globalProperties.$pinia._s.get('chat');
  const at = chat.messages.findLastIndex((m) => m.role === 'assistant');
  const original = chat.messages[at];
  const channel = new MessageChannel();
  let wake;
  channel.port1.onmessage = () => wake();
  const nextTask = () => new Promise((resolve) => { wake = resolve; channel.port2.postMessage(null); });
  const painted = () => new Promise((resolve) => requestAnimationFrame(() => nextTask().then(() => resolve(now()))));
  const shown = () => [...document.querySelectorAll('article.assistant .markdown')].at(-1)?.textContent.includes(last);
  chat.messages = chat.messages.with(at, { ...original, text: '', status: 'streaming' });
  await painted();
  await painted();
  const start = now();
  for (const piece of pieces) {
    const list = chat.messages;
    const message = list[at];
    chat.messages = list.with(at, { ...message, text: message.text + piece });
    await nextTask();
  }
  const applied = now();
  let end = await painted();
  while (!shown()) end = await painted();
  chat.messages = chat.messages.with(at, original);
  await painted();
  return { ms: end - start, applyMs: applied - start };
}

// ——— Node side ———

/** Offset of the page's clock against Node's (page − node), from the round trip with the least time. */
async function clockOffset(page) {
  let best;
  for (let i = 0; i < 15; i++) {
    const t0 = performance.timeOrigin + performance.now();
    const p = await page.evaluate(() => performance.timeOrigin + performance.now());
    const t1 = performance.timeOrigin + performance.now();
    if (!best || t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: p - (t0 + t1) / 2 };
  }
  return best;
}

/** Polls the page from here: puppeteer's waitForFunction is one protocol call, bound by its 180 s timeout. */
async function pollPage(page, fn, arg, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await page.evaluate(fn, arg);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${fn}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const fmt = (ms) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : '—');

/** The 1-minute load average (Linux), or undefined elsewhere. */
function loadAverage() {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

const loadPids = new Set();

/**
 * Starts `n` busy child processes (each spins one core) and returns the function that stops them.
 * They are also killed when this process exits, however it exits.
 */
function startLoad(n) {
  const children = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  for (const child of children) loadPids.add(child.pid);
  const stop = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    process.off('exit', stop);
  };
  process.on('exit', stop);
  return stop;
}

const CLOCK_TICK_MS = 10; // Linux's USER_HZ is 100 (`getconf CLK_TCK`)

/**
 * CPU time so far of this process's descendants (the browsers; not the load's processes, not this
 * process, which serves the model), by process, from /proc: a figure the machine's load does not
 * inflate the way it inflates wall-clock latency. Empty where /proc is missing.
 */
function browserCpu(exclude) {
  const procs = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return new Map();
  }
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      // Chromium rewrites its command line with spaces between the arguments; Firefox's content processes name themselves.
      const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'main';
      procs.set(Number(pid), { ppid: Number(fields[1]), ms: (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS, name: `${stat.slice(stat.indexOf('(') + 1, close)}:${type}` });
    } catch {
      // gone meanwhile
    }
  }
  const mine = new Map();
  const walk = (parent) => {
    for (const [pid, p] of procs) {
      if (p.ppid !== parent || exclude.has(pid) || mine.has(pid)) continue;
      mine.set(pid, p);
      walk(pid);
    }
  };
  walk(process.pid);
  return mine;
}

/** CPU used between two `browserCpu` samples: the total and the busiest processes. */
function cpuBetween(before, after) {
  const used = [...after].map(([pid, p]) => ({ name: p.name, ms: p.ms - (before.get(pid)?.ms ?? 0) })).sort((a, b) => b.ms - a.ms);
  return { total: used.reduce((sum, p) => sum + p.ms, 0), top: used.slice(0, 3) };
}

const signals = ['SIGINT', 'SIGTERM'];
for (const signal of signals) process.once(signal, () => process.exit(130)); // runs the 'exit' handlers

async function measure(browserName) {
  const model = await startModelServer();
  const h = await launch(browserName, { preciseClock: true });
  try {
    (await configureProvider(h, { baseUrl: model.url })).close();
    const sidebar = await openSidebar(h);
    await sidebar.raw.bringToFront();
    const clock = await clockOffset(sidebar);

    // 1. Chunk-to-screen, 50 KB at 2,000 tokens/s, STREAMS times (each in a new conversation).
    await sidebar.evaluate(installRecorder, SPLIT);
    // Chromium only: the page's main-thread time during the stream, from the DevTools protocol.
    const cdp = h.context ? await h.context.newCDPSession(sidebar.raw) : undefined;
    await cdp?.send('Performance.enable');
    const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const runs = [];
    let chars = 0;
    let count = 0;
    const stopLoad = LOAD > 0 ? startLoad(LOAD) : undefined;
    const loads = [loadAverage()];
    try {
      for (let run = 0; run < STREAMS; run++) {
        const prefix = 'QPN'[run % 3];
        const pieces = makeAnswer(50 * KB, prefix);
        chars = pieces.join('').length;
        count = pieces.length;
        model.setScript(() => ({ chunks: pieces, charsPerSecond: CHARS_PER_SECOND }));
        if (run > 0) await sidebar.click('button', 'New conversation');
        await sidebar.evaluate(() => {
          const b = globalThis.__streamBench;
          b.streamStart = performance.timeOrigin + performance.now();
          b.callbackMs.length = 0;
        });
        const before = cdp && (await metrics());
        const cpuBefore = browserCpu(loadPids);
        await sendMessage(sidebar, `Stream the long answer (${run + 1}).`);
        await pollPage(sidebar, (marker) => Number.isFinite(globalThis.__streamBench?.seen.get(marker)), `${prefix}${pieces.length - 1}Z`, 900_000);
        const after = cdp && (await metrics());
        const cpu = cpuBetween(cpuBefore, browserCpu(loadPids));
        await waitForIdle(sidebar, 60_000);
        const written = model.requests.at(-1).chunkWrittenAt;
        const { seen, inDom, arrived, callbackMs, frameGaps } = await sidebar.evaluate(
          ([p, n]) => {
            const b = globalThis.__streamBench;
            const pick = (map) => Array.from({ length: n }, (_, i) => map.get(`${p}${i}Z`) ?? null);
            return { seen: pick(b.seen), inDom: pick(b.inDom), arrived: pick(b.arrived), callbackMs: b.callbackMs, frameGaps: b.frameGaps.filter(([, t]) => t >= b.streamStart) };
          },
          [prefix, pieces.length],
        );
        // Page times on Node's clock: less the offset measured before the streams.
        const page = (t) => (t == null || !Number.isFinite(t) ? NaN : t - clock.offset);
        const diffs = (from, to) => to.map((t, i) => t - from[i]).filter(Number.isFinite);
        const seenAt = seen.map(page);
        const arrivedAt = arrived.map(page);
        const inDomAt = inDom.map(page);
        const busy = cdp && ((k) => (after[k] - before[k]) * 1000);
        runs.push({
          latency: diffs(written, seenAt),
          toPage: diffs(written, arrivedAt),
          pageToScreen: diffs(arrivedAt, seenAt),
          toDom: diffs(written, inDomAt),
          toPaint: diffs(inDomAt, seenAt),
          seconds: (written.at(-1) - written[0]) / 1000,
          gaps: frameGaps.map(([gap]) => gap),
          callbackMs,
          main: busy && { tasks: busy('TaskDuration'), script: busy('ScriptDuration'), style: busy('RecalcStyleDuration'), layout: busy('LayoutDuration'), of: (after.Timestamp - before.Timestamp) * 1000 },
          load: loadAverage(),
          cpu,
        });
      }
    } finally {
      stopLoad?.();
    }
    await cdp?.detach();

    console.log(`\n## Token-to-screen in ${browserName}${LOAD ? ` beside ${LOAD} busy processes` : ''}\n`);
    const la = (v) => (v === undefined ? '?' : v.toFixed(2));
    console.log(`load average (1 min): ${la(loads[0])} before the streams, ${runs.map((r) => la(r.load)).join(' / ')} after each (cat /proc/loadavg)`);
    console.log(
      `answer: ${(chars / KB).toFixed(1)} KB in ${count} pieces (≈ ${(chars / count / 4).toFixed(1)} tokens each), ` +
        `written in ${runs.map((r) => r.seconds.toFixed(2)).join(' / ')} s = ${(chars / 4 / runs[0].seconds).toFixed(0)} tokens/s; ` +
        `clock page − node: ${clock.offset.toFixed(2)} ms (round trip ${clock.rtt.toFixed(2)} ms; page times are corrected by it)`,
    );
    const p = (values, q) => fmt(quantile(values, q));
    const latencyRows = [['chunk written → on screen', 'p50', 'p95', 'max', 'seen']];
    for (const [i, r] of runs.entries()) {
      latencyRows.push([`stream ${i + 1}: latency`, p(r.latency, 0.5), p(r.latency, 0.95), fmt(Math.max(...r.latency)), `${r.latency.length}/${count}`]);
      if (SPLIT) {
        latencyRows.push(['  written → event reaches the page', p(r.toPage, 0.5), p(r.toPage, 0.95), fmt(Math.max(...r.toPage)), '']);
        latencyRows.push(['  event reaches the page → on screen', p(r.pageToScreen, 0.5), p(r.pageToScreen, 0.95), fmt(Math.max(...r.pageToScreen)), '']);
      }
      latencyRows.push(['  written → in the DOM', p(r.toDom, 0.5), p(r.toDom, 0.95), fmt(Math.max(...r.toDom)), '']);
      latencyRows.push(['  in the DOM → frame painted', p(r.toPaint, 0.5), p(r.toPaint, 0.95), fmt(Math.max(...r.toPaint)), '']);
    }
    const median = (f) => fmt(quantile(runs.map(f), 0.5));
    latencyRows.push([
      `median of the ${runs.length} streams`,
      median((r) => quantile(r.latency, 0.5)),
      median((r) => quantile(r.latency, 0.95)),
      median((r) => Math.max(...r.latency)),
      '',
    ]);
    table(latencyRows);
    console.log('');
    for (const [i, r] of runs.entries()) {
      const cb = r.callbackMs;
      console.log(
        `stream ${i + 1}: frames ${r.gaps.length}, p95 gap ${p(r.gaps, 0.95)}, ${r.gaps.filter((g) => g > 40).length} over 40 ms, longest ${fmt(Math.max(...r.gaps))}; ` +
          `the app's animation frame callbacks (the Markdown renders) ${cb.length}, ${cb.reduce((x, y) => x + y, 0).toFixed(0)} ms in all, ` +
          `p50 ${p(cb, 0.5)}, p95 ${p(cb, 0.95)}, max ${fmt(Math.max(...cb))}` +
          (r.main
            ? `; page's main thread: tasks ${r.main.tasks.toFixed(0)} ms (script ${r.main.script.toFixed(0)}, style ${r.main.style.toFixed(0)}, ` +
              `layout ${r.main.layout.toFixed(0)}) of ${r.main.of.toFixed(0)} ms`
            : ''),
      );
      if (r.cpu.top.length) {
        console.log(`  CPU time of the browser's processes during the stream: ${r.cpu.total.toFixed(0)} ms (${r.cpu.top.map((p) => `${p.name} ${p.ms.toFixed(0)}`).join(', ')})`);
      }
    }

    // 2. Render cost by answer size, same page: an unreported run first (a warm JIT for all), then
    // rounds over the sizes, the median per size. A size that took longer than REPEAT_UNDER_MS
    // once is not run again, nor is the next size after one that took longer than SKIP_AFTER_MS.
    if (!RENDER_COST) {
      await sidebar.close();
      return;
    }
    const runReplay = async (pieces, last) => {
      // Started in the page and polled: one long evaluate would outlast puppeteer's protocol timeout.
      await sidebar.evaluate(
        `globalThis.__replay = undefined; void (${replay})(${JSON.stringify({ pieces, last })})` +
          '.then((r) => { globalThis.__replay = r; }, (e) => { globalThis.__replay = { error: String(e) }; })',
      );
      const result = await pollPage(sidebar, () => globalThis.__replay, undefined, 1_800_000);
      if (result.error) throw new Error(result.error);
      return result.ms;
    };
    const warmUp = makeAnswer(12.5 * KB, 'W', 5);
    await runReplay(warmUp, `W${warmUp.length - 1}Z`);
    const sizes = [12.5, 25, 50, 100].map((kb) => ({ kb, answer: makeAnswer(kb * KB, 'R', 11), times: [] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, size] of sizes.entries()) {
        const prior = sizes[i - 1]?.times ?? [];
        if (prior.length && Math.min(...prior) > SKIP_AFTER_MS) continue;
        if (size.times.length && Math.min(...size.times) > REPEAT_UNDER_MS) continue;
        size.times.push(await runReplay(size.answer, `R${size.answer.length - 1}Z`));
      }
    }
    const rows = [['answer', 'pieces', 'runs', 'total render (median)', 'µs per KB', 'size ratio', 'time ratio']];
    const base = { ms: quantile(sizes[0].times, 0.5), size: sizes[0].answer.join('').length };
    for (const { kb, answer, times } of sizes) {
      const size = answer.join('').length;
      if (!times.length) {
        rows.push([`${kb} KB`, answer.length, 0, `skipped (the size before took > ${SKIP_AFTER_MS / 1000} s)`, '', '', '']);
        continue;
      }
      const ms = quantile(times, 0.5);
      rows.push([`${kb} KB`, answer.length, times.length, fmt(ms), ((ms * 1000) / (size / KB)).toFixed(0), (size / base.size).toFixed(2), (ms / base.ms).toFixed(2)]);
    }
    console.log('\nRender cost (pieces fed to the store back to back, until the last one is on screen):');
    table(rows);
    await sidebar.close();
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

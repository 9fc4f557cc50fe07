// Backtracking patterns never freeze the background, in Chromium and Firefox. While a hostile
// input is being handled in one conversation, another conversation is answered and a message
// from an extension page comes back: both are timed, printed, and the test fails if the
// background was frozen (a backtracking RegExp would keep it busy for minutes to hours).
// (a) A page sets a very long title; the model calls list_tabs with `.{0,999}.{0,999}.{0,999}!`
//     (the issue's pattern: refused), then with backtracking classics the engine takes
//     (`^(a+)+$`…), which a RegExp would run for hours on the title. A short-titled tab for each
//     classic shows that it runs and matches (and gives each call a list of its own: three empty
//     lists in a row are the same read three times, which the loop guard ends).
// (b) A page registers a WebMCP tool whose input schema has `pattern: '^(a+)+$'`; the model calls
//     it with forty `a`s and a `!` (checked in the background before the approval gate asks).
// (c) An MCP server (the real SDK, on 127.0.0.1) whose tool has the same pattern; another whose
//     pattern has lookahead is not offered, and the settings say why.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startMcpServer } from '../mcp-server/server.mjs';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, unwrapUntrusted, waitForIdle } from './helpers.mjs';

/** A background that takes longer than this to answer is frozen: the test fails. */
const FROZEN_MS = 5000;
/** The budget the issue sets: another conversation is answered within 1 s. Reported, not failed on (a busy machine). */
const BUDGET_MS = 1000;
const HOSTILE_CODE = `${'a'.repeat(40)}!`;
/** The issue's pattern, then patterns the engine takes that backtrack catastrophically in a RegExp. */
const TITLE_PATTERNS = ['.{0,999}.{0,999}.{0,999}!', '^(a+)+$', '(.*a){20}x', '(a|a)*c'];
/** A title each classic matches (and the others do not), on a page of its own: `/decoy-<i>.html` for `TITLE_PATTERNS[i]`. */
const DECOY_TITLES = { 1: 'aaaa', 2: `${'a'.repeat(20)}x`, 3: 'c' };

const html = (title, body, script = '') => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}${script ? `<script>${script}</script>` : ''}</body></html>`,
});

const PAGES = {
  ...Object.fromEntries(Object.entries(DECOY_TITLES).map(([i, title]) => [`/decoy-${i}.html`, html(title, '<p>A short title.</p>')])),
  // The title: 2 047 "a"s and a "b" (what list_tabs matches ends there: `^(a+)+$` fails on the
  // "b"), then 200 000 "x"s; no "!" (`.{0,999}.{0,999}.{0,999}!` looks for one in vain).
  '/title.html': html('Loading', '<p>A page that names itself.</p>', `document.title = 'a'.repeat(2047) + 'b' + 'x'.repeat(200000);`),
  '/tool.html': html(
    'Codes',
    '<p>Redeem a code.</p>',
    `window.__calls = [];
    document.modelContext.registerTool({
      name: 'redeem_code', description: 'Redeems a gift code.',
      inputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] },
      execute: ({ code }) => { window.__calls.push(code); return { redeemed: code }; },
    });`,
  ),
};

/** The page's or server's words of a tool message: the envelope's content, or the error text. */
function toolText(message) {
  const raw = contentText(message);
  let text = raw;
  try {
    const parsed = JSON.parse(raw);
    if (typeof parsed === 'string') text = parsed;
  } catch {
    // An error text.
  }
  return unwrapUntrusted(text)?.content ?? text;
}

/** The tool messages after the last user message. */
function toolResults(req) {
  const at = req.messages.findLastIndex((m) => m.role === 'user');
  return req.messages.slice(at + 1).filter((m) => m.role === 'tool');
}

/**
 * The scripted model: "ping" is answered at once (the other conversation); "hostile titles" calls
 * list_tabs once per pattern; "redeem" calls the page's tool with the hostile code, then with a
 * good one; "mcp code" calls the MCP server's tool with the hostile code.
 */
function script(req) {
  const text = contentText(req.lastUser);
  const results = toolResults(req);
  const done = () => ({ text: `Done: ${results.map((r, i) => `[${i + 1}] ${toolText(r).slice(0, 300)}`).join(' ')}` });
  if (/^ping/.test(text)) return { text: `pong ${text.slice(5)}` };
  if (/hostile titles/.test(text)) {
    return results.length < TITLE_PATTERNS.length ? { toolCalls: [{ name: 'list_tabs', arguments: { title_pattern: TITLE_PATTERNS[results.length] } }] } : done();
  }
  if (/redeem/.test(text)) {
    const name = req.toolNames.find((n) => /^page\d+_redeem_code$/.test(n));
    if (!name) return { text: 'Done: I have no redeem_code tool.' };
    const codes = [HOSTILE_CODE, 'aaaa'];
    return results.length < codes.length ? { toolCalls: [{ name, arguments: { code: codes[results.length] } }] } : done();
  }
  if (/mcp code/.test(text)) {
    return results.length < 1 ? { toolCalls: [{ name: 'mcp_codes_check_code', arguments: { code: HOSTILE_CODE } }] } : done();
  }
  return { text: `Done: you said ${text}` };
}

/** Resolves with `promise`, or rejects after `ms` (a frozen Firefox background freezes its pages too). */
function within(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms, the background is frozen`)), ms)))]).finally(() => clearTimeout(timer));
}

for (const browserName of selectedBrowsers()) {
  describe(`backtracking patterns never freeze the background, in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;
    let mcp;
    let sidebar;
    let other;
    const figures = [];

    before(async () => {
      model = await startModelServer({ script });
      site = await startFixtureServer({ pages: PAGES });
      mcp = await startMcpServer({ hostile: true, name: 'codes' });
      h = await launch(browserName);
      await (await configureProvider(h, { baseUrl: model.url })).close();
      sidebar = await openSidebar(h);
      // The other conversation, in a second sidebar; it also times messages to the background.
      other = await openSidebar(h);
      await other.click('button', 'New conversation');
      await other.evaluate(() => {
        const api = globalThis.browser ?? globalThis.chrome;
        const probe = { samples: [], inflightSince: 0, stop: false };
        window.__probe = probe;
        (async () => {
          let id = 900_000;
          while (!probe.stop) {
            const start = performance.timeOrigin + performance.now();
            probe.inflightSince = start;
            await api.runtime.sendMessage({ id: id++, type: 'listApprovals', data: undefined, timestamp: Date.now() });
            probe.inflightSince = 0;
            probe.samples.push([start, performance.timeOrigin + performance.now() - start]);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
      });
    });

    after(async () => {
      console.log(`[redos] ${browserName} figures:\n  ${figures.join('\n  ')}`);
      await h?.close();
      await model?.close();
      await site?.close();
      await mcp?.close();
    });

    /**
     * Sends `text` in the main sidebar and, the moment the model has handed the background its
     * first hostile call, "ping" in the other conversation; waits for both answers. Records the
     * figures (each call, named by `callNames`; the other conversation's answer; the extension
     * page's round trips meanwhile) and fails if the background was frozen.
     */
    async function whileHostile(label, text, callNames) {
      await sidebar.click('button', 'New conversation');
      const from = model.requests.length;
      await sendMessage(sidebar, text);
      // The model's answer that carries the first hostile call has been sent.
      const deadline = Date.now() + 30_000;
      const asked = () => model.requests.slice(from).find((r) => contentText(r.lastUser) === text && r.lastByteAt !== undefined);
      while (!asked() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.ok(asked(), `${label}: the model asked for the first call`);
      const ping = `ping ${label}`;
      // The other conversation in front (a tab behind has its timers throttled to one a second),
      // timed in its page: from the click on Send to the model's request, and to the answer shown.
      await other.raw.bringToFront();
      await other.evaluate((expected) => {
        const now = () => performance.timeOrigin + performance.now();
        window.__sentAt = 0;
        window.__pongAt = 0;
        document.addEventListener('click', (e) => {
          if (!window.__sentAt && e.target.closest?.('button')) window.__sentAt = now();
        }, { capture: true });
        const seen = () => [...document.querySelectorAll('main article.assistant')].some((a) => a.textContent.includes(expected));
        new MutationObserver((_, observer) => {
          if (window.__pongAt || !seen()) return;
          window.__pongAt = now();
          observer.disconnect();
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      }, `pong ${label}`);
      const pinged = (async () => {
        await sendMessage(other, ping);
        await other.waitFor(() => window.__pongAt > 0, undefined, { timeout: FROZEN_MS * 3 });
        const { sentAt, pongAt } = await other.evaluate(() => ({ sentAt: window.__sentAt, pongAt: window.__pongAt }));
        const request = model.requests.find((r) => contentText(r.lastUser) === ping);
        return { reachedModel: performance.timeOrigin + request.receivedAt - sentAt, answered: pongAt - sentAt };
      })();
      const answer = await within(pinged, FROZEN_MS * 3, `${label}: the other conversation`);
      await sidebar.raw.bringToFront();
      // The hostile run ends.
      await within(
        sidebar.waitFor(
          (sent) => {
            const articles = [...document.querySelectorAll('main article')];
            const at = articles.findLastIndex((a) => a.classList.contains('user'));
            if (at < 0 || articles[at].textContent.trim() !== sent) return false;
            return [...articles.slice(at + 1)].some((a) => a.classList.contains('assistant') && /Done:/.test(a.textContent));
          },
          text,
          { timeout: 60_000 },
        ),
        60_000,
        `${label}: the hostile run`,
      );
      await waitForIdle(sidebar, 30_000);
      const requests = model.requests.slice(from).filter((r) => contentText(r.lastUser) === text);
      // Each hostile call: from the model's answer asking for it to the request carrying its result.
      const calls = requests.slice(1).map((r, i) => r.receivedAt - requests[i].lastByteAt);
      const probe = await within(
        other.evaluate(() => ({ samples: window.__probe.samples.slice(-400), inflight: window.__probe.inflightSince ? performance.timeOrigin + performance.now() - window.__probe.inflightSince : 0 })),
        FROZEN_MS,
        `${label}: the probe`,
      );
      const first = performance.timeOrigin + requests[0].lastByteAt;
      const last = performance.timeOrigin + requests.at(-1).receivedAt;
      const during = probe.samples.filter(([start, ms]) => start + ms >= first && start <= last).map(([, ms]) => ms);
      const roundTrip = Math.max(probe.inflight, ...during, 0);
      const line = `${label}: the calls took ${calls.map((ms, i) => `${ms.toFixed(0)} ms (${callNames[i]})`).join(', ')}; meanwhile the other conversation reached the model in ${answer.reachedModel.toFixed(0)} ms and showed its answer in ${answer.answered.toFixed(0)} ms; ${during.length} messages from an extension page came back in at most ${roundTrip.toFixed(0)} ms (budget ${BUDGET_MS} ms: ${Math.max(answer.reachedModel, roundTrip) < BUDGET_MS ? 'met' : 'OVER'})`;
      figures.push(line);
      console.log(`[redos] ${browserName} ${line}`);
      assert.ok(answer.reachedModel < FROZEN_MS, `${label}: the other conversation reached the model in ${answer.reachedModel.toFixed(0)} ms`);
      assert.ok(roundTrip < FROZEN_MS, `${label}: an extension page's message came back in ${roundTrip.toFixed(0)} ms`);
      return { requests, results: toolResults(requests.at(-1)), calls };
    }

    test('(a) list_tabs with .{0,999}.{0,999}.{0,999}! and other backtracking patterns against a page-set title of 200 000 characters', async () => {
      const page = await h.newPage(`http://evil.example:${new URL(site.origin).port}/title.html`);
      await page.waitFor(() => document.title.length > 200_000);
      const decoys = [];
      for (const i of Object.keys(DECOY_TITLES)) decoys.push(await h.newPage(site.url(`/decoy-${i}.html`)));
      const { results } = await whileHostile('list_tabs', 'Find the tab with hostile titles', TITLE_PATTERNS);
      const texts = results.map(toolText);
      assert.equal(texts.length, TITLE_PATTERNS.length);
      // The issue's pattern: refused, with what is allowed.
      assert.match(texts[0], /title_pattern cannot be used: it is too large to match quickly .*Patterns run on a linear-time engine \(RE2 syntax\)/s);
      // The others run: the page's title (2 047 "a"s and a "b" in what is matched) matches none;
      // each finds its decoy, and no other decoy.
      for (const [i, text] of texts.slice(1).entries()) {
        assert.doesNotMatch(text, /cannot be used|Invalid parameters|error/i, `${TITLE_PATTERNS[i + 1]} runs`);
        assert.ok(text.trim().startsWith('['), `${TITLE_PATTERNS[i + 1]}: a list of tabs (${text.slice(0, 200)})`);
        assert.ok(!text.includes('/title.html'), `${TITLE_PATTERNS[i + 1]} does not match the hostile title`);
        const found = Object.keys(DECOY_TITLES).filter((d) => text.includes(`/decoy-${d}.html`));
        assert.deepEqual(found, [String(i + 1)], `${TITLE_PATTERNS[i + 1]} matches its decoy's title only (${text.slice(0, 300)})`);
      }
      await sidebar.screenshot(screenshotPath(browserName, 'redos-list-tabs'));
      for (const decoy of decoys) await decoy.close();
      await page.close();
    });

    test('(b) a WebMCP tool whose schema has pattern ^(a+)+$, called with forty "a"s and a "!"', async () => {
      const page = await h.newPage(`http://tools.example:${new URL(site.origin).port}/tool.html`);
      await sidebar.raw.bringToFront();
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.click('button', 'Allow once');
      await sidebar.waitForText('page tool', { within: '.page-tools', timeout: 20_000 });
      const { results } = await whileHostile('page tool', 'Please redeem my codes', ['40 "a"s and "!"', '"aaaa", through the approval card']);
      const texts = results.map(toolText);
      assert.match(texts[0], /Invalid parameters for tool page\d+_redeem_code: code: String does not match pattern/);
      // The good code went through the approval gate to the page; the hostile one never reached it.
      assert.match(texts[1], /"redeemed":"aaaa"/);
      assert.deepEqual(await page.evaluate(() => window.__calls), ['aaaa']);
      await sidebar.screenshot(screenshotPath(browserName, 'redos-page-tool'));
      await page.close();
    });

    test('(c) an MCP server\'s tool whose schema has pattern ^(a+)+$; one with lookahead is not offered, and the settings say why', async () => {
      const options = await h.openExtensionPage('options.html', { width: 1000, height: 800 });
      await options.click('link', 'MCP servers');
      await options.fill('Server URL', mcp.url);
      await options.fill('Name', 'Codes');
      await options.click('button', 'Add server');
      await options.find('button', 'Add server', { timeout: 30_000 });
      const card = () => options.evaluate(() => document.querySelector('[data-mcp-server="Codes"]')?.innerText ?? '');
      await options.waitFor(() => /cannot be checked in linear time/.test(document.querySelector('[data-mcp-server="Codes"]')?.innerText ?? ''), undefined, { timeout: 30_000 });
      assert.match(await card(), /Not offered: the input schema of "lookahead_code" has a pattern that cannot be checked in linear time/);
      await options.screenshot(screenshotPath(browserName, 'redos-mcp-settings'));
      await options.close();
      await sidebar.raw.bringToFront();
      const before = mcp.state.calls.length;
      const { results } = await whileHostile('MCP tool', 'Check this mcp code', ['40 "a"s and "!"']);
      assert.match(toolText(results[0]), /Invalid parameters for tool mcp_codes_check_code: code: String does not match pattern/);
      assert.equal(mcp.state.calls.length, before, 'the server was never called');
    });
  });
}

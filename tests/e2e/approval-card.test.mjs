// The approval card's input safety and words, end to end in Chromium and Firefox.
// - Someone types in the message box (letters, spaces, Enter) while a card appears: the card never
//   takes the focus, so none of those keys answers it (the script did not run, the model was not
//   called with a result); a click once the card is armed answers it.
// - A click that lands as the card appears does nothing; the keyboard reaches the card on purpose
//   (Shift+Tab from the message box) and answers it once armed.
// - A new card is said through the polite live region; axe finds nothing serious on it.
// - How the card looks with every field the gate fills (tab, outbound sink and sources, a changed
//   tool, a redirect, a local address): light and dark, English and Hebrew, screenshots.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { axeReport, runAxe } from './a11y.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { ALLOW_ONCE, configureProvider, openSidebar, sendMessage, unwrapUntrusted, waitForIdle } from './helpers.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** The card's arming delay (core/ui/arming.ts `ARMING_DELAY_MS`). */
const ARMING_MS = 1000;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Quarterly report — draft</title></head>
<body><h1>Quarterly report</h1><p>Nothing has run here.</p></body></html>`;
/** What the script does to the page if it runs: visible, and answered to the model. */
const CODE = 'document.body.dataset.ran = "yes"; return "ran " + (6 * 7);';

/** A tool result's JSON, whether or not it comes in the untrusted envelope. */
function resultJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(unwrapUntrusted(text)?.content ?? 'null');
  }
}

/** The tool results in a request, as text. */
const toolTexts = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));

/**
 * Records in the sidebar when the first approval card appears and when it arms, and every key
 * pressed from then on: which key, where the focus was, and whether the card was armed.
 */
function recordKeys(sidebar) {
  return sidebar.evaluate(() => {
    const log = (window.__cardLog = { shownAt: 0, armedAt: 0, keys: [], clicks: [] });
    const check = () => {
      const card = document.querySelector('[data-approval]');
      if (card && !log.shownAt) log.shownAt = performance.now();
      if (card?.hasAttribute('data-armed') && !log.armedAt) log.armedAt = performance.now();
    };
    new MutationObserver(check).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-armed'] });
    document.addEventListener(
      'keydown',
      (e) => {
        check();
        if (log.shownAt) log.keys.push({ key: e.key, target: e.target.id || e.target.getAttribute?.('data-answer') || e.target.tagName, armed: Boolean(log.armedAt) });
      },
      true,
    );
    document.addEventListener(
      'click',
      (e) => {
        const card = e.target.closest?.('[data-approval]');
        if (card) log.clicks.push({ answer: e.target.closest('button')?.getAttribute('data-answer') ?? '', armed: card.hasAttribute('data-armed') });
      },
      true,
    );
  });
}

for (const browserName of selectedBrowsers()) {
  describe(`the approval card in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;
    let pageUrl;
    const axe = axeReport(`${browserName}-approval-card`);

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({ pages: { '/report.html': { type: 'text/html; charset=utf-8', body: PAGE } } });
      // A public-looking name (TEST_HOSTS resolve to this machine): the tab is an ordinary site.
      pageUrl = `http://news.example:${new URL(site.origin).port}/report.html`;
      h = await launch(browserName);
      const options = await configureProvider(h, { baseUrl: model.url });
      await options.close();
    });

    after(async () => {
      await axe.write().catch(() => undefined);
      await h?.close();
      await model?.close();
      await site?.close();
    });

    /**
     * The model lists the tabs, then (after `delayMs`) runs a script in the report's tab, which
     * asks; then it answers with what the script said.
     */
    function scriptInReport({ delayMs = 0 } = {}) {
      model.setScript((req) => {
        const results = toolTexts(req);
        if (req.last?.role === 'user') return { toolCalls: [{ name: 'list_tabs', arguments: {} }] };
        if (results.length === 1) {
          const tab = resultJson(results[0]).find((t) => t.url === pageUrl);
          return { delayMs, toolCalls: [{ name: 'execute_script', arguments: { target: 'page', tab_id: tab.tab_id, code: CODE } }] };
        }
        return { text: `Script answered: ${results.at(-1)}` };
      });
    }

    /** Requests in which the model received execute_script's result. */
    const scriptResults = () => model.requests.filter((r) => r.last?.role === 'tool' && toolTexts(r).length >= 2);
    const ran = (page) => page.evaluate(() => document.body.dataset.ran ?? '');

    test('typing in the message box as a card appears never answers it; a click once it is armed does', async () => {
      const report = await h.newPage(pageUrl);
      model.reset();
      scriptInReport({ delayMs: 1200 });
      const sidebar = await openSidebar(h, { autoApprove: false });
      await sidebar.click('button', 'New conversation');
      await sidebar.raw.bringToFront();
      await sidebar.waitFor(() => document.hasFocus());
      await sidebar.evaluate(() => document.getElementById('message-box').focus());
      await recordKeys(sidebar);

      // Type the request and send it with Enter, then go on typing (spaces, Enter) without a
      // pause while the model thinks and the card appears, and for 2 s after it armed.
      const keyboard = sidebar.raw.keyboard;
      await keyboard.type('Run the tidy script on my report tab');
      await keyboard.press('Enter');
      const words = 'and while that runs I keep on writing my next message to you ';
      let shownAt = 0;
      let stopAt = Infinity;
      let typed = 0;
      // Enter after every few keys, and three keys at once when the card is first seen.
      for (let i = 0; Date.now() < stopAt; i++) {
        const ch = words[i % words.length];
                await keyboard.type(ch);
        typed++;
        if (i % 9 === 8) {
          await keyboard.press('Enter');
          typed++;
        }
        if (!shownAt && (await sidebar.evaluate(() => window.__cardLog.shownAt > 0))) {
          shownAt = Date.now();
          await keyboard.press('Enter');
          await keyboard.press(' ');
          await keyboard.press('Enter');
          stopAt = shownAt + ARMING_MS + 2000;
        }
        if (!shownAt && i > 3000) throw new Error('no approval card appeared');
      }
      // Not answered: the card is still there, the script did not run, the model got no result.
      assert.equal((await sidebar.texts('[data-approval]')).length, 1, 'the card is still waiting');
      assert.equal(await ran(report), '', 'the script did not run');
      assert.deepEqual(scriptResults(), [], 'the model was not called with a result');

      const log = await sidebar.evaluate(() => window.__cardLog);
      const afterShown = log.keys.filter((k) => k.key === 'Enter' || k.key === ' ');
      const armedKeys = afterShown.filter((k) => k.armed);
      console.log(
        `${browserName}: ${typed} keys typed; ${afterShown.length} Space/Enter presses while the card showed, ${armedKeys.length} of them after it armed (${Math.round(log.armedAt - log.shownAt)} ms after it appeared)`,
      );
      assert.ok(log.armedAt > log.shownAt, 'the card armed while the test typed');
      assert.ok(afterShown.length >= 5 && armedKeys.length >= 3, 'Space and Enter were pressed before and after the card armed');
      assert.deepEqual([...new Set(log.keys.map((k) => k.target))], ['message-box'], 'every key went to the message box');
      assert.equal(await sidebar.evaluate(() => document.activeElement?.id), 'message-box');
      assert.match(await sidebar.evaluate(() => document.getElementById('message-box').value), /keep on writing/);

      // Screen readers were told, without the focus moving.
      const said = await sidebar.evaluate(() => document.querySelector('[data-announcer]')?.textContent ?? '');
      assert.match(said, /^Approval needed: Sidequest wants to run execute_script on news\.example:\d+\. .* Its buttons are above the message box\.$/);
      await sidebar.screenshot(screenshotPath(browserName, 'approval-card-armed'));
      const violations = await runAxe(sidebar);
      axe.add('sidebar (approval card)', violations);
      assert.deepEqual(axe.serious(violations), [], 'axe: serious or critical violations on the card');

      // A click on the armed card answers it: the script runs and the model reads its result.
      await sidebar.raw.click(ALLOW_ONCE);
      await sidebar.waitForText('Script answered:', { timeout: 20_000 });
      await waitForIdle(sidebar);
      assert.equal(await ran(report), 'yes');
      assert.equal(scriptResults().length, 1);
      assert.match(toolTexts(scriptResults()[0]).at(-1), /ran 42/);
      assert.deepEqual((await sidebar.evaluate(() => window.__cardLog.clicks)).map((c) => [c.answer, c.armed]), [['once', true]]);
      await sidebar.close();
      await report.close();
    });

    test('a click as the card appears does nothing; Shift+Tab from the message box reaches it, and Enter answers once armed', async () => {
      const report = await h.newPage(pageUrl);
      model.reset();
      scriptInReport();
      const sidebar = await openSidebar(h, { autoApprove: false });
      await sidebar.click('button', 'New conversation');
      await sidebar.raw.bringToFront();
      await sidebar.waitFor(() => document.hasFocus());
      await recordKeys(sidebar);
      await sendMessage(sidebar, 'Run the tidy script on my report tab');
      // The card appears under a click: the mouse presses Allow once the moment it is seen.
      await sidebar.waitFor(() => Boolean(document.querySelector('[data-approval] button[data-answer="once"]')), undefined, { timeout: 20_000 });
      const box = await sidebar.evaluate(() => {
        const r = document.querySelector('[data-approval] button[data-answer="once"]').getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      });
      await sidebar.raw.mouse.click(box.x, box.y);
      const early = await sidebar.evaluate(() => window.__cardLog.clicks);
      assert.deepEqual(early.map((c) => [c.answer, c.armed]), [['once', false]], 'the click landed on Allow once before the card armed');
      await sleep(ARMING_MS + 500);
      assert.equal((await sidebar.texts('[data-approval]')).length, 1, 'the early click did not answer');
      assert.equal(await ran(report), '');
      assert.deepEqual(scriptResults(), []);

      // The keyboard, on purpose: from the message box back to the card's Deny, then Enter.
      await sidebar.evaluate(() => document.getElementById('message-box').focus());
      for (let i = 0; i < 10 && !(await sidebar.evaluate(() => document.activeElement?.getAttribute('data-answer') === 'deny')); i++) {
        await sidebar.raw.keyboard.down('Shift');
        await sidebar.press('Tab');
        await sidebar.raw.keyboard.up('Shift');
      }
      assert.equal(await sidebar.evaluate(() => document.activeElement?.getAttribute('data-answer')), 'deny', 'Shift+Tab reached the card');
      await sidebar.press('Enter');
      await sidebar.waitForText('Script answered:', { timeout: 20_000 });
      await waitForIdle(sidebar);
      assert.equal(await ran(report), '', 'denied: the script never ran');
      assert.match(toolTexts(scriptResults()[0]).at(-1), /declined/);
      await sidebar.waitFor(() => document.activeElement?.id === 'message-box');
      await sidebar.close();
      await report.close();
    });
  });
}

// The user sees and stays in control, in real browsers: the scripted model hands the tab over
// (hand_over) on a fixture page; the page shows the bar with the reason, the sidebar shows "Paused —
// you have the tab"; a real (trusted) click on the bar's Resume, or the sidebar's Resume, gives
// the model a fresh read of the page; Take over pauses; Stop in the bar stops the run. The page's
// own script can neither see into the bar (closed shadow root) nor press its buttons (synthetic
// clicks), and gets it back when it removes it.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';
import { barButtonPoints } from './page-actions-helpers.mjs';

const SHOTS = process.env.SIDEQUEST_SHOTS ?? '';
const REASON = 'Sign in to your account with your own password, then press Resume.';

const LOGIN = {
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>Shop — Sign in</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #222; }
  header { background: #243b55; color: #fff; padding: 14px 20px; font-weight: 600; }
  main { max-width: 340px; margin: 32px auto; background: #fff; padding: 20px 22px; border-radius: 10px; box-shadow: 0 1px 4px rgb(0 0 0 / 12%); }
  label { display: block; margin: 10px 0 4px; font-size: 13px; }
  input { width: 100%; box-sizing: border-box; padding: 8px; border: 1px solid #bbb; border-radius: 6px; }
  button { margin-top: 14px; padding: 8px 14px; border: 0; border-radius: 6px; background: #243b55; color: #fff; }
  /* A hostile page tries to hide anything appended to <html>. */
  html > :not(head):not(body) { display: none !important; opacity: 0 !important; }
</style></head>
<body><header>Example Shop</header><main><h1>Sign in</h1>
<form><label for="u">Email</label><input id="u" type="email" autocomplete="username">
<label for="p">Password</label><input id="p" type="password" autocomplete="current-password">
<button type="button" id="go">Sign in</button></form>
<p id="log">Page log:</p></main>
<script>
  window.__clicks = [];
  addEventListener('click', (e) => window.__clicks.push(e.target.tagName.toLowerCase()), true);
</script></body></html>`,
};

/** The bar's host on the page (our element with the random tag), as the page's own script sees it. */
function hostInfo() {
  const host = [...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName));
  if (!host) return null;
  const r = host.getBoundingClientRect();
  return { tag: host.tagName.toLowerCase(), shadowRoot: host.shadowRoot === null ? null : 'open', text: host.textContent, html: host.innerHTML, left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height, display: getComputedStyle(host).display };
}

/**
 * Records, in an extension page, each pause and resume of a tab the background announces to the
 * extension's pages (`page-actions-paused` on the events port, which the sidebar listens to), with
 * the time it arrived (`window.__pauses`). The bar's presses reach the background in order (one
 * port), and each take-over, resume or stop it acts on is announced: a press that should do
 * nothing is checked by what was announced before a later press's answer, not by a wait.
 */
async function watchPauses(extensionPage) {
  await extensionPage.evaluate((name) => {
    const api = globalThis.browser ?? globalThis.chrome;
    window.__pauses = [];
    window.__pausesPort?.disconnect();
    window.__pausesPort = api.runtime.connect({ name });
    window.__pausesPort.onMessage.addListener((event) => {
      if (event?.type === 'page-actions-paused') window.__pauses.push({ paused: Boolean(event.paused), at: Date.now() });
    });
  }, 'sidequest:events');
}
const pauses = (extensionPage) => extensionPage.evaluate(() => window.__pauses);

for (const browserName of selectedBrowsers()) {
  describe(`page-actions control in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;
    let page;
    let sidebar;
    let tabId;

    const mouse = async (x, y) => {
      await page.raw.bringToFront();
      await page.raw.mouse.click(x, y);
    };
    const toolResults = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));
    const shot = async (target, name) => {
      if (!SHOTS) return;
      await mkdir(SHOTS, { recursive: true });
      await target.raw.screenshot({ path: `${SHOTS}/${browserName}-${name}.png` });
    };
    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({ pages: { '/login.html': LOGIN } });
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
      page = await h.newPage(site.url('/login.html'));
      await page.raw.setViewport?.({ width: 900, height: 560 });
      await page.raw.setViewportSize?.({ width: 900, height: 560 });
      sidebar = await openSidebar(h);
      tabId = await sidebar.evaluate(async (url) => {
        const api = globalThis.browser ?? globalThis.chrome;
        // Firefox's match patterns take no port: filter the tabs here.
        const tabs = await api.tabs.query({});
        return tabs.find((t) => t.url === url)?.id;
      }, site.url('/login.html'));
      assert.equal(typeof tabId, 'number');
    });

    after(async () => {
      await sidebar?.close().catch(() => undefined);
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('hand_over: the bar and the sidebar say why; the page cannot press or read the bar; a real click on Resume gives the model the page again', async () => {
      model.setScript((req) => {
        const results = toolResults(req);
        if (results.length === 0) return { toolCalls: [{ name: 'hand_over', arguments: { tab_id: tabId, reason: REASON } }] };
        return { text: `Back from the user: ${results.at(-1).slice(0, 400)}` };
      });
      await sendMessage(sidebar, 'Buy the blue mug on the shop');
      await sidebar.waitForText('Paused — you have the tab', { timeout: 30_000 });
      await sidebar.waitForText(REASON);
      await sidebar.waitForText('On 127.0.0.1');
      await page.waitFor(() => Boolean([...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName))));
      const info = await page.evaluate(hostInfo);
      // The page sees an empty host: no shadow root to open, no words, no buttons; its CSS did not hide it.
      assert.equal(info.shadowRoot, null);
      assert.equal(info.text, '');
      assert.equal(info.html, '');
      assert.equal(info.display, 'block');
      assert.ok(info.width > 150 && info.height > 20, `the bar has a size: ${JSON.stringify(info)}`);
      assert.ok(info.bottom <= 560 && info.bottom > 480, 'at the bottom of the viewport');
      await page.raw.bringToFront();
      await shot(page, 'bar-paused');
      await shot(sidebar, 'sidebar-paused');

      // The page's script attacks: synthetic clicks where the buttons are, on the host, and removing it.
      await watchPauses(sidebar);
      const points = await page.evaluate(barButtonPoints, { last: 'Resume', stop: 'Stop' });
      const attack = await page.evaluate((pts) => {
        const out = [];
        for (const p of [pts.last, pts.stop]) {
          const el = document.elementFromPoint(p.x, p.y);
          out.push(el?.tagName.toLowerCase());
          for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']) {
            el.dispatchEvent(new MouseEvent(type, { bubbles: true, composed: true, clientX: p.x, clientY: p.y }));
          }
          el.click();
        }
        const host = document.elementFromPoint(pts.last.x, pts.last.y);
        let attach = 'allowed';
        try {
          host.attachShadow({ mode: 'open' });
        } catch {
          attach = 'refused';
        }
        host.remove();
        return { hit: out, attach };
      }, points);
      assert.ok(attack.hit.every((tag) => /^sidequest-bar-/.test(tag)), `elementFromPoint gives the host: ${attack.hit}`);
      assert.equal(attack.attach, 'refused');
      // Put back by the extension; the run is still paused.
      await page.waitFor(() => Boolean([...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName))));
      assert.equal(model.requests.length, 1, 'nothing resumed or stopped the run');
      assert.match(await sidebar.text(), /Paused — you have the tab/);

      // The user's own click on Resume: the first thing announced since the attack is its resume (a
      // stop pressed by the page would have ended the run before it; a resume, come before it).
      const again = await page.evaluate(barButtonPoints, { last: 'Resume', stop: 'Stop' });
      const pressed = Date.now();
      await mouse(again.last.x, again.last.y);
      await sidebar.waitForText('Back from the user:', { timeout: 30_000 });
      const announced = await pauses(sidebar);
      assert.equal(announced[0]?.paused, false, `the run was resumed: ${JSON.stringify(announced)}`);
      assert.ok(announced[0].at >= pressed, `resumed ${pressed - announced[0].at} ms before the user's click: by the page's synthetic one`);
      await waitForIdle(sidebar);
      const result = JSON.parse(toolResults(model.requests.at(-1))[0]);
      assert.equal(result.resumed, true);
      assert.equal(result.url, site.url('/login.html'));
      assert.match(result.outline, /<<<UNTRUSTED BEGIN/);
      // A fresh read of the page, with references to act on; the bar is not part of it.
      assert.match(result.outline, /heading "Sign in"/);
      assert.match(result.outline, /textbox "Password"[^\n]*\[ref=e\d+\]/);
      assert.doesNotMatch(result.outline, /acting in this tab|Paused — you have the tab|Resume/);
      assert.match(result.title, /Shop — Sign in/);
      assert.doesNotMatch(await sidebar.text(), /Paused — you have the tab/);
      // The run ended: the bar is gone.
      await page.waitFor(() => ![...document.documentElement.children].some((el) => /^sidequest-bar-/i.test(el.tagName)));
    });

    test('the sidebar Resume hands the tab back too; a navigation while paused keeps the paused bar', async () => {
      model.reset();
      model.setScript((req) => {
        const results = toolResults(req);
        if (results.length === 0) return { toolCalls: [{ name: 'hand_over', arguments: { tab_id: tabId, reason: 'Solve the CAPTCHA.' } }] };
        return { text: `Resumed: ${results.at(-1).slice(0, 200)}` };
      });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Go on');
      await sidebar.waitForText('Solve the CAPTCHA.', { timeout: 30_000 });
      await page.waitFor(() => Boolean([...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName))));
      // The user signs in: a new page loads; it gets the paused bar again.
      await page.raw.goto(site.url('/alpha.html'));
      await page.waitFor(() => Boolean([...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName))), undefined, { timeout: 15_000 });
      await sidebar.raw.bringToFront();
      await sidebar.click('button', 'Resume');
      await sidebar.waitForText('Resumed:', { timeout: 30_000 });
      await waitForIdle(sidebar);
      const result = JSON.parse(toolResults(model.requests.at(-1))[0]);
      assert.equal(result.resumed, true);
      assert.equal(result.url, site.url('/alpha.html'));
      await page.waitFor(() => ![...document.documentElement.children].some((el) => /^sidequest-bar-/i.test(el.tagName)));
      await page.raw.goto(site.url('/login.html'));
    });

    test('while acting: Take over pauses the next action until Resume, whose result says the user had the tab; Stop stops the run', async () => {
      model.reset();
      model.setScript((req) => {
        const results = toolResults(req);
        if (results.length === 0) return { toolCalls: [{ name: 'scroll', arguments: { tab_id: tabId, direction: 'down' } }] };
        // A wait keeps the run going while the user takes over; the next action then waits for Resume.
        if (results.length === 1) return { toolCalls: [{ name: 'wait_for', arguments: { tab_id: tabId, text: 'never shows', timeout_ms: 6000 } }] };
        if (results.length === 2) return { toolCalls: [{ name: 'scroll', arguments: { tab_id: tabId, direction: 'up' } }] };
        return { toolCalls: [{ name: 'wait_for', arguments: { tab_id: tabId, text: 'never shows', timeout_ms: 60_000 } }] };
      });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Look around');
      await page.waitFor(() => Boolean([...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName))), undefined, { timeout: 30_000 });
      await page.raw.bringToFront();
      // For the screenshot: the bar's rise animation done.
      if (SHOTS) await new Promise((r) => setTimeout(r, 400));
      await shot(page, 'bar-acting');
      await watchPauses(sidebar);
      // The wait is under way (the model asked for it) before the user takes over.
      for (const until = Date.now() + 15_000; model.requests.length < 2 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
      const points = await page.evaluate(barButtonPoints, { last: 'Take over', stop: 'Stop' });
      // A synthetic click at Take over does nothing. Had it paused the run, the background would
      // have announced that pause before the one of the user's own click below (the bar's presses
      // arrive in order), and again on the user's click (or resumed, had that click found Resume
      // there by then): what is announced up to the Resume further down is checked there.
      await page.evaluate((p) => document.elementFromPoint(p.x, p.y).click(), points.last);
      const pressed = Date.now();
      await mouse(points.last.x, points.last.y);
      await sidebar.waitForText('Paused — you have the tab', { timeout: 15_000 });
      const first = (await pauses(sidebar))[0];
      assert.ok(first?.paused && first.at >= pressed, `paused by the user's click, not ${pressed - first?.at} ms before it: ${JSON.stringify(first)}`);
      // The wait ends; the next action (scroll up) waits while the user has the tab: the gate holds
      // it before anything is asked (its card comes after the Resume).
      // The sidebar in front, as a person watching it: its approval cards arm and get answered.
      await sidebar.raw.bringToFront();
      for (const until = Date.now() + 20_000; model.requests.length < 3 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
      // (Its result, further down, says it ran after the Resume.)
      assert.equal(toolResults(model.requests.at(-1)).length, 2, 'the scroll waits for Resume');
      const paused = await page.evaluate(barButtonPoints, { last: 'Resume', stop: 'Stop' });
      await mouse(paused.last.x, paused.last.y);
      await sidebar.waitFor(() => !document.body.innerText.includes('Paused — you have the tab'), undefined, { timeout: 15_000 });
      // Since the synthetic click: one pause (the user's Take over), then this Resume.
      await sidebar.waitFor(() => window.__pauses.some((e) => !e.paused));
      const announced = (await pauses(sidebar)).map((e) => (e.paused ? 'paused' : 'resumed'));
      assert.deepEqual(announced.slice(0, announced.indexOf('resumed') + 1), ['paused', 'resumed'], `announced: ${announced}`);
      // The scroll ran after Resume and says the user had the tab.
      for (const until = Date.now() + 15_000; toolResults(model.requests.at(-1)).length < 3 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
      // (The gate held it before it ran, and says so; an action that began before the take-over says it itself.)
      assert.match(toolResults(model.requests.at(-1))[2], /the user had this tab \(they took it over\)|The user took over this tab and pressed Resume/);
      // Acting again: Stop in the bar stops the run.
      await new Promise((r) => setTimeout(r, 500));
      const acting = await page.evaluate(barButtonPoints, { last: 'Take over', stop: 'Stop' });
      await mouse(acting.stop.x, acting.stop.y);
      await sidebar.waitForText('You stopped the run.', { timeout: 15_000 });
      await page.waitFor(() => ![...document.documentElement.children].some((el) => /^sidequest-bar-/i.test(el.tagName)), undefined, { timeout: 15_000 });
      assert.doesNotMatch(await sidebar.text(), /Paused — you have the tab/);
      // The page's own click listener never saw a click on the bar's buttons (only the host, at most).
      const clicks = await page.evaluate(() => window.__clicks);
      assert.ok(clicks.every((tag) => tag !== 'button'), `page saw: ${clicks}`);
    });
  });
}

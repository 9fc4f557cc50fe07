// The page agent as built (`.output/*/page-actions-agent.js`), run in an isolated world of a real
// tab — a DevTools isolated world in Chromium, a WebDriver BiDi sandbox (Xrays) in Firefox, the
// same kind of world content scripts get — against pages that fight back: a page that replaces
// the DOM's methods in its own world cannot change what the agent does; contenteditable (also in
// a shadow root), textarea, Tab, <select>, a visually hidden checkbox behind its label, and a
// modal that covers a button are handled as a person would. The whole extension's tools on real
// apps are the page-actions e2e tests; this file pins the page side alone, in both browsers.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { startFixtureServer } from './fixture-server.mjs';
import { extensionDir, selectedBrowsers } from './harness.mjs';

const HOSTILE = `<!doctype html><html><head><title>Hostile</title></head><body>
<input type="checkbox" id="c" aria-label="Agree"><form id="f"><input id="t" aria-label="Name"><button id="b">Go</button></form>
<script>
const got = []; const log = [];
document.addEventListener('click', (e) => got.push('click:' + e.target.id + ':' + (e.clientX > 0)), true);
document.addEventListener('keydown', (e) => got.push('keydown:' + e.key + ':' + e.keyCode), true);
document.getElementById('f').addEventListener('submit', (e) => { e.preventDefault(); got.push('submit:' + (e.submitter && e.submitter.id)); });
EventTarget.prototype.dispatchEvent = function () { log.push('dispatchEvent'); return true; };
EventTarget.prototype.addEventListener = function () { log.push('addEventListener'); };
HTMLElement.prototype.click = function () { log.push('click'); };
HTMLElement.prototype.focus = function () { log.push('focus'); };
HTMLFormElement.prototype.requestSubmit = function () { log.push('requestSubmit'); };
Document.prototype.execCommand = function () { log.push('execCommand'); return true; };
Document.prototype.elementsFromPoint = function () { log.push('elementsFromPoint'); return [document.body]; };
Object.defineProperty(HTMLInputElement.prototype, 'value', { configurable: true, get() { return 'forged'; }, set() { log.push('value'); } });
const define = Object.defineProperty; Object.defineProperty = function (o, k, d) { log.push('defineProperty'); return define(o, k, d); };
window.__got = got; window.__log = log;
</script></body></html>`;

const WIDGETS = `<!doctype html><html><head><title>Widgets</title><style>#overlay{position:fixed;inset:0;background:rgba(0,0,0,.5)} #overlay[hidden]{display:none}</style></head><body>
<div contenteditable="true" id="ce" aria-label="Message"><p>old text</p></div>
<x-ed id="host"></x-ed>
<textarea id="ta" aria-label="Notes">x</textarea><input id="after" aria-label="After">
<select id="s" aria-label="Country"><option value="">Choose</option><option value="fr">France</option></select>
<button id="buy">Buy</button>
<label><input type="checkbox" id="cb" style="opacity:0;position:absolute;width:1px;height:1px"> <span>Agree to terms</span></label>
<div id="overlay" hidden><div role="dialog" aria-label="Subscribe" style="background:#fff;margin:100px;padding:20px"><p>Join</p><button id="close">Close</button></div></div>
<script>
customElements.define('x-ed', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<div contenteditable="true" id="inner" aria-label="Inner">shadow old</div>'; } });
window.__ev = []; for (const t of ['input', 'change']) document.addEventListener(t, (e) => __ev.push(t + ':' + (e.composedPath()[0].id || e.target.id)), true);
</script></body></html>`;

/**
 * What the built script expects of an extension's world, to load (the polyfill checks
 * `chrome.runtime.id`); the agent uses none of it for acting (the bar's port and words only).
 */
const EXTENSION_STUB = `globalThis.browser = { runtime: { id: 'sidequest-test', connect: () => ({ postMessage() {}, onDisconnect: { addListener() {} } }) }, i18n: { getMessage: () => '' } };
globalThis.chrome = globalThis.browser; 1`;

/** Runs in the isolated world: the agent's handle, and a reference for a selector (open shadow roots included). */
const HELPERS = `globalThis.__sq = {
  agent: globalThis[Symbol.for('sidequest.page-actions')],
  refs: () => globalThis[Symbol.for('sidequest.element-refs')],
  find(selector) {
    const all = (root) => [...root.querySelectorAll('*')].flatMap((el) => [el, ...(el.shadowRoot ? all(el.shadowRoot) : [])]);
    const el = all(document).find((e) => e.matches(selector));
    return el ? 'e' + this.refs().refOf(el).split('.').pop() : null;
  },
  async call(request) {
    const token = this.refs()?.token;
    const ref = request.selector ? this.find(request.selector) : undefined;
    const { selector, ...rest } = request;
    return this.agent.handle({ token, ...rest, ...(ref ? { ref } : {}) });
  },
}; 1`;

/** A tab with an isolated world holding the built agent: `run(expression)` evaluates there, `page(fn)` in the page's world. */
async function openChromium(browser, url, script) {
  const page = await browser.newPage();
  await page.goto(url);
  const cdp = await page.context().newCDPSession(page);
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'sidequest-test' });
  const run = async (expression) => {
    const result = await cdp.send('Runtime.evaluate', { expression, contextId: executionContextId, awaitPromise: true, returnByValue: true });
    if (result.exceptionDetails) throw new Error(JSON.stringify(result.exceptionDetails).slice(0, 400));
    return result.result.value;
  };
  await run(EXTENSION_STUB);
  await run(script);
  await run(HELPERS);
  return { run, page: (fn) => page.evaluate(fn), close: () => page.close() };
}

async function openFirefox(browser, url, script) {
  const page = await browser.newPage();
  await page.goto(url);
  const realm = page.mainFrame().isolatedRealm();
  const run = (expression) => realm.evaluate(expression);
  await run(EXTENSION_STUB);
  await run(script);
  await run(HELPERS);
  return { run, page: (fn) => page.evaluate(fn), close: () => page.close() };
}

for (const browserName of selectedBrowsers()) {
  describe(`page agent in an isolated world (${browserName})`, () => {
    let server;
    let browser;
    let script;
    const open = (name) => (browserName === 'firefox' ? openFirefox : openChromium)(browser, server.url(name), script);

    before(async () => {
      script = await readFile(path.join(extensionDir(browserName), 'page-actions-agent.js'), 'utf8');
      server = await startFixtureServer({ pages: { '/hostile.html': { type: 'text/html; charset=utf-8', body: HOSTILE }, '/widgets.html': { type: 'text/html; charset=utf-8', body: WIDGETS } } });
      browser =
        browserName === 'firefox'
          ? await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true })
          : await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    it("a page that replaces the DOM's methods in its world changes nothing the agent does", async () => {
      const tab = await open('/hostile.html');
      try {
        const clicked = await tab.run(`__sq.call({ op: 'click', selector: '#c' })`);
        assert.equal(clicked.ok, true, clicked.error);
        assert.equal(clicked.note, 'Clicked checkbox "Agree": now checked.');
        const filled = await tab.run(`__sq.call({ op: 'fill', selector: '#t', text: 'Ada', submit: true })`);
        assert.equal(filled.ok, true, filled.error);
        assert.equal(filled.note, 'Typed 3 characters into textbox "Name" and pressed Enter (the form was submitted).');
        assert.equal(await tab.run(`document.getElementById('t').value`), 'Ada');
        const seen = await tab.page(() => ({ got: window.__got, log: window.__log, checked: document.getElementById('c').checked }));
        assert.deepEqual(seen.log, [], 'none of the page replacements was called');
        assert.equal(seen.checked, true);
        assert.deepEqual(seen.got, ['click:c:true', 'keydown:Enter:13', 'click:b:false', 'submit:b']);
      } finally {
        await tab.close();
      }
    });

    it('types into contenteditable (also in a shadow root) and textarea, tabs, chooses, and names a covering dialog', async () => {
      const tab = await open('/widgets.html');
      try {
        const call = async (request) => {
          const reply = await tab.run(`__sq.call(${JSON.stringify(request)})`);
          assert.equal(reply.ok, true, reply.error);
          return reply;
        };
        await call({ op: 'fill', selector: '#ce', text: 'Hello' });
        assert.equal(await tab.run(`document.getElementById('ce').textContent`), 'Hello');
        await call({ op: 'fill', selector: '#inner', text: 'World' });
        assert.equal(await tab.run(`document.getElementById('host').shadowRoot.getElementById('inner').textContent`), 'World');
        await call({ op: 'fill', selector: '#ta', text: 'a\nb' });
        await call({ op: 'press', key: 'Enter' });
        assert.equal(await tab.run(`document.getElementById('ta').value`), 'a\nb\n');
        const tabbed = await call({ op: 'press', key: 'Tab' });
        assert.match(tabbed.note, /focus moved to textbox "After"/);
        assert.equal(await tab.run(`document.activeElement.id`), 'after');
        const chosen = await call({ op: 'select', selector: '#s', label: 'france' });
        assert.equal(chosen.note, 'Chose "France" in combobox "Country".');
        const agreed = await call({ op: 'click', selector: '#cb' });
        assert.match(agreed.note, /now checked/);
        assert.equal(await tab.run(`document.getElementById('cb').checked`), true);
        const events = await tab.page(() => window.__ev);
        for (const expected of ['input:ce', 'input:inner', 'input:ta', 'change:s', 'change:cb']) assert.ok(events.includes(expected), `${expected} in ${events}`);
        await tab.run(`document.getElementById('overlay').hidden = false`);
        const covered = await tab.run(`__sq.call({ op: 'click', selector: '#buy' })`);
        assert.equal(covered.ok, false);
        assert.match(covered.error, /^button "Buy" \(e\d+\) is covered by dialog "Subscribe" \(e\d+\)/);
        const dialogRef = /covered by dialog "Subscribe" \((e\d+)\)/.exec(covered.error)[1];
        const outline = await tab.run(`__sq.call({ op: 'outline', ref: '${dialogRef}' })`);
        assert.match(outline.text, /button "Close" \[ref=e\d+\]/);
      } finally {
        await tab.close();
      }
    });
  });
}

// Security suite, in both browsers:
// - XSS: a page tool whose group name, description, name and result carry payloads, and an answer
//   that quotes them, render inert in the sidebar: nothing runs, nothing loads (a beacon counts hits).
// - Flood: a page forges the relay's events (CustomEvents with JSON strings) and pushes 20 000
//   tools and 5 MB descriptions for seconds; a list_tabs call made meanwhile still answers (the
//   time is printed; a bound of 5 s catches a stalled background without failing a slow machine).

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, lastAnswer, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';

/** A background that takes this long to answer during the flood is stalled, not just busy. */
const FROZEN_MS = 5000;

/** Serves the test pages and counts every request to /beacon… (a payload that loads something). */
async function startServer() {
  const hits = [];
  const pages = {};
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/beacon')) {
      hits.push(req.url);
      res.writeHead(200, { 'content-type': 'image/gif' });
      return res.end();
    }
    const page = pages[url.pathname];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, url: (p) => origin + p, hits, pages, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

/** The payloads: each would set a flag or load the beacon if it ever became live HTML. */
function payloads(origin) {
  const b = `${origin}/beacon`;
  return [
    `<img src="${b}/img" onerror="window.__pwned='img'">`,
    `<script>window.__pwned='script'</script>`,
    `<svg onload="window.__pwned='svg'"></svg>`,
    `<iframe src="javascript:parent.__pwned='iframe'"></iframe>`,
    `[click me](javascript:window.__pwned='link')`,
    `![tracker](${b}/markdown-image)`,
    `<a href="javascript:window.__pwned='a'">a</a>`,
    `<style>@import '${b}/css';</style>`,
    `"><img src=x onerror=window.__pwned='attr'>`,
    `<details open ontoggle="window.__pwned='toggle'">`,
    `<math><mtext><table><mglyph><style><img src=${b}/mxss onerror=window.__pwned='mxss'>`,
  ];
}

// `<\/` inside the inline script: a payload's `</script>` must not end it.
const html = (title, script) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><script>${script.replace(/<\//g, '<\\/')}</script></body></html>`;

for (const browserName of selectedBrowsers()) {
  describe(`security in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;
    let app;
    let sidebar;
    let xss;

    before(async () => {
      model = await startModelServer();
      site = await startServer();
      xss = payloads(site.origin);
      const all = JSON.stringify(xss.join(' '));
      site.pages['/xss.html'] = html(
        'XSS tools',
        `window.addEventListener('devtoolstooldiscovery', (e) => e.respondWith({
          name: ${JSON.stringify(xss[2])}, description: ${all},
          tools: [{ name: ${JSON.stringify(xss[8])}, title: ${JSON.stringify(xss[1])}, description: ${all}, inputSchema: {}, execute: () => ({ html: ${all}, list: ${JSON.stringify(xss)} }) }] }));`,
      );
      site.pages['/flood.html'] = html(
        'Flood',
        `window.__flood = (count, descriptionChars, forMs) => {
          // Two forged lists in turn: one with 5 MB descriptions (12 MB in all), one of 20 000
          // tools just under the relay's 4 MB message limit, which it cleans and passes on.
          const list = (description, toolDescription) => {
            const tools = [];
            for (let i = 0; i < count; i++) tools.push({ key: 'k' + i, name: 'tool' + i, description: i === 0 ? description : toolDescription + i, inputSchema: { type: 'object' } });
            return JSON.stringify({ type: 'tools', list: { groups: [{ name: 'Flood', description, source: 'devtools', tools }], problems: [], reason: 'forged', discoveryMs: 0 } });
          };
          const details = [list('x'.repeat(descriptionChars), 'Tool '), list('y'.repeat(200_000), 'A tool that floods the agent, number ')];
          const until = Date.now() + forMs;
          window.__floodSent = 0;
          window.__floodChars = details.map((d) => d.length);
          const tick = () => {
            window.dispatchEvent(new CustomEvent('sidequest:page-tools:to-isolated', { detail: details[window.__floodSent % 2] }));
            window.__floodSent++;
            if (Date.now() < until) setTimeout(tick, 20);
          };
          tick();
        };`,
      );
      h = await launch(browserName);
      await (await configureProvider(h, { baseUrl: model.url })).close();
      app = await h.newPage(site.url('/xss.html'));
      sidebar = await openSidebar(h);
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('XSS payloads in a page tool\'s names, description and result, and in the answer, render inert', async () => {
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.screenshot(screenshotPath(browserName, 'security-xss-consent'));
      await sidebar.click('button', 'Allow once');
      await sidebar.evaluate(() => {
        const toggle = document.querySelector('.page-tools .toggle');
        if (toggle && toggle.getAttribute('aria-expanded') !== 'true') toggle.click();
      });
      model.reset();
      model.setScript((req) => {
        if (req.last?.role === 'tool') {
          // The answer quotes the result raw, and adds payloads of its own.
          return { text: `The tool answered: ${contentText(req.last)}\n\n${xss.join('\n\n')}` };
        }
        const tool = req.tools.find((t) => /^page\d+_/.test(t.function?.name ?? ''));
        return tool ? { toolCalls: [{ name: tool.function.name, arguments: {} }] } : { text: 'I have no page tool.' };
      });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Run the page tool');
      await sidebar.waitForText('The tool answered:', { timeout: 30_000 });
      await waitForIdle(sidebar);
      // Open every tool card, so its body (input, result) is rendered too.
      await sidebar.evaluate(() => document.querySelectorAll('details.tool').forEach((d) => (d.open = true)));
      // textContent: Firefox gives no innerText for content-visibility parts out of view.
      await sidebar.waitFor(() => [...document.querySelectorAll('details.tool')].some((d) => d.textContent.includes('__pwned')), undefined, { timeout: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 1000)); // Time for anything that would load or run.
      const state = await sidebar.evaluate(() => ({
        pwned: window.__pwned ?? null,
        live: [...document.querySelectorAll('main img, main script, main svg[onload], main iframe, main style, main [onerror], main [onload], main [ontoggle]')].map((e) => e.outerHTML.slice(0, 120)),
        jsLinks: [...document.querySelectorAll('a[href]')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href'))).length,
        consentLive: [...document.querySelectorAll('.page-tools img, .page-tools script, .page-tools [onerror]')].length,
      }));
      assert.equal(state.pwned, null, 'no payload ran');
      assert.deepEqual(state.live, [], 'no payload became an element');
      assert.equal(state.jsLinks, 0, 'no javascript: link');
      assert.equal(state.consentLive, 0, 'the page-tools panel shows the names as text');
      assert.match(await lastAnswer(sidebar), /<img src=/, 'the payloads are shown as text');
      assert.deepEqual(site.hits, [], 'nothing was loaded from the beacon');
      await sidebar.screenshot(screenshotPath(browserName, 'security-xss'));
    });

    test('a page that forges the relay\'s events with 20 000 tools and 5 MB descriptions cannot stall the background', async (t) => {
      await app.raw.goto(site.url('/flood.html'));
      await app.evaluate(() => window.__flood(20_000, 5 * 1024 * 1024, 8000));
      await new Promise((resolve) => setTimeout(resolve, 1500)); // The flood is under way.
      model.reset();
      model.setScript((req) => (req.last?.role === 'tool' ? { text: `Listed: ${contentText(req.last).length} characters of tabs.` } : { toolCalls: [{ name: 'list_tabs', arguments: {} }] }));
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Which tabs are open?');
      // The background's answer is measured at the model server, while the flood goes on.
      const deadline = Date.now() + 30_000;
      while (model.requests.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(model.requests.length >= 2, 'the list_tabs result reached the model during the flood');
      const sent = await app.evaluate(() => ({ sent: window.__floodSent, chars: window.__floodChars }));
      // The sidebar shows the answer (textContent: the open tool list may push it out of view,
      // where Firefox gives no innerText).
      await sidebar.waitFor(() => [...document.querySelectorAll('main article')].some((a) => a.textContent.includes('Listed:')), undefined, { timeout: 30_000 });
      await waitForIdle(sidebar, 60_000);
      // From the end of the model's answer that asked for list_tabs to the request carrying its result.
      const [ask, answer] = model.requests;
      const ms = answer.receivedAt - ask.lastByteAt;
      const sizes = sent.chars.map((c) => `${(c / 1e6).toFixed(1)} MB`).join(' and ');
      t.diagnostic(`${browserName}: list_tabs answered in ${ms.toFixed(0)} ms during a flood of ${sent.sent} forged lists of ${sizes} in turn`);
      console.log(`[security] flood ${browserName}: list_tabs round trip ${ms.toFixed(0)} ms; ${sent.sent} forged lists of ${sizes} in turn`);
      assert.ok(sent.sent >= 2, 'the flood was running');
      // The figure is printed above; the bound is generous (a loaded machine is slow) but far below
      // what an unbounded flood costs a background that parses it all (it froze for minutes).
      assert.ok(ms < FROZEN_MS, `list_tabs answered in ${ms.toFixed(0)} ms during the flood (a background this slow is stalled)`);
      // The background kept at most its limit of the page's tools, and the site is still not allowed.
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.waitForText('256 page tools', { within: '.page-tools' });
      await sidebar.screenshot(screenshotPath(browserName, 'security-flood'));
    });

    test('XSS payloads in what the settings, the popup and the conversation list show (a profile\'s name and model, a file\'s name, a conversation\'s title) render inert', async (t) => {
      // Away from the flood: the hostile tools page again (the popup shows its tools).
      await app.raw.goto(site.url('/xss.html'));
      // A conversation titled with payloads, and a workspace file named with two (names cannot hold "/").
      const fileName = `${xss[8]} ${xss[9]}.txt`;
      model.reset();
      model.setScript((req) =>
        req.last?.role === 'tool' ? { text: `Wrote: ${contentText(req.last)}` } : { toolCalls: [{ name: 'opfs_write', arguments: { path: fileName, content: xss.join('\n') } }] },
      );
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, `${xss[0]} ${xss[8]}`);
      // textContent: the flood's tools panel may push the answer out of view (no innerText in Firefox).
      await sidebar.waitFor(() => [...document.querySelectorAll('main article')].some((a) => a.textContent.includes('Wrote:')), undefined, { timeout: 60_000 });
      await waitForIdle(sidebar);
      assert.match(contentText(model.requests[1].last), /"size":/, 'the file was written');
      // A provider profile whose name and model are payloads, saved as the options page saves one.
      const saved = await sidebar.evaluate(async ({ name, modelName, baseUrl }) => {
        const api = globalThis.browser ?? globalThis.chrome;
        const reply = await api.runtime.sendMessage({ id: 7, type: 'saveProvider', data: { id: 'new', name, type: 'openai-compatible', baseUrl, model: modelName }, timestamp: Date.now() });
        return reply?.err?.message ?? 'saved';
      }, { name: xss[0], modelName: xss[8], baseUrl: model.url });
      assert.equal(saved, 'saved');

      /** What is live on a page: a payload's flag, handlers, loading elements, javascript: links. */
      const inertState = (page) =>
        page.evaluate(() => ({
          pwned: window.__pwned ?? null,
          handlers: [...document.querySelectorAll('*')].filter((el) => el.getAttributeNames().some((a) => a.startsWith('on'))).map((el) => el.outerHTML.slice(0, 120)),
          live: [...document.querySelectorAll('iframe, object, embed, script:not([src]), img, details[open] details, math, style:not([data-vite-dev-id])')]
            .filter((el) => !(el.tagName === 'IMG' && el.src.startsWith(location.origin)) && !(el.tagName === 'STYLE' && !/beacon|@import/.test(el.textContent)))
            .map((el) => el.outerHTML.slice(0, 120)),
          jsLinks: [...document.querySelectorAll('a[href]')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href'))).length,
          text: document.body.textContent + [...document.querySelectorAll('input, textarea, select')].map((el) => el.value).join(' '),
        }));
      const check = async (page, where, shown) => {
        await new Promise((resolve) => setTimeout(resolve, 500)); // Time for anything that would load or run.
        const state = await inertState(page);
        assert.equal(state.pwned, null, `${where}: no payload ran`);
        assert.deepEqual(state.handlers, [], `${where}: no event handler attribute`);
        assert.deepEqual(state.live, [], `${where}: no payload became an element`);
        assert.equal(state.jsLinks, 0, `${where}: no javascript: link`);
        for (const text of shown) assert.ok(state.text.includes(text), `${where} shows ${JSON.stringify(text.slice(0, 40))} as text`);
      };

      const sections = [
        ['provider', 'Model provider', [xss[8]]],
        ['plugins', 'Plugins', []],
        ['search', 'Search engines', []],
        ['permissions', 'Permissions', []],
        ['sites', 'Sites & tools', []],
        ['workspace', 'Workspace files', [fileName]],
      ];
      const options = await h.openExtensionPage('options.html#provider', { width: 1000, height: 900 });
      for (const [id, title, shown] of sections) {
        await options.evaluate((hash) => (location.hash = hash), id);
        await options.waitForText(title, { within: 'main' });
        await check(options, `Settings › ${title}`, shown);
        if (id === 'provider') {
          // The profile's name is shown as text (in the profile list).
          assert.ok(await options.evaluate((name) => document.querySelector('main').textContent.includes(name) || [...document.querySelectorAll('option')].some((o) => o.textContent.includes(name)), xss[0]), 'the profile list shows the name as text');
        }
        t.diagnostic(`Settings › ${title}: inert`);
      }
      await options.evaluate((hash) => (location.hash = hash), 'workspace');
      await options.screenshot(screenshotPath(browserName, 'security-xss-settings'));
      await options.close();

      const popup = await h.openExtensionPage('popup.html', { width: 360, height: 600 });
      // textContent: the popup's headings are upper case on screen.
      await popup.waitFor(() => [...document.querySelectorAll('.conv')].length > 0);
      // The current tab's page tools (the hostile page's, named with payloads) and the titles.
      await check(popup, 'the popup', [xss[0].slice(0, 24), '<svg onload=']);
      await popup.close();

      await check(sidebar, 'the sidebar\'s conversation list', []);
      assert.deepEqual(site.hits, [], 'nothing was loaded from the beacon');
    });
  });
}

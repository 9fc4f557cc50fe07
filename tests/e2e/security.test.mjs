// Security suite, in both browsers:
// - XSS: a page tool whose group name, description, name and result carry payloads, and an answer
//   that quotes them, render inert in the sidebar: nothing runs, nothing loads (a beacon counts hits).
// - Flood: a page forges the relay's events (CustomEvents with JSON strings) and pushes 20 000
//   tools and 5 MB descriptions for seconds; a list_tabs call made meanwhile answers within 1 s.

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, lastAnswer, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';

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
      assert.ok(ms < 1000, `list_tabs answered in ${ms.toFixed(0)} ms during the flood`);
      // The background kept at most its limit of the page's tools, and the site is still not allowed.
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.waitForText('256 page tools', { within: '.page-tools' });
      await sidebar.screenshot(screenshotPath(browserName, 'security-flood'));
    });
  });
}

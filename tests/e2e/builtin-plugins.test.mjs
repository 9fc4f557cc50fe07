// The built-in plugins of issue 5, end to end in Chromium and Firefox with the scripted model:
// workspace files (write, list, paged read, blob URL, delete, the settings browser), ask_user
// answered in the sidebar, a live task list, execute_script in a page and in the sandbox, and
// sub-agents whose steps show nested in the sidebar. Everything goes through the built extension
// and its UI, as a person would use it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { allowLocalOrigins, configureProvider, lastAnswer, openSidebar, sendMessage, untrustedJson, unwrapUntrusted, waitForIdle } from './helpers.mjs';

const APP_PAGE = `<!doctype html><html><head><title>Sidequest test app</title></head><body>
<h1>Test app</h1><p id="status">ready</p>
<script>
  window.appState = { user: 'ada', cart: { items: [{ sku: 'A1', qty: 2 }, { sku: 'B7', qty: 1 }] } };
  function greet(name) { return 'Hello, ' + name + '!'; }
</script></body></html>`;

const CSP_PAGE = `<!doctype html><html><head><title>Strict CSP page</title></head><body><p>No eval here.</p>
<script>window.secret = 42;</script></body></html>`;

const ARTICLE_PAGE = `<!doctype html><html><head><title>Quokka facts</title></head><body>
<nav>Home · About</nav><main><article><h1>Quokka facts</h1>
<p>The quokka lives on Rottnest Island and weighs about 3 kilograms.</p></article></main></body></html>`;

/** A tiny real PNG (1×1, red), as a data: URL. */
const PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

const LONG_TEXT = Array.from({ length: 250 }, (_, i) => `line ${i + 1}`).join('\n');

/** The tool results the model was sent in a request, parsed where they are JSON. */
function toolResults(req) {
  return req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));
}

const isSubAgent = (req) => contentText(req.messages.find((m) => m.role === 'system')).includes('sub-agent of Sidequest');

/** A promise the test resolves to let a scripted model reply go. */
function gate() {
  let open;
  const promise = new Promise((resolve) => (open = resolve));
  return { promise, open };
}


/** What find_tools's description says waits in the catalogue ("In the catalogue: Workspace (4), …"). */
const catalogueNote = (req) => req.tools.find((t) => t.function?.name === 'find_tools')?.function.description ?? '';

for (const browserName of selectedBrowsers()) {
  describe(`built-in plugins in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({
        pages: {
          '/app.html': { type: 'text/html; charset=utf-8', body: APP_PAGE },
          '/csp.html': {
            type: 'text/html; charset=utf-8',
            body: CSP_PAGE,
            headers: { 'content-security-policy': "script-src 'self' 'unsafe-inline'" },
          },
          '/quokka.html': { type: 'text/html; charset=utf-8', body: ARTICLE_PAGE },
        },
      });
      h = await launch(browserName);
      await h.newPage(site.url('/alpha.html'));
      const options = await configureProvider(h, { baseUrl: model.url });
      await allowLocalOrigins(options, [site.origin]);
      await options.close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('each plugin can be switched off, and its tools vanish for the model', async () => {
      const plugins = {
        'Workspace plugin': ['opfs_write', 'opfs_read', 'opfs_list', 'opfs_delete'],
        'Ask the user plugin': ['ask_user'],
        'Tasks plugin': ['create_task', 'update_task', 'list_tasks'],
        'Scripts plugin': ['execute_script'],
        'Sub-agents plugin': ['agent'],
      };
      const options = await h.openExtensionPage('options.html#plugins', { width: 1000, height: 800 });
      await options.waitForText('Sub-agents');
      await options.screenshot(screenshotPath(browserName, 'plugins-all'));
      // The sidebar stays closed while switches are toggled: with it open, each toggle takes twice
      // as long as the one before (a problem of the skeleton's pages, measured on main too,
      // reported separately).
      for (const label of Object.keys(plugins)) {
        await options.click('switch', label);
        await options.waitFor((name) => document.querySelector(`[aria-label="${name}"]`)?.checked === false, label);
      }
      model.reset();
      let sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'With my plugins off');
      await sidebar.waitForText('You said: With my plugins off');
      await waitForIdle(sidebar);
      await sidebar.close();
      // Neither offered nor waiting in the catalogue (find_tools's note names what waits there).
      for (const tool of Object.values(plugins).flat()) assert.ok(!model.requests[0].toolNames.includes(tool), `${tool} is not offered`);
      for (const label of Object.keys(plugins)) assert.doesNotMatch(catalogueNote(model.requests[0]), new RegExp(`${label.replace(/ plugin$/, '')} \\(`), `${label}: nothing in the catalogue`);
      assert.ok(model.requests[0].toolNames.includes('list_tabs'), 'the other plugins stay');
      for (const label of Object.keys(plugins)) {
        await options.click('switch', label);
        await options.waitFor((name) => document.querySelector(`[aria-label="${name}"]`)?.checked === true, label);
      }
      model.reset();
      sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'All back');
      await sidebar.waitForText('You said: All back');
      // Back in the catalogue, each tool found when needed (issue 40: not every tool in every request).
      for (const [label, tools] of Object.entries(plugins)) assert.match(catalogueNote(model.requests[0]), new RegExp(`${label.replace(/ plugin$/, '')} \\(${tools.length}\\)`), `${label} is back`);
      await options.close();
      await sidebar.close();
    });

    test('workspace: write, list, read in pages, a blob URL for binary, delete — and the settings browser', async () => {
      model.reset();
      model.queue([
        {
          text: 'Saving your notes.',
          toolCalls: [
            { name: 'opfs_write', arguments: { path: 'notes/long.txt', content: LONG_TEXT } },
            { name: 'opfs_write', arguments: { path: '/images/dot.png', content: PNG_DATA_URL } },
          ],
        },
        { toolCalls: [{ name: 'opfs_list', arguments: {} }] },
        { toolCalls: [{ name: 'opfs_read', arguments: { path: 'notes/long.txt' } }] },
        { toolCalls: [{ name: 'opfs_read', arguments: { path: 'notes/long.txt', offset: 201, limit: 100 } }] },
        { toolCalls: [{ name: 'opfs_read', arguments: { path: 'images/dot.png' } }] },
        { toolCalls: [{ name: 'opfs_write', arguments: { path: '../escape.txt', content: 'x' } }] },
      ]);
      const sidebar = await openSidebar(h);
      await sendMessage(sidebar, 'Keep my notes in the workspace');
      await sidebar.waitForText('The tool answered:', { timeout: 30_000 });
      await waitForIdle(sidebar);

      const results = model.requests.map((r) => toolResults(r).at(-1) ?? '');
      const written = JSON.parse(toolResults(model.requests[1])[0]);
      assert.equal(written.path, '/notes/long.txt');
      assert.equal(written.created, true);
      assert.equal(JSON.parse(toolResults(model.requests[1])[1]).type, 'binary');
      const listing = JSON.parse(results[2]);
      assert.deepEqual(listing.entries.map((e) => `${e.kind}:${e.path}`), ['directory:/images', 'directory:/notes']);
      assert.match(results[3], /has 250 lines/);
      assert.match(results[3], /"offset": 1, "limit": 200/);
      const page = JSON.parse(results[4]);
      assert.equal(page.total_lines, 250);
      assert.equal(page.offset, 201);
      assert.equal(page.limit, 50);
      assert.ok(page.content.startsWith('line 201\nline 202'));
      assert.ok(page.content.endsWith('line 250'));
      assert.equal(page.next_offset, undefined);
      const blob = JSON.parse(results[5]);
      assert.equal(blob.type, 'binary');
      assert.equal(blob.mime_type, 'image/png');
      assert.ok(blob.blob_url.startsWith(`blob:${h.origin}/`), blob.blob_url);
      // The blob URL is real: the extension's own page can load it.
      const fetched = await sidebar.evaluate(async (url) => {
        const response = await fetch(url);
        return { type: response.headers.get('content-type'), size: (await response.arrayBuffer()).byteLength };
      }, blob.blob_url);
      assert.deepEqual(fetched, { type: 'image/png', size: blob.size });
      assert.match(results[6], /contains "\.\."/);

      for (const name of ['opfs_write', 'opfs_list', 'opfs_read']) await sidebar.waitForText(name, { within: 'main' });
      await sidebar.screenshot(screenshotPath(browserName, 'workspace-chat'));

      // The user browses the same files in Settings, downloads one and deletes another.
      const options = await h.openExtensionPage('options.html#workspace', { width: 1000, height: 700 });
      await options.waitForText('Workspace files');
      await options.click('button', 'Open folder notes');
      await options.waitForText('long.txt');
      await options.waitForText('2.1 KB');
      await options.find('button', 'Download long.txt');
      await options.screenshot(screenshotPath(browserName, 'workspace-settings'));
      await options.click('button', 'Delete long.txt');
      await options.click('button', 'Delete');
      await options.waitForText('This folder is empty.');
      await options.click('button', 'Workspace');
      await options.waitForText('images/');

      // The agent deletes a folder; the settings page follows live. The sidebar comes to the
      // front first: its approval card arms only while it is on screen (Firefox throttles a tab
      // behind the settings page).
      await sidebar.raw.bringToFront();
      model.reset();
      model.queue([{ toolCalls: [{ name: 'opfs_delete', arguments: { path: 'images' } }] }, { toolCalls: [{ name: 'opfs_list', arguments: {} }] }]);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Clean up the images');
      await sidebar.waitForText('The tool answered:', { timeout: 30_000 });
      await waitForIdle(sidebar);
      assert.deepEqual(JSON.parse(toolResults(model.requests[1]).at(-1)), { path: '/images', deleted: 'directory' });
      assert.deepEqual(JSON.parse(toolResults(model.requests[2]).at(-1)).entries, [{ name: 'notes', path: '/notes', kind: 'directory' }]);
      await options.waitFor(() => !document.body.innerText.includes('images/'));
      await options.close();
      await sidebar.close();
    });

    test('ask_user: a choice answered by clicking in the sidebar reaches the model', async () => {
      model.reset();
      model.queue([
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which color should the button be?', options: ['Red', 'Green', 'Blue'] } }] },
      ]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Help me style the button');
      await sidebar.waitForText('Which color should the button be?');
      await sidebar.screenshot(screenshotPath(browserName, 'ask-user-choice'));
      await sidebar.click('button', 'Green');
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      assert.deepEqual(JSON.parse(toolResults(model.requests[1]).at(-1)), { answer: 'Green' });
      assert.ok(!(await sidebar.text('footer')).includes('Which color'), 'the question is gone once answered');
      await sidebar.close();
    });

    test('ask_user: asked while the sidebar is closed, it waits (badge) and is answered when it opens', async () => {
      model.reset();
      const asked = gate();
      model.setScript((req) => {
        if (req.last?.role === 'tool') return { text: `The user said: ${contentText(req.last)}` };
        if (/free text/.test(contentText(req.lastUser))) {
          return asked.promise.then(() => ({ toolCalls: [{ name: 'ask_user', arguments: { question: 'What is your project called?' } }] }));
        }
        return { text: 'ok' };
      });
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Ask me in free text');
      await sidebar.waitForText('Ask me in free text');
      await sidebar.close();
      // The question comes while no sidebar is open.
      asked.open();
      const popup = await h.openExtensionPage('popup.html', { width: 340, height: 420 });
      await popup.waitFor(async () => {
        const api = globalThis.chrome?.action ?? globalThis.browser?.browserAction;
        return (await api.getBadgeText({})) === '1';
      });
      await popup.close();

      const again = await openSidebar(h);
      await again.waitForText('What is your project called?');
      await again.fill('Your answer', 'Sidequest');
      await again.click('button', 'Send answer');
      await again.waitForText('The user said:');
      await waitForIdle(again);
      assert.deepEqual(JSON.parse(toolResults(model.requests.at(-1)).at(-1)), { answer: 'Sidequest' });
      const badge = await again.evaluate(async () => (globalThis.chrome?.action ?? globalThis.browser.browserAction).getBadgeText({}));
      assert.equal(badge, '');
      await again.close();
    });

    test('ask_user: Stop withdraws the question', async () => {
      model.reset();
      model.queue([{ toolCalls: [{ name: 'ask_user', arguments: { question: 'Pick toppings', options: ['Cheese', 'Olives'], multiple: true } }] }]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Order a pizza');
      await sidebar.waitForText('Pick toppings');
      await sidebar.find('checkbox', 'Olives');
      await sidebar.click('button', 'Stop');
      await sidebar.waitForText('You stopped the run.');
      await sidebar.waitFor(() => !document.querySelector('footer')?.innerText.includes('Pick toppings'));
      await sidebar.close();
    });

    test('tasks: the list in the sidebar follows the agent live', async () => {
      model.reset();
      const steps = [gate(), gate(), gate()];
      let step = 0;
      const replies = [
        {
          text: 'Planning.',
          toolCalls: [
            { name: 'create_task', arguments: { subject: 'Find flights' } },
            { name: 'create_task', arguments: { subject: 'Book hotel', description: 'Near the station' } },
            { name: 'create_task', arguments: { subject: 'Rent a car' } },
          ],
        },
        { toolCalls: [{ name: 'update_task', arguments: { task_id: '1', status: 'in_progress' } }] },
        {
          toolCalls: [
            { name: 'update_task', arguments: { task_id: '1', status: 'completed' } },
            { name: 'update_task', arguments: { task_id: '2', status: 'in_progress' } },
          ],
        },
        { toolCalls: [{ name: 'list_tasks', arguments: {} }] },
      ];
      model.setScript(async (req) => {
        if (step >= replies.length) return { text: `Done: ${contentText(req.last)}` };
        const current = step++;
        if (current > 0) await steps[current - 1].promise;
        return replies[current];
      });
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Plan my trip');
      await sidebar.waitForText('Tasks', { within: 'footer' });
      await sidebar.waitForText('0/3 done', { within: 'footer' });
      await sidebar.waitForText('Rent a car', { within: 'footer' });
      steps[0].open();
      await sidebar.waitForText('In progress', { within: 'footer' });
      await sidebar.screenshot(screenshotPath(browserName, 'tasks-in-progress'));
      steps[1].open();
      await sidebar.waitForText('1/3 done', { within: 'footer' });
      steps[2].open();
      await sidebar.waitForText('Done: ', { within: 'main' });
      await waitForIdle(sidebar);
      const list = JSON.parse(toolResults(model.requests.at(-1)).at(-1));
      assert.deepEqual(list, [
        { task_id: '1', subject: 'Find flights', status: 'completed' },
        { task_id: '2', subject: 'Book hotel', status: 'in_progress' },
        { task_id: '3', subject: 'Rent a car', status: 'pending' },
      ]);
      // The list belongs to its conversation: a new one has none; a reload brings it back.
      await sidebar.reload();
      await sidebar.waitForText('1/3 done', { within: 'footer' });
      await sidebar.click('button', 'New conversation');
      await sidebar.waitFor(() => !document.querySelector('footer')?.innerText.includes('Tasks'));
      await sidebar.close();
    });

    test('execute_script: reads a page variable, calls a page function, computes in the sandbox', async () => {
      const app = await h.newPage(site.url('/app.html'));
      const strict = await h.newPage(site.url('/csp.html'));
      model.reset();
      let tabs;
      model.setScript((req) => {
        const n = req.messages.filter((m) => m.role === 'tool').length;
        if (n === 0) return { toolCalls: [{ name: 'list_tabs', arguments: { url_pattern: '(app|csp)\\.html' } }] };
        if (n === 1) {
          tabs = untrustedJson(contentText(req.last));
          const appTab = tabs.find((t) => t.url.endsWith('/app.html'));
          return {
            toolCalls: [
              { name: 'execute_script', arguments: { target: 'page', tab_id: appTab.tab_id, code: 'window.appState.user + " has " + appState.cart.items.length + " items; " + greet("agent")' } },
              { name: 'execute_script', arguments: { target: 'page', tab_id: appTab.tab_id, code: 'const el = document.querySelector("#status"); el.textContent = "changed by agent"; return { el, title: document.title, fn: greet };' } },
              { name: 'execute_script', arguments: { target: 'sandbox', code: 'let s = 0;\nfor (let i = 1; i <= 100; i++) s += i * i;\nreturn s;' } },
              { name: 'execute_script', arguments: { target: 'page', tab_id: tabs.find((t) => t.url.endsWith('/csp.html')).tab_id, code: 'window.secret' } },
              { name: 'execute_script', arguments: { target: 'page', tab_id: appTab.tab_id, code: 'throw new RangeError("out of range")' } },
              { name: 'execute_script', arguments: { target: 'sandbox', code: 'while (true) {}' } },
              { name: 'execute_script', arguments: { target: 'sandbox', code: 'typeof document + "/" + typeof fetch + "/" + [3, 1, 2].sort().join("")' } },
            ],
          };
        }
        return { text: `Results: ${toolResults(req).slice(1).join(' | ')}` };
      });
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Inspect the app page');
      await sidebar.waitForText('Results:', { timeout: 40_000 });
      await waitForIdle(sidebar);
      const results = toolResults(model.requests.at(-1)).slice(1);
      // In a page, the value is the page's data: inside the envelope.
      const pageValue = (text) => JSON.parse(unwrapUntrusted(JSON.parse(text).result).content);
      assert.deepEqual(pageValue(results[0]), 'ada has 2 items; Hello, agent!');
      assert.deepEqual(pageValue(results[1]), { el: '<p#status> element', title: 'Sidequest test app', fn: '<Function object>' });
      assert.equal(JSON.parse(results[2]).result, 338350);
      assert.match(results[3], /Content Security Policy forbids evaluating code/);
      assert.match(results[4], /threw an error in the page\. What the page reported: <<<UNTRUSTED BEGIN [0-9a-f]{16} [^\n]*>>>\nRangeError: out of range\n<<<UNTRUSTED END [0-9a-f]{16}>>>/);
      assert.match(results[5], /ran longer than 5 s and was stopped/);
      assert.equal(JSON.parse(results[6]).result, 'undefined/undefined/123');
      // The page really changed.
      assert.equal(await app.evaluate(() => document.querySelector('#status').textContent), 'changed by agent');
      await sidebar.waitForText('execute_script', { within: 'main' });
      await sidebar.screenshot(screenshotPath(browserName, 'execute-script'));
      await app.close();
      await strict.close();
      await sidebar.close();
    });

    test('a sandbox script busy for its full 5 s does not hold up the background: a message meanwhile answers at once', async (t) => {
      model.reset();
      model.setScript((req) =>
        req.last?.role === 'tool'
          ? { text: `Spun: ${contentText(req.last).slice(0, 120)}` }
          : { toolCalls: [{ name: 'execute_script', arguments: { target: 'sandbox', code: 'while (true) {}' } }] },
      );
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Spin for a while');
      // The background is asked again and again (from the sidebar, timed from here: in Firefox the
      // extension's pages share the background's thread, so a page's own clock would not start
      // until a frozen background let go) until the call's result reaches the model.
      const probes = [];
      for (const until = Date.now() + 30_000; model.requests.length < 2 && Date.now() < until; ) {
        const sent = performance.now();
        const listed = await sidebar.evaluate(async () => {
          const api = globalThis.browser ?? globalThis.chrome;
          const reply = await api.runtime.sendMessage({ id: 1, type: 'listConversations', data: undefined, timestamp: Date.now() });
          return Array.isArray(reply?.res);
        });
        probes.push({ sent, received: performance.now(), listed });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(model.requests.length, 2, 'the looping script was stopped and its result reached the model');
      // The sandbox stops the code 5 s after the code starts (its deadline is set as it starts), and
      // the result reaches the model after that: the code was surely looping from `end - 5 s` (with
      // 300 ms to spare) until at least its result left, so the probes sent from then until 1.5 s
      // before the end asked while it looped. A background held up by the script would answer each
      // of them only once the loop ended, i.e. after at least the time the loop still had to run.
      const end = model.requests[1].receivedAt;
      const during = probes.filter((p) => p.sent >= end - 5000 + 300 && p.sent <= end - 1500);
      const slowest = Math.max(...during.map((p) => p.received - p.sent));
      const line = `${browserName}: ${during.length} messages to the background while the sandbox looped, answered in at most ${slowest.toFixed(0)} ms`;
      t.diagnostic(line);
      console.log(`[sandbox] ${line}`);
      assert.ok(during.length >= 3, `the background was asked while the script looped: ${JSON.stringify(probes.map((p) => [Math.round(p.sent - end), Math.round(p.received - end)]))} (ms from its result)`);
      for (const p of during) {
        assert.equal(p.listed, true);
        // Scaled to what the loop had left when it was asked: at most half of that.
        assert.ok(p.received - p.sent < (end - p.sent) / 2, `asked ${(end - p.sent).toFixed(0)} ms before the script's result, the background answered after ${(p.received - p.sent).toFixed(0)} ms: it was held up by the script`);
      }
      await sidebar.waitForText('Spun:', { timeout: 30_000 });
      await waitForIdle(sidebar);
      assert.match(contentText(model.requests[1].last), /ran longer than 5 s and was stopped/);
      await sidebar.close();
    });

    test('sub-agent: a researcher reads a served page, its steps show nested, its answer reaches the parent', async (t) => {
      const tab = await h.newPage(site.url('/quokka.html'));
      model.reset();
      let subTools;
      model.setScript((req) => {
        if (isSubAgent(req)) {
          subTools = req.toolNames;
          const n = req.messages.filter((m) => m.role === 'tool').length;
          // web_fetch arrives with the web plugin; until then the researcher reads the open tabs.
          const read = req.toolNames.includes('web_fetch')
            ? { name: 'web_fetch', arguments: { url: site.url('/quokka.html') } }
            : { name: 'list_tabs', arguments: { url_pattern: 'quokka' } };
          if (n === 0) return { text: 'Reading the page.', toolCalls: [read] };
          if (n === 1) return { toolCalls: [{ name: 'opfs_write', arguments: { path: 'x.txt', content: 'not allowed' } }] };
          return { text: `Found: ${toolResults(req).join(" ; ")}` };
        }
        if (req.last?.role === 'tool') return { text: `The researcher reported: ${contentText(req.last)}` };
        return {
          toolCalls: [{ name: 'agent', arguments: { type: 'researcher', description: 'Read the quokka page', prompt: `Find out what ${site.url('/quokka.html')} says about quokkas.` } }],
        };
      });
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Research quokkas for me');
      await sidebar.waitForText('The researcher reported:', { timeout: 30_000 });
      await waitForIdle(sidebar);
      t.diagnostic(`researcher read the page with ${subTools.includes('web_fetch') ? 'web_fetch' : 'list_tabs'}`);

      // Its tool set was the researcher's, and a tool outside it was refused when called.
      assert.ok(!subTools.includes('ask_user') && !subTools.includes('agent') && !subTools.includes('opfs_write'), subTools.join());
      assert.ok(subTools.includes('list_tabs'));
      const parent = model.requests.at(-1);
      const answer = JSON.parse(contentText(parent.last));
      assert.equal(answer.type, 'researcher');
      assert.match(answer.answer, /Quokka facts/);
      assert.match(answer.answer, /not available to this agent/);
      assert.match(await lastAnswer(sidebar), /Quokka facts/);

      // In the sidebar: the sub-agent card, its steps nested and collapsible.
      await sidebar.waitForText('researcher', { within: 'main' });
      await sidebar.waitForText('Read the quokka page', { within: 'main' });
      await sidebar.click('button', 'Show steps', { exact: false });
      await sidebar.waitForText('Reading the page.', { within: 'section.sub' });
      await sidebar.waitForText('opfs_write', { within: 'section.sub' });
      await sidebar.waitForText(subTools.includes('web_fetch') ? 'web_fetch' : 'list_tabs', { within: 'section.sub' });
      await sidebar.screenshot(screenshotPath(browserName, 'sub-agent'));
      // After a reload the nested steps are still there (kept on the parent's tool message).
      await sidebar.reload();
      await sidebar.waitForText('Read the quokka page', { within: 'main' });
      await sidebar.click('button', 'Show steps', { exact: false });
      await sidebar.waitForText('Reading the page.', { within: 'section.sub' });
      await sidebar.click('button', 'Hide steps', { exact: false });
      await sidebar.waitFor(() => !document.querySelector('section.sub')?.innerText.includes('Reading the page.'));
      await tab.close();
      await sidebar.close();
    });

    test('sub-agents: two run at once; Stop stops them', async () => {
      model.reset();
      // Each sub-agent's first request waits until both have arrived: sequential runs would never get there.
      const arrived = [];
      let release;
      const both = new Promise((resolve) => (release = resolve));
      let hang = false;
      model.setScript(async (req) => {
        if (isSubAgent(req)) {
          if (hang) return { text: 'Working on it', chunkSize: 4, hang: true };
          if (req.messages.filter((m) => m.role === 'tool').length === 0 && req.messages.filter((m) => m.role === 'assistant').length === 0) {
            arrived.push(contentText(req.lastUser));
            if (arrived.length === 2) release();
            await both;
          }
          return { text: `Answer to: ${contentText(req.lastUser)}` };
        }
        if (req.last?.role === 'tool') return { text: `Both answered: ${toolResults(req).join(' + ')}` };
        if (/slow/.test(contentText(req.lastUser))) {
          hang = true;
          return { toolCalls: [{ name: 'agent', arguments: { prompt: 'A slow task', description: 'Slow helper' } }] };
        }
        return {
          toolCalls: [
            { name: 'agent', arguments: { prompt: 'Task one', description: 'First helper', type: 'general' } },
            { name: 'agent', arguments: { prompt: 'Task two', description: 'Second helper', type: 'page_operator' } },
          ],
        };
      });
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Do two things at once');
      await sidebar.waitForText('Both answered:', { timeout: 30_000 });
      await waitForIdle(sidebar);
      assert.deepEqual(arrived.sort(), ['Task one', 'Task two']);
      assert.match(await lastAnswer(sidebar), /Answer to: Task one.*Answer to: Task two/s);

      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Start something slow');
      await sidebar.waitForText('Slow helper', { within: 'main' });
      await sidebar.waitForText('Working on it', { within: 'section.sub' });
      await sidebar.click('button', 'Stop');
      await sidebar.waitForText('You stopped the run.');
      await sidebar.waitForText('was stopped', { within: 'section.sub' });
      await sidebar.close();
    });

  });
}

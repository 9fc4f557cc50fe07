// The user's data, end to end in Chromium and Firefox, driven through the UI: a token budget stops
// a scripted run and Continue goes on after it is raised; each answer's usage and trace (keys
// redacted) show on demand, the row of buttons once per run (a step's on hover or focus); chat with a tool call → Export all → Delete all data → Import the
// exported file → the conversations are back exactly; broken, truncated, huge and hostile files
// are refused with clear errors, nothing half-imported, nothing executed.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, lastAnswer, nextApproval, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';

const KEY = 'sk-test-data-9f8e7d';
const IMPORT_INPUT = 'input[type="file"][aria-label="Import conversations file"]';

for (const browserName of selectedBrowsers()) {
  describe(`the user's data in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;
    let dir;

    before(async () => {
      model = await startModelServer({ apiKey: KEY });
      site = await startFixtureServer();
      dir = await mkdtemp(path.join(os.tmpdir(), 'sidequest-data-'));
      h = await launch(browserName);
      await h.newPage(site.url('/alpha.html'));
      (await configureProvider(h, { baseUrl: model.url, apiKey: KEY })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** Opens Settings → Data → Your data. */
    async function dataPage() {
      const options = await h.openExtensionPage('options.html#data', { width: 1000, height: 900 });
      await options.find('button', 'Export all');
      return options;
    }

    /** Export all from the settings page: the downloaded file, parsed. */
    async function exportAll(options) {
      const file = await h.download(options, () => options.click('button', 'Export all'));
      // Firefox numbers a repeated name: `…(2).json`.
      assert.match(file.name, /^sidequest-conversations-\d{4}-\d{2}-\d{2}(\(\d+\))?\.json$/);
      await options.waitForText('Exported');
      return JSON.parse(file.text);
    }

    /** Picks a file for Import and waits for the page to say how it went. */
    async function importFile(options, name, content) {
      const file = path.join(dir, name);
      await writeFile(file, content);
      const done = await lastDone(options);
      await options.setInputFile(IMPORT_INPUT, file);
      await options.waitFor((n) => Number(document.querySelector('section [data-done]')?.dataset.done ?? 0) > n, done, { timeout: 20_000 });
      return options.text('section [data-done]');
    }

    /** How many actions the data page has finished (its status line's `data-done`). */
    function lastDone(options) {
      return options.evaluate(() => Number(document.querySelector('section [data-done]')?.dataset.done ?? 0));
    }

    test('a token budget stops a run with its own status; Continue after raising it finishes; usage and trace show on demand', async () => {
      const options = await h.openExtensionPage('options.html#limits', { width: 1000, height: 800 });
      await options.fill('Token budget per run', '20');
      await options.click('button', 'Save limits');
      await options.waitForText('Saved.');
      await options.screenshot(screenshotPath(browserName, 'options-limits'));

      // Each scripted answer costs 10 + 5 tokens: the second one reaches the budget of 20.
      model.reset();
      const call = { toolCalls: [{ name: 'list_tabs', arguments: {} }] };
      model.queue([call, call, call, { text: 'All three looks are done.' }]);
      const sidebar = await openSidebar(h);
      await sendMessage(sidebar, 'Look at my tabs three times');
      await sidebar.waitForText('Budget reached');
      await sidebar.waitForText('It used 30 tokens of 20');
      assert.equal(model.requests.length, 2, 'the run stopped before its third request');
      await sidebar.screenshot(screenshotPath(browserName, 'data-budget'));

      await options.fill('Token budget per run', '1000');
      await options.click('button', 'Save limits');
      await options.waitForText('Saved.');
      await sidebar.click('button', 'Continue');
      await sidebar.waitForText('All three looks are done.');
      await waitForIdle(sidebar);
      assert.equal(model.requests.length, 4);

      // The run's four steps show one Usage · Trace row, under its final answer; the row of any
      // other step takes no room and shows while the pointer is on the step or the focus in it.
      const rows = () =>
        sidebar.evaluate(() =>
          [...document.querySelectorAll('article.assistant')].map((article) => {
            const row = article.querySelector('.details');
            return { shown: getComputedStyle(row).opacity === '1', room: row.getBoundingClientRect().height > 0 };
          }),
        );
      const hidden = { shown: false, room: false };
      assert.deepEqual(await rows(), [hidden, hidden, hidden, { shown: true, room: true }]);
      await sidebar.screenshot(screenshotPath(browserName, 'data-run-one-row'));
      await sidebar.evaluate(() => document.querySelectorAll('article.assistant')[1].setAttribute('data-e2e-step', ''));
      await sidebar.raw.hover('[data-e2e-step] details.tool summary');
      await sidebar.waitFor(() => getComputedStyle(document.querySelector('[data-e2e-step] .details')).opacity === '1');
      await sidebar.screenshot(screenshotPath(browserName, 'data-run-step-hover'));
      await sidebar.raw.hover('textarea');
      await sidebar.waitFor(() => getComputedStyle(document.querySelector('[data-e2e-step] .details')).opacity === '0');
      // By keyboard: Tab from the first step's tool card reaches its Usage button, shown.
      await sidebar.evaluate(() => document.querySelector('article.assistant details.tool summary').focus());
      await sidebar.press('Tab');
      assert.deepEqual(
        await sidebar.evaluate(() => {
          const focused = document.activeElement;
          return { name: focused?.textContent, first: focused?.closest('article') === document.querySelector('article.assistant') };
        }),
        { name: 'Usage', first: true },
      );
      assert.deepEqual((await rows())[0], { shown: true, room: false });
      await sidebar.evaluate(() => document.activeElement.blur());

      // Usage of the last answer and of its run (all four answers since the user's message).
      await sidebar.evaluate(() => [...document.querySelectorAll('article.assistant .details .link')].filter((b) => b.textContent === 'Usage').at(-1).click());
      await sidebar.waitForText('10 tokens in · 5 out');
      await sidebar.waitForText('4 answers · 40 tokens in · 20 out');
      // The trace: the request as sent (key redacted), the response as received.
      await sidebar.evaluate(() => [...document.querySelectorAll('article.assistant .details .link')].filter((b) => b.textContent === 'Trace').at(-1).click());
      await sidebar.waitForText('POST http://127.0.0.1');
      await sidebar.waitForText('authorization: [redacted]');
      await sidebar.waitForText('All three looks');
      const trace = await sidebar.text('.trace');
      assert.ok(!trace.includes(KEY), 'the key never shows in the trace');
      assert.match(trace, /HTTP 200/);
      assert.match(trace, /"messages"/);
      await sidebar.screenshot(screenshotPath(browserName, 'data-trace'));
      await sidebar.evaluate(() => [...document.querySelectorAll('article.assistant .details .link')].filter((b) => b.textContent === 'Usage').at(-1).click());
      await sidebar.waitForText('This run');
      await sidebar.screenshot(screenshotPath(browserName, 'data-usage'));

      await options.fill('Token budget per run', '');
      await options.click('button', 'Save limits');
      await options.close();
      await sidebar.close();
    });

    test('chat with a tool call → Export all → Delete all data → Import → the conversations are back exactly', async () => {
      model.reset();
      model.queue([{ text: 'Let me look at your tabs.', toolCalls: [{ name: 'list_tabs', arguments: {} }] }]);
      let sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Which tabs do I have open?');
      await sidebar.waitForText('Sidequest test page — Alpha', { within: 'article.assistant:last-of-type .markdown' });
      await waitForIdle(sidebar);
      const answer = await lastAnswer(sidebar);

      // The sidebar's own export of this conversation, as Markdown.
      await sidebar.click('button', 'Conversation menu');
      const md = await h.download(sidebar, () => sidebar.click('menuitem', 'Export as Markdown'));
      assert.match(md.name, /^sidequest-which-tabs-do-i-have-open-.*\.md$/);
      assert.match(md.text, /^# Which tabs do I have open\?/);
      assert.match(md.text, /### Tool `list_tabs` — done/);
      await sidebar.close();

      const options = await dataPage();
      const exported = await exportAll(options);
      assert.equal(exported.format, 'sidequest-conversations');
      assert.equal(exported.version, 1);
      assert.equal(exported.conversations.length, 2);
      const chat = exported.conversations.find((c) => c.conversation.title === 'Which tabs do I have open?');
      assert.ok(chat, 'the chat is in the export');
      const tool = chat.messages.find((m) => m.role === 'tool');
      assert.equal(tool.toolName, 'list_tabs');
      assert.equal(tool.status, 'done');
      assert.match(JSON.stringify(tool.result), /Sidequest test page — Alpha/);
      assert.ok(chat.messages.some((m) => m.role === 'assistant' && m.toolCalls.length === 1 && m.usage?.inputTokens === 10));
      await options.screenshot(screenshotPath(browserName, 'options-data'));

      // The settings file: without the key unless asked for, then with it.
      const plainSettings = await h.download(options, () => options.click('button', 'Export settings'));
      assert.match(plainSettings.name, /^sidequest-settings-.*\.json$/);
      assert.ok(!plainSettings.text.includes(KEY), 'no key in a settings file unless asked');
      assert.equal(JSON.parse(plainSettings.text).provider.profiles[0].baseUrl, model.url);
      await options.click('checkbox', 'Include API keys (keep that file private)');
      const keyedSettings = await h.download(options, () => options.click('button', 'Export settings'));
      assert.ok(keyedSettings.text.includes(KEY), 'the key is in the file when asked for');

      await options.click('button', 'Delete all data');
      await options.screenshot(screenshotPath(browserName, 'options-data-confirm'));
      await options.click('button', 'Delete');
      await options.waitForText('Everything was deleted');
      // A fresh install: no conversations, the default provider (which does not answer here), no keys, no settings.
      sidebar = await openSidebar(h);
      await sidebar.waitForText('No model provider answers');
      await sidebar.click('button', 'Conversations');
      await sidebar.waitForText('No conversations yet.');
      const left = await options.evaluate(async () => {
        const db = await new Promise((resolve, reject) => {
          const request = indexedDB.open('sidequest');
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        const count = (name) => new Promise((resolve) => {
          const r = db.transaction(name).objectStore(name).count();
          r.onsuccess = () => resolve(r.result);
        });
        const counts = {};
        for (const name of db.objectStoreNames) counts[name] = await count(name);
        db.close();
        return { counts, local: Object.keys(await globalThis.browser.storage.local.get(null)) };
      });
      assert.deepEqual(Object.values(left.counts).filter((n) => n > 0), [], `every table is empty: ${JSON.stringify(left.counts)}`);
      assert.deepEqual(left.local, []);
      const none = await exportAll(options);
      assert.equal(none.conversations.length, 0);

      const said = await importFile(options, 'export.json', JSON.stringify(exported));
      assert.match(said, /Imported 2 conversations from export\.json\./);
      const again = await exportAll(options);
      assert.deepEqual(again.conversations, exported.conversations, 'the re-export equals the export');
      // A second import adds nothing.
      assert.match(await importFile(options, 'export.json', JSON.stringify(exported)), /Imported 0 conversations from export\.json; 2 already here/);

      // In the sidebar: found by the text of its answer, with its tool card and its answer.
      await sidebar.waitForText('Which tabs do I have open?');
      await sidebar.fill('Search conversations', 'look at your tabs');
      await sidebar.waitFor(() => document.querySelectorAll('nav[aria-label="Conversations"] li').length === 1);
      await sidebar.screenshot(screenshotPath(browserName, 'data-search'));
      await sidebar.click('button', 'Which tabs do I have open?', { exact: false });
      await sidebar.waitForText('Let me look at your tabs.');
      await sidebar.waitForText('list_tabs', { within: 'main' });
      assert.equal(await lastAnswer(sidebar), answer);

      // The settings file with its key brings the provider back: the imported conversation goes on.
      const settingsFile = path.join(dir, 'settings.json');
      await writeFile(settingsFile, keyedSettings.text);
      await options.setInputFile('input[type="file"][aria-label="Import settings file"]', settingsFile);
      // Shown first (tests/e2e/settings-import.test.mjs): the key in the file comes with the profile.
      await options.waitForText('Keys in the file', { within: '[data-import-preview]' });
      const done = await lastDone(options);
      await options.raw.click('[data-import-preview] button.btn-primary');
      await options.waitFor((n) => Number(document.querySelector('section [data-done]')?.dataset.done ?? 0) > n, done);
      assert.match(await options.text('section [data-done]'), /Imported from settings\.json: provider profiles, limits, \d+ plugin values, and 1 API key\./);
      model.reset();
      await sendMessage(sidebar, 'Still there?');
      await sidebar.waitForText('You said: Still there?');
      await sidebar.close();
      await options.close();
    });

    test('broken, truncated, huge and hostile files are refused clearly; nothing half-imported; nothing executed', async () => {
      const options = await dataPage();
      const before = (await exportAll(options)).conversations.length;
      const good = (id, title, text = 'hello') => ({
        conversation: { id, title, createdAt: 1, updatedAt: 2, status: 'idle' },
        messages: [{ id: `${id}-m1`, conversationId: id, seq: 0, createdAt: 1, role: 'user', text }],
      });
      const file = (conversations, extra = {}) => JSON.stringify({ format: 'sidequest-conversations', version: 1, exportedAt: 'now', conversations, ...extra });

      assert.match(await importFile(options, 'newer.json', file([good('v2', 'Newer')], { version: 2 })), /format version 2, made by a newer Sidequest/);
      const whole = file([good('t1', 'Truncated')]);
      assert.match(await importFile(options, 'cut.json', whole.slice(0, whole.length - 30)), /not valid JSON.*truncated/s);
      assert.match(await importFile(options, 'other.json', '{"hello": "world"}'), /not a Sidequest conversations export/);
      // The second conversation is broken: the first must not be imported either.
      const half = file([good('h1', 'First half'), { ...good('h2', 'Second half'), messages: [{ id: 'x', seq: 0, createdAt: 1, role: 'robot' }] }]);
      assert.match(await importFile(options, 'half.json', half), /conversations\[1\]\.messages\[0\]/);
      // 50 MB of text: refused before it is read.
      const huge = path.join(dir, 'huge.json');
      await writeFile(huge, 'x'.repeat(50 * 1024 * 1024));
      const done = await lastDone(options);
      await options.setInputFile(IMPORT_INPUT, huge);
      await options.waitFor((n) => Number(document.querySelector('section [data-done]')?.dataset.done ?? 0) > n, done, { timeout: 20_000 });
      await options.waitForText('huge.json is 50.0 MB; Sidequest imports files of at most 25 MB.');
      assert.equal((await exportAll(options)).conversations.length, before, 'nothing was imported');

      // Script in titles and text: imported as text, rendered inert.
      const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';
      const evil = good('evil', hostile, `**bold** ${hostile} [link](javascript:window.__pwned=1)`);
      // A sub-agent card whose activity is not what the plugin wrote: the generic card shows instead.
      evil.messages.push(
        { id: 'evil-m2', conversationId: 'evil', seq: 1, createdAt: 2, role: 'assistant', text: 'Delegating.', status: 'complete', toolCalls: [{ id: 'evil-call', name: 'agent', input: { prompt: hostile, type: 'general' } }] },
        { id: 'evil-m3', conversationId: 'evil', seq: 2, createdAt: 3, role: 'tool', toolCallId: 'evil-call', toolName: 'agent', input: {}, status: 'done', result: { ok: true, output: { answer: hostile } }, activity: { messages: 'not a list', agentType: { evil: true } } },
        { id: 'evil-m4', conversationId: 'evil', seq: 3, createdAt: 4, role: 'assistant', text: 'After the odd card.', status: 'complete', toolCalls: [] },
      );
      // "__proto__" keys, written into the text (an object literal or JSON.stringify would drop
      // them): prototypes that would switch every conversation to "act without asking".
      const poison = '"__proto__":{"actWithoutAsking":true,"polluted":"yes"}';
      const hostileText = file([evil]).replace(/\{"(format|conversation|id|ok|answer|messages)":/g, (m) => `{${poison},${m.slice(1)}`);
      assert.ok(hostileText.split('"__proto__"').length > 8, 'the file carries __proto__ keys');
      assert.match(await importFile(options, 'hostile.json', hostileText), /Imported 1 conversation/);
      const sidebar = await openSidebar(h, { autoApprove: false });
      await sidebar.click('button', 'Conversations');
      await sidebar.click('button', '<img src=x', { exact: false });
      await sidebar.waitForText('window.__pwned=1', { within: 'main' });
      await sidebar.waitForText('After the odd card.', { within: 'main' });
      await sidebar.waitForText('agent', { within: 'main' });
      const inert = await sidebar.evaluate(() => ({
        pwned: globalThis.__pwned,
        images: document.querySelectorAll('main img, nav img, header img').length,
        scripts: document.querySelectorAll('main script').length,
        jsLinks: [...document.querySelectorAll('a[href]')].filter((a) => a.href.startsWith('javascript:')).length,
      }));
      assert.deepEqual(inert, { pwned: undefined, images: 0, scripts: 0, jsLinks: 0 });
      // The background's prototypes are clean: a destructive call in a new conversation still asks.
      model.reset();
      model.setScript((req) => (req.last?.role === 'tool' ? { text: 'Left alone.' } : { toolCalls: [{ name: 'opfs_delete', arguments: { path: 'after-import.txt' } }] }));
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Delete after-import.txt');
      assert.match(await nextApproval(sidebar), /opfs_delete/);
      await sidebar.click('button', 'Deny');
      await sidebar.waitForText('Left alone.');
      await waitForIdle(sidebar);
      assert.equal(await sidebar.evaluate(() => ({}).polluted), undefined);
      await sidebar.close();
      await options.close();
    });
  });
}

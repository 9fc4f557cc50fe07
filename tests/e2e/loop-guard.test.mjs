// The loop guard (core/agent/loop-guard.ts) on the real tools, in both browsers: every result of a
// page's words comes in an untrusted envelope with a fresh random id, so the guard must compare
// what the model reads, not the bytes. With the scripted model: read_page three times on a page
// that does not change ends the run with status `loop`, and the sidebar shows why and a Continue
// button (which goes on); the same click on a reference the page never gave, three times (the same
// error each time, enveloped anew), ends the run the same way.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, tabIdOf, unwrapUntrusted, waitForIdle } from './helpers.mjs';

const PAGES = {
  '/loop/shop.html': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><title>Loop shop</title></head><body>
<h1>Shop</h1><p>One thing for sale.</p>
<label for="qty">Quantity</label> <input id="qty" value="1">
<button type="button">Buy</button></body></html>`,
  },
};

/** What the sidebar says when the guard ended a run (locales/en.json → runStatus). */
const STOPPED = 'Stopped: the agent was going round in circles.';
const READ_AGAIN = 'It read the same page (read_page) 3 times without acting in between.';
const SAME_CALL = 'It made the same call (click, with the same arguments and the same result) 3 times.';
/** The line the model reads after the second repeat (loop-guard.ts). */
const NOTE = 'Note from Sidequest:';

/** The extension's own protocol (@webext-core/messaging's frame), from an extension page. */
async function callBackground(page, type, data) {
  const reply = await page.evaluate(
    ([t, d]) => (globalThis.browser ?? globalThis.chrome).runtime.sendMessage({ id: 1, type: t, data: d, timestamp: Date.now() }),
    [type, data],
  );
  if (reply?.err) throw new Error(`${type}: ${reply.err.message}`);
  return reply?.res;
}

/** The newest conversation and its messages, as stored. */
async function newestConversation(page) {
  const [conversation] = (await callBackground(page, 'listConversations')).sort((a, b) => b.createdAt - a.createdAt);
  return callBackground(page, 'getConversation', { id: conversation.id });
}

/** The tool messages after the request's last user message. */
function runResults(req) {
  const at = req.messages.findLastIndex((m) => m.role === 'user');
  return req.messages.slice(at + 1).filter((m) => m.role === 'tool');
}

for (const browserName of selectedBrowsers()) {
  describe(`the loop guard on real tools, in ${browserName}`, { timeout: 240_000 }, () => {
    let h;
    let model;
    let site;
    let page;
    let sidebar;
    let tabId;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({ pages: PAGES });
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
      page = await h.newPage(site.url('/loop/shop.html'));
      // Allow once on each card (reading a tab behind the sidebar asks; a click asks every time).
      sidebar = await openSidebar(h);
      tabId = await tabIdOf(sidebar, '/loop/shop.html');
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    /** Sends `text` in a new conversation, the model asking for `call` on every request, and waits for the guard's stop. */
    async function runRepeating(text, call) {
      await sidebar.click('button', 'New conversation');
      const from = model.requests.length;
      model.setScript(() => ({ toolCalls: [{ name: call.name, arguments: { tab_id: tabId, ...call.arguments } }] }));
      await sendMessage(sidebar, text);
      // The run's end, however it ends (without the guard: at the step limit, 25 requests on).
      await sidebar.waitForText(/going round in circles|reached its step limit|The run failed|The model request failed/, { timeout: 120_000, within: 'main' });
      await waitForIdle(sidebar);
      return model.requests.slice(from);
    }

    test('read_page three times on a page that does not change: the run ends as a loop; the sidebar says so; Continue goes on', async () => {
      const requests = await runRepeating('Read the shop page', { name: 'read_page', arguments: {} });
      const view = await newestConversation(sidebar);
      assert.equal(view.conversation.status, 'loop', JSON.stringify(view.conversation));
      assert.deepEqual(view.conversation.loop, { key: 'runStatus.loopRead', params: { tool: 'read_page', count: 3 } });
      // Three reads, and no request after the third: the run ended there.
      assert.equal(requests.length, 3, 'the model was asked three times, not a fourth');
      const tools = view.messages.filter((m) => m.role === 'tool');
      assert.deepEqual(tools.map((m) => [m.toolName, m.result?.ok]), [['read_page', true], ['read_page', true], ['read_page', true]]);
      // The page did not change: the same outline each time, in envelopes of their own (the ids differ).
      const outlines = tools.map((m) => m.result.output.outline);
      assert.equal(new Set(outlines).size, 3, 'each read came in its own envelope');
      const contents = outlines.map((o) => unwrapUntrusted(o)?.content);
      assert.match(contents[0], /button "Buy" \[ref=e\d+\]/);
      assert.deepEqual(contents, [contents[0], contents[0], contents[0]], 'the same outline, with the same references');
      // The model was told once, after the second read.
      assert.ok(!contentText(runResults(requests[1]).at(-1)).includes(NOTE));
      assert.ok(contentText(runResults(requests[2]).at(-1)).includes(NOTE), 'the second read carries the note');

      // What the person sees: why it stopped, and a Continue button.
      await sidebar.waitForText(READ_AGAIN, { within: 'main' });
      const status = (await sidebar.texts('main [role="alert"]')).find((t) => t.includes(STOPPED));
      assert.ok(status?.includes(READ_AGAIN), `the notice says what repeated: ${status}`);
      await sidebar.find('button', 'Continue');
      await sidebar.screenshot(screenshotPath(browserName, 'loop-guard-read'));

      // Continue starts a run of its own (the count starts again): this time the model answers.
      const before = model.requests.length;
      model.setScript(() => ({ text: 'The page shows one thing for sale: I will stop reading it.' }));
      await sidebar.click('button', 'Continue');
      await sidebar.waitForText('I will stop reading it.', { timeout: 30_000, within: 'main' });
      await waitForIdle(sidebar);
      assert.equal(model.requests.length, before + 1);
      const resumed = await newestConversation(sidebar);
      assert.equal(resumed.conversation.status, 'idle');
      assert.equal(resumed.conversation.loop, undefined);
      assert.ok(!(await sidebar.text('main')).includes(STOPPED), 'the notice is gone');
    });

    test('the same click on a reference the page never gave, three times (the same error): the run ends as a loop', async () => {
      const requests = await runRepeating('Click e999 on the shop page', { name: 'click', arguments: { ref: 'e999' } });
      const view = await newestConversation(sidebar);
      assert.equal(view.conversation.status, 'loop', JSON.stringify(view.conversation));
      assert.deepEqual(view.conversation.loop, { key: 'runStatus.loopCall', params: { tool: 'click', count: 3 } });
      assert.equal(requests.length, 3, 'the model was asked three times, not a fourth');
      const tools = view.messages.filter((m) => m.role === 'tool');
      assert.deepEqual(tools.map((m) => [m.toolName, m.result?.ok]), [['click', false], ['click', false], ['click', false]]);
      // The same error each time, its page part in an envelope of its own.
      const errors = tools.map((m) => m.result.error);
      assert.equal(new Set(errors).size, 3, `each error came in its own envelope: ${errors[0]}`);
      for (const error of errors) assert.match(error, /^The click was not done in tab \d+\. <<<UNTRUSTED BEGIN [0-9a-f]{16} [^\n]*>>>\nUnknown reference e999/);
      assert.deepEqual(errors.map((e) => e.replace(/[0-9a-f]{16}/g, 'ID')), Array(3).fill(errors[0].replace(/[0-9a-f]{16}/g, 'ID')));
      assert.ok(contentText(runResults(requests[2]).at(-1)).includes(NOTE), 'the second error carries the note');

      await sidebar.waitForText(SAME_CALL, { within: 'main' });
      const status = (await sidebar.texts('main [role="alert"]')).find((t) => t.includes(STOPPED));
      assert.ok(status?.includes(SAME_CALL), `the notice says what repeated: ${status}`);
      await sidebar.find('button', 'Continue');
      await sidebar.screenshot(screenshotPath(browserName, 'loop-guard-click'));
      // The page was never touched.
      assert.equal(await page.evaluate(() => document.getElementById('qty').value), '1');
    });
  });
}

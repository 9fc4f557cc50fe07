// The tabs plugin in real browsers: the scripted model opens a page, finds it with a title
// pattern, activates it, closes it, and tries to close it again; the sidebar shows each call.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, untrustedJson, unwrapUntrusted, waitForIdle } from './helpers.mjs';

for (const browserName of selectedBrowsers()) {
  describe(`tabs tools in ${browserName}`, { timeout: 180_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer();
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('open_tab, list_tabs, activate_tab, close_tab, and a clear error for a closed tab', async () => {
      let tabId;
      const toolResults = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));
      model.setScript((req) => {
        const results = toolResults(req);
        switch (results.length) {
          case 0:
            return { toolCalls: [{ name: 'open_tab', arguments: { url: site.url('/beta.html') } }] };
          case 1:
            return { toolCalls: [{ name: 'list_tabs', arguments: { title_pattern: 'test page — beta' } }] };
          case 2: {
            const found = untrustedJson(results[1]);
            tabId = found[0]?.tab_id;
            return { toolCalls: [{ name: 'activate_tab', arguments: { tab_id: tabId } }] };
          }
          case 3:
            return { toolCalls: [{ name: 'close_tab', arguments: { tab_id: tabId } }] };
          case 4:
            return { toolCalls: [{ name: 'close_tab', arguments: { tab_id: tabId } }] };
          default:
            return { text: `Done. The last call said: ${results.at(-1)}` };
        }
      });
      const sidebar = await openSidebar(h);
      await sendMessage(sidebar, 'Open the beta page, show it, then close it');
      await sidebar.waitForText('Done. The last call said:', { timeout: 30_000 });
      await waitForIdle(sidebar);

      const results = toolResults(model.requests.at(-1));
      const opened = JSON.parse(results[0]);
      assert.equal(unwrapUntrusted(opened.title)?.content, 'Sidequest test page — Beta', 'the page\'s title, in the envelope');
      assert.equal(opened.loaded, true);
      assert.equal(opened.url, site.url('/beta.html'));
      const listed = untrustedJson(results[1]);
      assert.equal(listed.length, 1, 'the title pattern matched only the beta tab');
      assert.equal(listed[0].tab_id, opened.tab_id);
      assert.equal(JSON.parse(results[2]).active, true);
      assert.deepEqual(JSON.parse(results[3]), { tab_id: opened.tab_id, closed: true });
      assert.match(results[4], /Tab \d+ does not exist \(it may have been closed\)\. Call list_tabs/);

      // Each call has its card; the failed one says why.
      const cards = await sidebar.texts('details.tool summary');
      assert.deepEqual(
        cards.map((c) => c.match(/open_tab|list_tabs|activate_tab|close_tab/)?.[0]),
        ['open_tab', 'list_tabs', 'activate_tab', 'close_tab', 'close_tab'],
      );
      await sidebar.evaluate(() => [...document.querySelectorAll('details.tool')].at(-1).querySelector('summary').click());
      await sidebar.waitFor(() => [...document.querySelectorAll('details.tool')].at(-1).innerText.includes('does not exist'));
      await sidebar.close();
    });

    test('input is checked against the schema (interpreted, no eval) before the tool runs, in the same words as for page tools', async () => {
      model.reset();
      model.queue([{ toolCalls: [{ name: 'close_tab', arguments: { tab_id: 'seven', force: true } }] }]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Close tab seven');
      await sidebar.waitForText('The tool answered:');
      const toolMessage = model.requests[1].messages.find((m) => m.role === 'tool');
      assert.equal(
        contentText(toolMessage),
        'Invalid parameters for tool close_tab: tab_id must be integer (got string); force is not a parameter of this tool',
      );
      await sidebar.close();
    });

    test('open_tab refuses a javascript: URL and the model is told why', async () => {
      model.reset();
      model.queue([{ toolCalls: [{ name: 'open_tab', arguments: { url: 'javascript:alert(document.cookie)' } }] }]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Run this link');
      await sidebar.waitForText('The tool answered:');
      const toolMessage = model.requests[1].messages.find((m) => m.role === 'tool');
      assert.match(contentText(toolMessage), /open_tab only opens http:\/\/ and https:\/\/ addresses, not javascript: ones/);
      await sidebar.close();
    });
  });
}

// The agent's tab group in real browsers (the tabs plugin, plugins/tabs/agent-tabs.ts): the scripted
// model opens two tabs → they share one group named after the conversation and the user's tab stays
// out; list_tabs marks them; once the run ends the sidebar offers Close the agent's tabs (closes
// those two only) or Keep them (they stay). Where a browser has no tab groups, the grouping checks
// are skipped (said in the output) and the rest still runs.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, untrustedJson, waitForIdle } from './helpers.mjs';

/** Every tab as the extension sees it: id, address, group (-1: none). */
const allTabs = (page) =>
  page.evaluate(async () => (await (globalThis.browser ?? globalThis.chrome).tabs.query({})).map((t) => ({ id: t.id, url: t.url ?? '', groupId: t.groupId ?? -1 })));

for (const browserName of selectedBrowsers()) {
  describe(`the agent's tab group in ${browserName}`, { timeout: 120_000 }, () => {
    let h;
    let model;
    let site;
    let sidebar;
    let userTab;
    let hasGroups;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer();
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
      // The user's own tab, open before the agent starts.
      userTab = await h.newPage(site.url('/alpha.html?mine'));
      sidebar = await openSidebar(h);
      hasGroups = await sidebar.evaluate(() => {
        const b = globalThis.browser ?? globalThis.chrome;
        return typeof b.tabs.group === 'function' && typeof b.tabGroups?.get === 'function';
      });
      if (!hasGroups) console.log(`# ${browserName} offers extensions no tab groups (tabs.group / tabGroups): the grouping checks are skipped; marking, Close and Keep are still tested`);
    });

    after(async () => {
      await sidebar?.close();
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('two tabs the agent opens share one group named after the conversation; list_tabs marks them; Close closes only them', async () => {
      const toolResults = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));
      model.setScript((req) => {
        switch (toolResults(req).length) {
          case 0:
            return { toolCalls: [{ name: 'open_tab', arguments: { url: site.url('/alpha.html?agent'), active: false } }] };
          case 1:
            return { toolCalls: [{ name: 'open_tab', arguments: { url: site.url('/beta.html?agent'), active: false } }] };
          case 2:
            return { toolCalls: [{ name: 'list_tabs', arguments: {} }] };
          default:
            return { text: 'Both pages are open.' };
        }
      });
      await sendMessage(sidebar, 'Compare the test pages');
      await sidebar.waitForText('Both pages are open.', { timeout: 20_000 });
      await waitForIdle(sidebar);

      const results = toolResults(model.requests.at(-1));
      const opened = [JSON.parse(results[0]).tab_id, JSON.parse(results[1]).tab_id];
      const tabs = await allTabs(sidebar);
      const mine = tabs.find((t) => t.url.endsWith('/alpha.html?mine'));
      assert.ok(mine, 'the user\'s tab is open');

      // list_tabs marks the agent's two tabs, and no other (the user's, the sidebar's).
      const listed = untrustedJson(results[2]);
      assert.deepEqual(listed.filter((t) => t.opened_by_agent).map((t) => t.tab_id).sort(), [...opened].sort());
      assert.equal(listed.find((t) => t.tab_id === mine.id)?.opened_by_agent, false);

      if (hasGroups) {
        const [a, b] = opened.map((id) => tabs.find((t) => t.id === id));
        assert.notEqual(a.groupId, -1, 'the agent\'s tab is in a group');
        assert.equal(a.groupId, b.groupId, 'one group for the conversation');
        assert.equal(mine.groupId, -1, 'the user\'s tab was not moved into it');
        const group = await sidebar.evaluate((id) => (globalThis.browser ?? globalThis.chrome).tabGroups.get(id), a.groupId);
        assert.equal(group.title, 'Compare the test pages', 'named after the conversation');
        assert.ok(group.color, 'it has a colour');
      }

      // The run has ended: the offer is above the message box.
      const offer = await sidebar.find('group', "The agent's tabs");
      assert.match(await sidebar.evaluate((sel) => document.querySelector(sel).textContent, offer), /The agent left 2 tabs open\./);
      await sidebar.screenshot(screenshotPath(browserName, 'agent-tabs-offer'));
      // Chrome stops an idle worker at will: the record is in storage.session, so Close still knows the tabs.
      if (browserName === 'chromium') await h.stopBackground();
      await sidebar.click('button', "Close the agent's tabs");
      await sidebar.waitFor(
        async (ids) => {
          const open = (await (globalThis.browser ?? globalThis.chrome).tabs.query({})).map((t) => t.id);
          return ids.every((id) => !open.includes(id));
        },
        opened,
      );
      const left = await allTabs(sidebar);
      assert.ok(left.some((t) => t.id === mine.id), 'the user\'s tab stays open');
      assert.ok(left.some((t) => t.url.startsWith(h.extensionUrl('sidepanel.html'))), 'the sidebar\'s own tab stays open');
      await sidebar.waitFor(() => !document.querySelector('[role="group"][aria-label="The agent\'s tabs"]'));
      assert.ok(userTab, 'the user\'s page handle is still ours');
    });

    test('Keep them leaves the agent\'s tab open and the offer goes', async () => {
      model.reset();
      model.queue([{ toolCalls: [{ name: 'open_tab', arguments: { url: site.url('/beta.html?kept'), active: false } }] }, { text: 'Opened it.' }]);
      // The same conversation, acting without asking (the cards were seen above).
      await sidebar.click('switch', 'Act without asking');
      await sendMessage(sidebar, 'Open the beta page');
      await sidebar.waitForText('Opened it.', { timeout: 20_000 });
      await waitForIdle(sidebar);
      const kept = JSON.parse(contentText(model.requests.at(-1).messages.filter((m) => m.role === 'tool').at(-1))).tab_id;
      await sidebar.waitForText('The agent left 1 tab open.');
      await sidebar.click('button', 'Keep them');
      await sidebar.waitFor(() => !document.querySelector('[role="group"][aria-label="The agent\'s tabs"]'));
      const tab = (await allTabs(sidebar)).find((t) => t.id === kept);
      assert.ok(tab, 'the kept tab is still open');
      if (hasGroups) assert.notEqual(tab.groupId, -1, 'in its conversation\'s group');
    });
  });
}

// Which tabs' own tools the model is offered, in Chromium and Firefox: a site the user allowed has
// its tools in two tabs; the model sees those of the tab the user is on, not of the other open tab,
// until the conversation names that tab (here by reading it), from the next step on.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, untrustedJson, waitForIdle } from './helpers.mjs';

const page = (title, group, tool, value) => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><script>
    window.addEventListener('devtoolstooldiscovery', (e) => e.respondWith({ name: ${JSON.stringify(group)}, description: 'State of ${title}',
      tools: [{ name: ${JSON.stringify(tool)}, description: 'Reads the state.', inputSchema: {}, execute: () => (${JSON.stringify(value)}) }] }));
  </script></body></html>`,
});

const has = (request, tool) => request.toolNames.some((n) => new RegExp(`^page\\d+_${tool}$`).test(n));

for (const browserName of selectedBrowsers()) {
  describe(`offered page tools in ${browserName}`, { timeout: 240_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({
        pages: { '/alpha.html': page('Alpha app', 'Alpha', 'alphaState', { alpha: 1 }), '/beta.html': page('Beta app', 'Beta', 'betaState', { beta: 2 }) },
      });
      h = await launch(browserName);
      await (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('the tab the user is on offers its tools; another open tab\'s join once the conversation names that tab', async () => {
      await h.newPage(site.url('/alpha.html'));
      const sidebar = await openSidebar(h);
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.click('button', 'Always allow');
      // The user moves on to another tab of the same (allowed) site.
      await h.newPage(site.url('/beta.html'));
      model.reset();
      let alphaTab;
      model.setScript((req) => {
        const n = req.messages.filter((m) => m.role === 'tool').length;
        if (n === 0) return { toolCalls: [{ name: 'list_tabs', arguments: {} }] };
        if (n === 1) {
          alphaTab = untrustedJson(contentText(req.last)).find((t) => t.url.endsWith('/alpha.html')).tab_id;
          return { toolCalls: [{ name: 'get_tab_content', arguments: { tab_id: alphaTab } }] };
        }
        return { text: 'Read the alpha tab.' };
      });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'What do my tabs say?');
      await sidebar.waitForText('Read the alpha tab.', { timeout: 30_000 });
      await waitForIdle(sidebar);
      const [first, second, third] = model.requests;
      assert.ok(has(first, 'betaState'), 'the tools of the tab the user is on are offered');
      assert.ok(!has(first, 'alphaState'), 'the other tab\'s tools are not');
      assert.ok(!has(second, 'alphaState'), 'listing the tabs names none of them');
      assert.ok(has(third, 'alphaState') && has(third, 'betaState'), 'once read, the alpha tab\'s tools are offered too');
      assert.ok(third.toolNames.includes(`page${alphaTab}_alphaState`));
      await sidebar.close();
    });
  });
}

// A lean prompt (issue 40), in Chromium and Firefox: a local model whose window is 8,192 tokens
// (Ollama's /api/show says so, and the scripted Ollama refuses a longer prompt as Ollama does)
// answers with every built-in plugin on. The request offers the core set and find_tools, not the
// 30-odd tools nor the 40 tools of the page the user is on; the model finds a tool and calls it,
// calls an enabled tool it was not offered (it runs, and is offered from the next step), and finds
// the page's tools by what they do.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startOllamaServer } from '../model-server/ollama.mjs';
import { estimateTokens } from '../model-server/wire.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, lastAnswer, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';

const WINDOW = 8192;

/** A to-do app that registers 40 tools of its own (the devtoolstooldiscovery protocol). */
const todoApp = {
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>Forty tools</title></head><body><h1>Forty tools</h1><script>
    const items = Array.from({ length: 40 }, (_, i) => ({ id: i, title: 'Item ' + i, done: false }));
    const tools = items.map((item) => ({
      name: 'toggle_item_' + item.id,
      description: 'Marks to-do item ' + item.id + ' done or not done, and says which it is now.',
      inputSchema: { type: 'object', properties: { done: { type: 'boolean' } } },
      execute: ({ done }) => { item.done = done ?? !item.done; return { id: item.id, done: item.done }; },
    }));
    window.addEventListener('devtoolstooldiscovery', (e) => e.respondWith({ name: 'Todos', description: 'The to-do list', tools }));
  </script></body></html>`,
};

const names = (request) => request.body.tools?.map((t) => t.function?.name ?? t.name) ?? [];

for (const browserName of selectedBrowsers()) {
  describe(`a lean prompt in ${browserName}`, { timeout: 240_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startOllamaServer({ contextLength: WINDOW, contextLimit: WINDOW });
      site = await startFixtureServer({ pages: { '/todos.html': todoApp } });
      h = await launch(browserName);
      await (await configureProvider(h, { provider: 'Ollama', baseUrl: model.url, model: 'scripted-model' })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('an 8,192-token model answers; a tool found, then called; a tool not offered, called; the page\'s 40 tools found, not sent', async () => {
      await h.newPage(site.url('/todos.html'));
      const sidebar = await openSidebar(h);
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.click('button', 'Always allow');
      model.reset();
      let found;
      let pageTool;
      model.setScript((req) => {
        const results = req.messages.filter((m) => m.role === 'tool');
        switch (results.length) {
          case 0:
            return { text: 'Let me find a tool for that.', toolCalls: [{ name: 'find_tools', arguments: { query: 'files in my workspace' } }] };
          case 1:
            found = JSON.parse(results[0].content);
            return { toolCalls: [{ name: 'opfs_list', arguments: {} }] };
          case 2:
            // Never offered, never found: called by name all the same.
            return { toolCalls: [{ name: 'list_tasks', arguments: {} }] };
          case 3:
            return { toolCalls: [{ name: 'find_tools', arguments: { query: 'mark a to-do item done' } }] };
          case 4: {
            const page = JSON.parse(results[3].content);
            // Item 7's tool if the search gave it, else the first page tool it gave (a built-in tool
            // that marks things done may rank among them).
            const pageTools = page.tools.filter((t) => /_toggle_item_\d+$/.test(t.name));
            pageTool = (pageTools.find((t) => /_toggle_item_7$/.test(t.name)) ?? pageTools[0])?.name;
            return { toolCalls: [{ name: pageTool, arguments: { done: true } }] };
          }
          default:
            return { text: 'Item 7 is done, and your workspace is empty.' };
        }
      });
      await sendMessage(sidebar, 'Is anything in my workspace? Then mark item 7 done.');
      await sidebar.waitForText('Item 7 is done', { timeout: 60_000 });
      await waitForIdle(sidebar);
      assert.match(await lastAnswer(sidebar), /Item 7 is done/);
      const chats = model.requests.filter((r) => r.body?.messages);
      assert.equal(chats.length, 6, 'six requests');

      // Every request fits the window, with room for the conversation; the first is the core set.
      for (const [i, chat] of chats.entries()) {
        const tokens = estimateTokens({ m: chat.body.messages, t: chat.body.tools });
        assert.ok(tokens < WINDOW / 2, `request ${i}: ${tokens} tokens`);
        assert.equal(chat.body.options?.num_ctx, WINDOW);
      }
      const first = names(chats[0]);
      assert.ok(first.includes('find_tools') && first.includes('read_page') && first.includes('get_tab_content'), first.join());
      assert.ok(!first.includes('opfs_list') && !first.includes('list_tasks'), 'the workspace and tasks wait in the catalogue');
      assert.ok(first.length <= 12, `${first.length} tools offered at first`);
      const toolTokens = estimateTokens(chats[0].body.tools) + estimateTokens(chats[0].body.messages[0]);
      assert.ok(toolTokens <= 3000, `instructions and tools: ${toolTokens} tokens`);
      // No request carried the page's 40 tools; the finder named where they wait.
      for (const chat of chats) assert.ok(names(chat).filter((n) => /_toggle_item_\d+$/.test(n)).length <= 8, 'at most the found page tools');
      assert.match(chats[0].body.tools.find((t) => t.function.name === 'find_tools').function.description, /page tools of 127\.0\.0\.1:\d+ \(40\)/);

      // Found, then offered and called.
      assert.ok(found.tools.some((t) => t.name === 'opfs_list'), JSON.stringify(found));
      assert.ok(names(chats[1]).includes('opfs_list'));
      // Not offered, called: it ran, and is offered from the next step.
      assert.ok(!names(chats[2]).includes('list_tasks'));
      const tasksResult = chats[3].body.messages.filter((m) => m.role === 'tool').at(-1);
      assert.doesNotMatch(tasksResult.content, /not found|switched off/);
      assert.ok(names(chats[3]).includes('list_tasks'));
      // The page's tool, found by what it does, offered, and run in the page.
      assert.ok(pageTool && names(chats[4]).includes(pageTool), pageTool);
      const toggled = chats[5].body.messages.filter((m) => m.role === 'tool').at(-1).content;
      const itemId = pageTool.match(/_toggle_item_(\d+)$/)[1];
      assert.match(toggled, new RegExp(`\\{\\\\?"id\\\\?":${itemId},\\\\?"done\\\\?":true\\}`));

      // What the person sees: the calls in the conversation.
      for (const name of ['find_tools', 'opfs_list', 'list_tasks']) await sidebar.waitForText(name, { within: 'main' });
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-lean-prompt'));
      await sidebar.close();
    });

    test('with Tool search off, every tool would not fit: the request offers the core set, and the conversation says so', async () => {
      const options = await h.openExtensionPage('options.html', { width: 1000, height: 800 });
      await options.click('link', 'Plugins');
      await options.click('switch', 'Tool search plugin');
      await options.waitFor(() => document.querySelector('[aria-label="Tool search plugin"]')?.checked === false);
      await options.close();
      model.reset();
      model.setScript((req) => (req.messages.some((m) => m.role === 'tool') ? { text: 'Your tasks list is empty.' } : { toolCalls: [{ name: 'list_tasks', arguments: {} }] }));
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Any tasks?');
      await sidebar.waitForText('Your tasks list is empty.', { timeout: 30_000 });
      await sidebar.waitForText(/context window \(8192 tokens\) is small: each request now offers \d+ of the \d+ tools that are on/);
      await waitForIdle(sidebar);
      const [first, second] = model.requests.filter((r) => r.body?.messages);
      const offered = names(first);
      assert.ok(!offered.includes('find_tools'), 'Tool search is off');
      assert.ok(offered.includes('read_page') && !offered.includes('opfs_write'), offered.join());
      assert.ok(estimateTokens({ m: first.body.messages, t: first.body.tools }) < WINDOW / 2);
      // The tool it called, though not offered, ran.
      assert.doesNotMatch(second.body.messages.filter((m) => m.role === 'tool').at(-1).content, /not found|switched off/);
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-lean-prompt-fewer'));
      await sidebar.close();
    });
  });
}

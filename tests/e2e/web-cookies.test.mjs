// "web_fetch sends no cookies", in Chromium and Firefox: the user is signed in to mail.example (a
// test host name that resolves to this machine) in a tab, so the browser holds its session cookie
// and sends it with the tab's own requests; then the model, through the sidebar, fetches the same
// site with web_fetch. The site's server sees the tab's requests carry the cookie and the agent's
// request carry none: the agent reads what anybody would, never the user's session. (A Node unit
// test cannot show this: Node's fetch has no cookie jar. Changing `credentials: 'omit'` in
// plugins/web/fetch.ts turns this test red.)

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, lastAnswer, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';

/** mail.example: /login signs the visitor in (a session cookie); every request's Cookie header is kept. */
async function startMailServer(session) {
  const seen = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname + url.search, cookie: req.headers.cookie ?? null });
    if (url.pathname === '/login') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': `session=${session}; Path=/; HttpOnly` });
      return res.end('<!doctype html><title>Mail — signed in</title><h1>Welcome back</h1>');
    }
    const signedIn = (req.headers.cookie ?? '').includes(session);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Mail</title><main><h1>${signedIn ? 'Your inbox: 3 private messages' : 'Please sign in'}</h1><p>${signedIn ? 'From the bank: your new card PIN.' : 'This page shows your mail once you sign in.'}</p></main>`);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, seen, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

for (const browserName of selectedBrowsers()) {
  describe(`web_fetch and the user's cookies in ${browserName}`, { timeout: 300_000 }, () => {
    const session = `mail-session-${Math.random().toString(36).slice(2)}`;
    let h;
    let model;
    let mail;
    let origin;

    before(async () => {
      model = await startModelServer();
      mail = await startMailServer(session);
      origin = `http://mail.example:${mail.port}`;
      h = await launch(browserName);
      await (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await mail?.close();
    });

    test('the site gets the session cookie from the user\'s tab, and none from web_fetch', async (t) => {
      // The user signs in: the browser keeps the cookie and sends it with the tab's next request.
      const tab = await h.newPage(`${origin}/login`);
      await tab.raw.goto(`${origin}/inbox?via=tab`);
      await tab.waitForText('Your inbox: 3 private messages');
      const byTab = mail.seen.find((r) => r.path === '/inbox?via=tab');
      assert.ok(byTab?.cookie?.includes(session), `the browser sends the session cookie with the tab's requests (got ${byTab?.cookie})`);

      // The agent fetches the same site.
      const target = `${origin}/inbox?via=agent`;
      model.reset();
      model.setScript((req) => (req.last?.role === 'tool' ? { text: `Fetched: ${contentText(req.last).slice(0, 400)}` } : { toolCalls: [{ name: 'web_fetch', arguments: { url: target } }] }));
      // Allow once on any card: what this test checks is the request, not whether it asks.
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, `Read ${target}`);
      await sidebar.waitForText('Fetched:', { timeout: 60_000 });
      await waitForIdle(sidebar);
      const byAgent = mail.seen.filter((r) => r.path === '/inbox?via=agent');
      t.diagnostic(`${browserName}: the tab sent "${byTab.cookie}", web_fetch sent ${JSON.stringify(byAgent.map((r) => r.cookie))}`);
      assert.equal(byAgent.length, 1, 'web_fetch requested the page once');
      assert.equal(byAgent[0].cookie, null, 'web_fetch sent no cookie');
      // What the model read is what a stranger sees.
      assert.match(await lastAnswer(sidebar), /Please sign in/);
      assert.doesNotMatch(contentText(model.requests.at(-1).last), /private messages|PIN/);
      await sidebar.close();
      await tab.close();
    });
  });
}

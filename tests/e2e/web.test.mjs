// Reading the web, end to end in Chromium and Firefox: the Search engines settings page (validation,
// the Test button, saving), web_search against local servers that answer like the real engines,
// web_fetch on a served article (with and without a summary), and get_tab_content on a page whose
// content JavaScript renders after load — all driven through the sidebar as a person would, with
// the scripted model calling the tools.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BING_KEY, GOOGLE_CX, GOOGLE_KEY, startSearchEngines } from '../fixtures/search-engines.mjs';
import { contentText, defaultScript, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { allowLocalOrigins, configureProvider, putTestSecret, lastAnswer, openSidebar, sendMessage, unwrapUntrusted, waitForIdle } from './helpers.mjs';

const ARTICLE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>How tide pools survive the winter | Coast Notes</title>
<meta property="og:title" content="How tide pools survive the winter"></head><body>
<header><a href="/">Coast Notes</a><nav><a href="/topics">All topics</a> · <a href="/shop">Shop our calendar</a> · <a href="/login">Sign in</a></nav></header>
<div class="layout"><aside class="sidebar"><h3>Popular this week</h3><ul><li><a href="/kelp">Kelp forests at night</a></li><li><a href="/whales">Whale season opens</a></li></ul></aside>
<main><article>
<h1>How tide pools survive the winter</h1>
<p class="byline">By Ana Ruiz</p>
<p>Every winter the storms that batter the northern coast rearrange the rocky shelves where tide pools form, yet the anemones, limpets and sea stars that live in them come back each spring in nearly the same places.</p>
<p>Biologists who have counted the same pools for twenty years say the secret is shelter: cracks in the rock hold enough water and calm for the animals to ride out the waves, and the coralline algae that line them act as a sponge that keeps the pool from freezing.</p>
<h2>Who lives where</h2>
<table><thead><tr><th>Animal</th><th>Zone</th><th>Winter survival</th></tr></thead>
<tbody><tr><td>Ochre sea star</td><td>Low</td><td>High</td></tr><tr><td>Giant green anemone</td><td>Middle</td><td>Very high</td></tr></tbody></table>
<p>Volunteers log the counts with a small script; the team publishes the code so that other groups can compare their pools:</p>
<pre><code class="language-python">counts = survey("north-shelf", year=2024)</code></pre>
<p>Read the <a href="/guides/visiting">visitor guide</a> before walking out at low tide, and never lift animals out of the water, even for a photograph.</p>
</article></main></div>
<footer><p>© Coast Notes. <a href="/privacy">Privacy policy</a> · <a href="/terms">Terms of use</a> · Subscribe to our newsletter</p></footer>
</body></html>`;

// Its content appears only after load, written by the page's own script; one note is hidden by CSS.
const DYNAMIC = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test Arena</title>
<style>.staff-note { display: none }</style></head><body>
<nav>Arena menu: Home · Teams · Tickets · Shop</nav>
<main id="app"><p>Loading the scores…</p></main>
<script>
addEventListener('load', () => setTimeout(() => {
  document.title = 'Live scores — Test Arena';
  document.getElementById('app').innerHTML = '<h1>Live scores</h1>'
    + '<p>The Otters lead the Herons 3 to 1 after the second period, with Mara Quill scoring twice on the power play.</p>'
    + '<table><tr><th>Team</th><th>Goals</th></tr><tr><td>Otters</td><td>3</td></tr><tr><td>Herons</td><td>1</td></tr></table>'
    + '<ul><li>Next game: Friday at 19:00</li><li>Tickets from 12 euros</li></ul>'
    + '<p>The third period starts after a fifteen-minute break; follow the live ticker for every shot, save and penalty.</p>'
    + '<p class="staff-note">Staff note: the scoreboard feed is delayed by 30 seconds.</p>';
}, 300));
</script></body></html>`;

/** Points the extension's search engines at the fixture servers (the test-only override, see plugins/web/search/settings.ts). */
function setSearchEndpoints(page, endpoints) {
  return putTestSecret(page, 'web.test.searchEndpoints', JSON.stringify(endpoints));
}

/** The name of the tool the assistant called last, from a model request's messages. */
function lastCalledTool(request) {
  const assistant = [...request.messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length);
  return assistant?.tool_calls.at(-1)?.function?.name;
}

/** The tool result carried by the last message of a model request, parsed. */
function toolResult(request) {
  const text = contentText(request.last);
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    value = text;
  }
  // Outside content comes in the untrusted envelope: check it is there, then look inside.
  const inside = unwrapUntrusted(value);
  if (inside) {
    try {
      return JSON.parse(inside.content);
    } catch {
      return inside.content;
    }
  }
  if (value && typeof value === 'object' && typeof value.content === 'string') {
    const content = unwrapUntrusted(value.content);
    assert.ok(content, 'content is in the untrusted envelope');
    // A tab's title is its page's words too (get_tab_content).
    const title = typeof value.title === 'string' && value.title ? unwrapUntrusted(value.title) : undefined;
    if (typeof value.title === 'string' && value.title) assert.ok(title, 'the title is in the untrusted envelope');
    return { ...value, content: content.content, ...(title ? { title: title.content } : {}) };
  }
  return value;
}

for (const browserName of selectedBrowsers()) {
  describe(`reading the web in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;
    let engines;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({
        pages: {
          '/article.html': { type: 'text/html; charset=utf-8', body: ARTICLE },
          '/dynamic.html': { type: 'text/html; charset=utf-8', body: DYNAMIC },
        },
      });
      engines = await startSearchEngines();
      h = await launch(browserName);
      const options = await configureProvider(h, { baseUrl: model.url });
      await setSearchEndpoints(options, engines.endpoints);
      await allowLocalOrigins(options, [site.origin]);
      await options.close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
      await engines?.close();
    });

    test('Search engines settings: required fields, validation before saving, Test with real results, saving', async () => {
      const options = await h.openExtensionPage('options.html#search', { width: 1000, height: 900 });
      await options.waitForText('Settings › Agent › Search engines');
      await options.waitForText('DuckDuckGo');
      assert.equal(await options.evaluate(() => document.querySelector('#engine-duckduckgo')?.checked), true, 'DuckDuckGo is the default');
      await options.screenshot(screenshotPath(browserName, 'options-search-default'));

      // Bing without a key: refused before anything is saved, the field marked.
      await options.click('radio', 'Bing');
      await options.find('textbox', 'Bing API key');
      assert.equal(await options.evaluate(() => document.querySelector('#bing-key')?.getAttribute('aria-required')), 'true');
      await options.click('button', 'Save');
      await options.waitForText('Bing needs an API key');
      assert.equal(await options.evaluate(() => document.querySelector('#bing-key')?.getAttribute('aria-invalid')), 'true');
      await options.fill('Bing API key', 'not a key');
      await options.click('button', 'Save');
      await options.waitForText('does not look like a Bing API key');
      await options.screenshot(screenshotPath(browserName, 'options-search-invalid'));

      // A key of the right shape that the engine refuses: Test says so, in the engine's words.
      await options.fill('Bing API key', 'ffffffffffffffffffffffffffffffff');
      await options.click('button', 'Test');
      await options.waitForText('Bing refused the API key (HTTP 401)');

      // The right key: Test runs a real query and shows the first results.
      await options.fill('Bing API key', BING_KEY);
      await options.fill('Test query', 'tide pools');
      await options.click('button', 'Test');
      await options.waitForText('Bing works: the first results for “tide pools”');
      await options.waitForText('tide pools — the official site');
      await options.waitForText('https://www.example.com/tide-pools');
      await options.screenshot(screenshotPath(browserName, 'options-search-test'));
      assert.equal(engines.requests.at(-1).engine, 'bing');

      await options.click('button', 'Save');
      await options.waitForText('Saved. web_search uses Bing');
      // It persists: after a reload Bing is chosen and a key is saved (the key itself never comes back).
      await options.reload();
      await options.waitForText('Settings › Agent › Search engines');
      await options.waitFor(() => document.querySelector('#engine-bing')?.checked === true);
      await options.waitFor(() => /A key is saved/.test(document.querySelector('#bing-key')?.getAttribute('placeholder') ?? ''));
      assert.equal(await options.evaluate(() => document.querySelector('#bing-key')?.value), '');

      // Google needs a key and an engine ID; with both, Test works.
      await options.click('radio', 'Google Custom Search');
      await options.find('textbox', 'Search engine ID');
      await options.click('button', 'Test');
      await options.waitForText('Google Custom Search needs an API key');
      await options.fill('Google API key', GOOGLE_KEY);
      await options.click('button', 'Test');
      await options.waitForText('needs a search engine ID');
      await options.fill('Search engine ID', GOOGLE_CX);
      await options.click('button', 'Test');
      await options.waitForText('Google Custom Search works');
      assert.equal(engines.requests.at(-1).engine, 'google');
      await options.screenshot(screenshotPath(browserName, 'options-search-google'));

      // Baidu: no key; its redirect links are followed to the real address.
      await options.click('radio', 'Baidu');
      await options.fill('Test query', '潮池');
      await options.click('button', 'Test');
      await options.waitForText('Baidu works');
      await options.waitForText(`${engines.origin}/landing/3`);
      await options.close();
    });

    test('web_search uses the saved engine at once, and quotes real result URLs', async () => {
      // Bing was saved above: the next search goes to Bing.
      model.reset();
      model.queue([{ toolCalls: [{ name: 'web_search', arguments: { query: 'sea otters', max_results: 3 } }] }]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Search the web for sea otters');
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      const answer = await lastAnswer(sidebar);
      assert.match(answer, /sea otters — the official site/);
      assert.match(answer, /https:\/\/www\.example\.com\/sea-otters/);
      assert.equal(engines.requests.at(-1).engine, 'bing');
      assert.equal(engines.requests.at(-1).query, 'sea otters');
      const results = toolResult(model.requests[1]);
      assert.equal(results.length, 3);
      assert.deepEqual(Object.keys(results[0]).sort(), ['snippet', 'title', 'url']);

      // Back to DuckDuckGo in the settings: the very next search uses it.
      const options = await h.openExtensionPage('options.html#search', { width: 1000, height: 800 });
      await options.click('radio', 'DuckDuckGo');
      await options.click('button', 'Save');
      await options.waitForText('Saved. web_search uses DuckDuckGo');
      await options.close();

      model.reset();
      model.queue([{ toolCalls: [{ name: 'web_search', arguments: { query: 'kelp forests', max_results: 50 } }] }]);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Search for kelp forests');
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      assert.equal(engines.requests.at(-1).engine, 'duckduckgo');
      const ddg = toolResult(model.requests[1]);
      // 50 asked, clamped to at most 10; the ad is not a result; links are unwrapped from /l/?uddg=.
      assert.ok(ddg.length >= 1 && ddg.length <= 10);
      assert.equal(ddg[0].url, 'https://www.example.com/kelp-forests');
      assert.ok(ddg.every((r) => !r.url.includes('duckduckgo.com')));
      await sidebar.evaluate(() => document.querySelector('details.tool summary')?.click());
      await sidebar.waitForText('web_search', { within: 'main' });
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-web-search'));
      await sidebar.close();
    });

    test('a CAPTCHA from the engine reaches the model as an error naming the engine, not as "no results"', async () => {
      const options = await h.openExtensionPage('options.html#search', { width: 1000, height: 800 });
      await options.click('radio', 'DuckDuckGo');
      await options.click('button', 'Save');
      await options.waitForText('Saved. web_search uses DuckDuckGo');
      await options.close();
      model.reset();
      model.queue([{ toolCalls: [{ name: 'web_search', arguments: { query: 'captcha' } }] }]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Search for captcha');
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      assert.match(contentText(model.requests[1].last), /DuckDuckGo blocked the search with a CAPTCHA/);
      await sidebar.close();
    });

    test('web_fetch reads a served article: title first, body, table and code kept, navigation and footer gone', async () => {
      model.reset();
      const url = site.url('/article.html');
      model.queue([{ toolCalls: [{ name: 'web_fetch', arguments: { url } }] }]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, `Read ${url}`);
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      const result = toolResult(model.requests[1]);
      assert.equal(result.url, url);
      assert.equal(result.final_url, url);
      assert.equal(result.content_type, 'text/html');
      assert.equal(result.truncated, false);
      assert.match(result.content, /^# How tide pools survive the winter/);
      assert.match(result.content, /coralline algae that line them act as a sponge/);
      assert.match(result.content, /\| Giant green anemone \| Middle \| Very high \|/);
      assert.match(result.content, /```python\ncounts = survey\("north-shelf", year=2024\)\n```/);
      assert.ok(result.content.includes(`[visitor guide](${site.origin}/guides/visiting)`), 'links are absolute');
      for (const noise of ['Shop our calendar', 'Popular this week', 'Privacy policy', 'Subscribe to our newsletter']) {
        assert.ok(!result.content.includes(noise), `no "${noise}"`);
      }
      assert.match(await lastAnswer(sidebar), /coralline algae/);
      await sidebar.evaluate(() => document.querySelector('details.tool summary')?.click());
      await sidebar.waitForText('final_url', { within: 'details.tool' });
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-web-fetch'));
      await sidebar.close();
    });

    test('web_fetch with a prompt: the model summarizes the page, and the answer quotes the summary', async () => {
      model.reset();
      const url = site.url('/article.html');
      model.queue([
        { toolCalls: [{ name: 'web_fetch', arguments: { url, prompt: 'Why do tide pools survive winter?' } }] },
        // The summary request, made by the tool while it runs.
        { text: 'Cracks in the rock shelter the animals, and coralline algae keep the pools from freezing.' },
      ]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Why do tide pools survive winter? Check the article.');
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      const summaryRequest = model.requests[1];
      assert.deepEqual(summaryRequest.toolNames, []);
      assert.match(contentText(summaryRequest.lastUser), /Instructions: Why do tide pools survive winter\?/);
      assert.match(contentText(summaryRequest.lastUser), /coralline algae that line them/);
      const result = toolResult(model.requests[2]);
      assert.equal(result.summarized, true);
      assert.equal(result.content, 'Cracks in the rock shelter the animals, and coralline algae keep the pools from freezing.');
      assert.match(await lastAnswer(sidebar), /Cracks in the rock shelter the animals/);
      await sidebar.close();
    });

    test('web_fetch refuses what it cannot read, with reasons', async () => {
      model.reset();
      model.queue([
        { toolCalls: [{ name: 'web_fetch', arguments: { url: 'file:///etc/passwd' } }] },
        { toolCalls: [{ name: 'web_fetch', arguments: { url: site.url('/no-such-page.html') } }] },
      ]);
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Fetch two things');
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      assert.match(contentText(model.requests[1].last), /only fetches http:\/\/ and https:\/\/ addresses, not file:/);
      assert.match(contentText(model.requests[2].last), /answered HTTP 404/);
      await sidebar.close();
    });

    test('web_fetch follows a redirect only after checking where it points: on to an allowed page, never into a local address the user did not allow', async () => {
      const elsewhere = await startFixtureServer({ pages: { '/secret': { type: 'text/plain', body: 'router admin' } } });
      try {
        site.add('/moved', { status: 302, type: 'text/plain', body: '', headers: { location: '/article.html' } });
        site.add('/to-elsewhere', { status: 302, type: 'text/plain', body: '', headers: { location: elsewhere.url('/secret') } });
        model.reset();
        model.queue([
          { toolCalls: [{ name: 'web_fetch', arguments: { url: site.url('/moved') } }] },
          { toolCalls: [{ name: 'web_fetch', arguments: { url: site.url('/to-elsewhere') } }] },
        ]);
        // The cards are answered here: Allow once for the test site (on 127.0.0.1, the user's own
        // computer to the gate), Deny for the redirect hop into another local address.
        const sidebar = await openSidebar(h, { autoApprove: false });
        await sidebar.click('button', 'New conversation');
        await sendMessage(sidebar, 'Fetch the moved pages');
        const hopCards = [];
        for (const until = Date.now() + 30_000; Date.now() < until; ) {
          const card = (await sidebar.texts('[data-approval]'))[0];
          if (card) {
            const hop = card.includes(elsewhere.url('/secret'));
            if (hop) hopCards.push(card);
            await sidebar.waitFor((sel) => document.querySelector(sel)?.getAttribute('aria-disabled') !== 'true', `[data-approval] button[data-answer="${hop ? 'deny' : 'once'}"]`);
            const id = await sidebar.evaluate(() => document.querySelector('[data-approval]')?.getAttribute('aria-labelledby'));
            await sidebar.raw.click(`[data-approval] button[data-answer="${hop ? 'deny' : 'once'}"]`);
            // Until that card is gone (the next one may already be there).
            await sidebar.waitFor((cardId) => document.querySelector('[data-approval]')?.getAttribute('aria-labelledby') !== cardId, id, { timeout: 10_000 });
            continue;
          }
          if (model.requests.length >= 3 && (await sidebar.find('button', 'Send', { timeout: 300 }).then(() => true, () => false))) break;
          await new Promise((r) => setTimeout(r, 150));
        }
        await sidebar.waitForText('The tool answered:');
        await waitForIdle(sidebar);
        const moved = toolResult(model.requests[1]);
        assert.equal(moved.final_url, site.url('/article.html'));
        assert.match(moved.content, /^# How tide pools survive the winter/);
        assert.equal(hopCards.length, 1, 'the hop into another local address was asked about');
        // Why: the user's own network, or (the first fetch read a local page, a private read) the outbound rule first.
        assert.match(hopCards[0], /your own network|has read private data/);
        assert.match(contentText(model.requests[2].last), /declined/);
        assert.deepEqual(elsewhere.requests, [], 'the local address behind the redirect was never requested');
        await sidebar.close();
      } finally {
        await elsewhere.close();
      }
    });

    test('get_tab_content reads content rendered by JavaScript after load, and the answer quotes it', async () => {
      const page = await h.newPage(site.url('/dynamic.html'));
      await page.waitForText('The Otters lead the Herons 3 to 1');
      model.reset();
      model.setScript((req) => {
        if (req.last?.role !== 'tool') return { toolCalls: [{ name: 'list_tabs', arguments: { url_pattern: 'dynamic\\.html' } }] };
        if (lastCalledTool(req) === 'list_tabs') {
          const tab = toolResult(req).find((t) => t.url.includes('/dynamic.html'));
          return { toolCalls: [{ name: 'get_tab_content', arguments: { tab_id: tab.tab_id } }] };
        }
        return defaultScript(req);
      });
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'What does the scores tab say?');
      await sidebar.waitForText('The tool answered:');
      await waitForIdle(sidebar);
      const result = toolResult(model.requests[2]);
      assert.equal(result.url, site.url('/dynamic.html'));
      assert.equal(result.title, 'Live scores — Test Arena');
      assert.match(result.content, /The Otters lead the Herons 3 to 1 after the second period/);
      assert.match(result.content, /\| Otters \| 3 \|/);
      assert.match(result.content, /- Next game: Friday at 19:00/);
      assert.ok(!result.content.includes('Staff note'), 'hidden by CSS: left out');
      assert.ok(!result.content.includes('Arena menu'), 'navigation left out');
      assert.ok(!result.content.includes('Loading the scores'), 'the rendered DOM, not the served HTML');
      // used_selector names the part that was read: it finds that part in the page.
      assert.ok(result.used_selector);
      const found = await page.evaluate((sel) => document.querySelector(sel)?.textContent ?? '', result.used_selector);
      assert.match(found, /The Otters lead/);
      assert.match(await lastAnswer(sidebar), /The Otters lead the Herons 3 to 1/);
      await sidebar.evaluate(() => document.querySelector('details.tool[data-tool="get_tab_content"] summary')?.click());
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-tab-content'));
      model.setScript(defaultScript);
      await page.close();
      await sidebar.close();
    });

    test('get_tab_content: a selector narrows the reading, a prompt summarizes; an unmatched selector and an extension page are clear errors', async () => {
      const page = await h.newPage(site.url('/dynamic.html'));
      await page.waitForText('The Otters lead');
      const sidebar = await openSidebar(h);
      let step = 0;
      model.reset();
      model.setScript((req) => {
        // The summary request get_tab_content makes for its prompt: no tools offered.
        if (req.toolNames.length === 0) return { text: 'The Otters lead the Herons, 3 to 1.' };
        if (req.last?.role !== 'tool') return { toolCalls: [{ name: 'list_tabs', arguments: {} }] };
        step++;
        const tabs = step === 1 ? toolResult(req) : null;
        if (step === 1) {
          const scores = tabs.find((t) => t.url.includes('/dynamic.html'));
          const own = tabs.find((t) => t.url.startsWith(h.origin));
          return {
            toolCalls: [
              { name: 'get_tab_content', arguments: { tab_id: scores.tab_id, selector: 'table' } },
              { name: 'get_tab_content', arguments: { tab_id: scores.tab_id, selector: '#no-such-thing' } },
              { name: 'get_tab_content', arguments: { tab_id: own.tab_id } },
              { name: 'get_tab_content', arguments: { tab_id: scores.tab_id, prompt: 'Who is leading?' } },
            ],
          };
        }
        return { text: 'Done reading.' };
      });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Read parts of my tabs');
      await sidebar.waitForText('Done reading.');
      await waitForIdle(sidebar);
      const toolMessages = model.requests.at(-1).messages.filter((m) => m.role === 'tool').map((m) => contentText(m));
      const table = JSON.parse(toolMessages[1]);
      assert.equal(table.used_selector, 'table');
      assert.match(table.content, /\| Team \| Goals \|/);
      assert.ok(!table.content.includes('The Otters lead'), 'only the table');
      assert.match(toolMessages[2], /The selector "#no-such-thing" matches nothing on this page/);
      assert.match(toolMessages[3], /cannot be read: it is a page of a browser extension/);
      const summary = JSON.parse(toolMessages[4]);
      assert.equal(summary.summarized, true);
      assert.equal(unwrapUntrusted(summary.content)?.content, 'The Otters lead the Herons, 3 to 1.');
      const summaryRequest = model.requests.find((r) => r.toolNames.length === 0);
      assert.match(contentText(summaryRequest.lastUser), /Instructions: Who is leading\?/);
      assert.match(contentText(summaryRequest.lastUser), /The Otters lead the Herons 3 to 1 after the second period/);
      model.setScript(defaultScript);
      await page.close();
      await sidebar.close();
    });
  });
}

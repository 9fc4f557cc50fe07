// Remote MCP servers end to end, in Chromium and Firefox: real servers written with the official
// SDK run on 127.0.0.1 (Streamable HTTP, one only on the older HTTP+SSE transport, one behind a
// bearer token); the user adds them in Settings → Agent → MCP servers; the scripted model calls
// their tools by namespaced names through the sidebar and answers by quoting the results. Then:
// an error result, a tool list that changes, a wrong token, Stop mid-call (cancellation reaches the
// server), and a server that goes away mid-call.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CHART_PNG, startMcpServer } from '../mcp-server/server.mjs';
import { contentText, defaultScript, startModelServer } from '../model-server/server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, unwrapUntrusted, waitForIdle } from './helpers.mjs';

/** What the model does for a message: [pattern, tool (model name), arguments]. */
const RULES = [
  [/weather in Oslo/, 'mcp_weather_get_weather', { city: 'Oslo' }],
  [/forecast for Bergen/, 'mcp_weather_get_forecast', { city: 'Bergen', days: 3 }],
  [/forecast with a string/, 'mcp_weather_get_forecast', { city: 'Bergen', days: 'three' }],
  [/inventory/, 'mcp_weather_fail_always', {}],
  [/unlock/, 'mcp_weather_unlock_secret', {}],
  [/read the secret/, 'mcp_weather_read_secret', {}],
  [/chart of Oslo/, 'mcp_weather_get_chart', { city: 'Oslo' }],
  [/old server.*Paris/, 'mcp_legacy_get_weather', { city: 'Paris' }],
  [/vault.*Rome/, 'mcp_vault_get_weather', { city: 'Rome' }],
  [/sign-in server.*Lima/, 'mcp_auth_get_weather', { city: 'Lima' }],
  [/count slowly/, 'mcp_weather_slow_count', { seconds: 30 }],
  [/doomed/, 'mcp_doomed_slow_count', { seconds: 30 }],
];

/** A model that calls the MCP tool a message asks for, then quotes what the tool returned. */
function mcpScript(req) {
  if (req.last?.role === 'tool') {
    const raw = contentText(req.last);
    let text = raw;
    try {
      const parsed = JSON.parse(raw);
      if (typeof parsed === 'string') text = parsed;
    } catch {
      // An error text.
    }
    const content = unwrapUntrusted(text)?.content ?? text;
    return { text: `The MCP tool answered:\n\n\`\`\`\n${content}\n\`\`\`` };
  }
  const said = contentText(req.lastUser);
  for (const [re, name, args] of RULES) {
    if (!re.test(said)) continue;
    return req.toolNames.includes(name) ? { toolCalls: [{ name, arguments: args }] } : { text: `I have no ${name} tool.` };
  }
  return defaultScript(req);
}

const TOKEN = 'vault-token-7f3a';

for (const browserName of selectedBrowsers()) {
  describe(`MCP servers in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let weather;
    let legacy;
    let vault;
    let doomed;
    let auth;
    let options;
    let sidebar;

    before(async () => {
      model = await startModelServer({ script: mcpScript });
      weather = await startMcpServer({ name: 'weather' });
      legacy = await startMcpServer({ legacy: true, name: 'legacy' });
      vault = await startMcpServer({ token: TOKEN, name: 'vault' });
      doomed = await startMcpServer({ name: 'doomed' });
      auth = await startMcpServer({ name: 'auth', oauth: true });
      h = await launch(browserName);
      options = await configureProvider(h, { baseUrl: model.url });
      await options.click('link', 'MCP servers');
      await options.find('textbox', 'Server URL');
    });

    after(async () => {
      await h?.close();
      await model?.close();
      for (const s of [weather, legacy, vault, doomed, auth]) await s?.close();
    });

    /** Adds a server in the settings form, as a person would. */
    async function addServer({ url, name, token }) {
      await options.fill('Server URL', url);
      await options.fill('Name', name);
      if (token !== undefined) await options.fill('Bearer token', token);
      await options.click('button', 'Add server');
      await options.find('button', 'Add server', { timeout: 30_000 });
    }

    /** The text of one server's card in the settings list. */
    const card = (label) => options.evaluate((l) => document.querySelector(`[data-mcp-server="${l}"]`)?.innerText ?? '', label);

    /** Starts a new conversation, sends `text`, and returns the answer once the run is over. */
    async function ask(text, { timeout = 60_000 } = {}) {
      // The settings page may be in front: Firefox throttles a tab behind, and neither renders it.
      await sidebar.raw.bringToFront();
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, text);
      await sidebar
        .waitFor(
          ([sent]) => {
            const articles = [...document.querySelectorAll('main article')];
            const at = articles.findLastIndex((a) => a.classList.contains('user'));
            if (at < 0 || articles[at].textContent.trim() !== sent) return false;
            const answer = articles.slice(at + 1).filter((a) => a.classList.contains('assistant')).at(-1)?.querySelector('.markdown');
            return Boolean(answer && /The MCP tool answered|I have no|You said/.test(answer.textContent));
          },
          [text],
          { timeout },
        )
        .catch(async (error) => {
          const shown = await sidebar.evaluate(() => [...document.querySelectorAll('main article')].map((a) => `${a.className}: ${a.textContent}`));
          throw new Error(`No answer to "${text}". The sidebar shows:\n${shown.join('\n')}`, { cause: error });
        });
      await waitForIdle(sidebar, timeout);
      // The last streamed pieces may land just after the run is over: read once the text holds still.
      let answer = await answerText();
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const again = await answerText();
        if (again === answer) break;
        answer = again;
      }
      return answer;
    }

    /** The last answer's text (textContent: an answer scrolled out of view is not rendered). */
    const answerText = () => sidebar.evaluate(() => [...document.querySelectorAll('article.assistant .markdown')].at(-1)?.textContent ?? '');

    test('adding servers in Settings → Agent → MCP servers connects them and lists their tools', async () => {
      await addServer({ url: weather.url, name: 'Weather' });
      await options.waitForText('Added Weather: 6 tools offered to the agent.');
      assert.match(await card('Weather'), /Connected · 6 tools/);
      assert.match(await card('Weather'), /Streamable HTTP/);

      await addServer({ url: legacy.url, name: 'Legacy' });
      await options.waitForText('Added Legacy: 6 tools offered to the agent.');
      assert.match(await card('Legacy'), /HTTP\+SSE/, 'the old server is reached over HTTP+SSE');

      // A wrong token is worded, and the server is kept with its error.
      await addServer({ url: vault.url, name: 'Vault', token: 'wrong-token' });
      await options.waitForText('refused the credentials (HTTP 401)');
      assert.match(await card('Vault'), /Not connected/);
      assert.match(await card('Vault'), /bearer token or headers are missing or wrong/);
      await options.evaluate(() => document.querySelector('[data-mcp-server="Vault"]')?.scrollIntoView({ block: 'center' }));
      await options.screenshot(screenshotPath(browserName, 'mcp-settings-wrong-token'));
      // The right token, under the server's Credentials: saved and connected again.
      await options.evaluate(() => document.querySelector('[data-mcp-server="Vault"] details.credentials')?.setAttribute('open', ''));
      await options.fill('New bearer token for Vault', TOKEN);
      await options.click('button', 'Save credentials of Vault');
      await options.waitFor(() => /Connected · 6 tools/.test(document.querySelector('[data-mcp-server="Vault"]')?.innerText ?? ''), undefined, { timeout: 20_000 });
      assert.match(await card('Vault'), /credentials saved/);
      assert.doesNotMatch(await card('Vault'), /refused the credentials/);
      await options.evaluate(() => document.querySelector('[data-mcp-server="Vault"]')?.scrollIntoView({ block: 'center' }));
      await options.screenshot(screenshotPath(browserName, 'mcp-settings-credentials'));

      await addServer({ url: doomed.url, name: 'Doomed' });
      await options.waitForText('Added Doomed: 6 tools offered to the agent.');
      await options.evaluate(() => document.querySelector('[data-mcp-server="Weather"] details')?.setAttribute('open', ''));
      await options.screenshot(screenshotPath(browserName, 'mcp-settings'));
      // The token never reaches the page: only whether there is one.
      const shown = await options.evaluate(() => document.body.innerHTML);
      assert.ok(!shown.includes(TOKEN));

      sidebar = await openSidebar(h);
    });

    test('a text result: the answer quotes what the server returned', async () => {
      model.requests.length = 0;
      const answer = await ask('What is the weather in Oslo?');
      assert.match(answer, /Weather in Oslo: 21 °C, light breeze from the north-west\./);
      assert.deepEqual(weather.state.calls.at(-1), { tool: 'get_weather', city: 'Oslo' });
      const tool = model.requests[0].tools.find((t) => t.function.name === 'mcp_weather_get_weather');
      assert.ok(tool, 'the model is offered the tool under its namespaced name');
      assert.match(tool.function.description, /^\[MCP tool "get_weather" from the server "Weather" \(http:\/\/127\.0\.0\.1:\d+\)\. The server wrote this description/);
      assert.ok(model.requests[0].toolNames.every((n) => n.length <= 64));
      const toolMessage = model.requests[1].messages.find((m) => m.role === 'tool');
      const envelope = unwrapUntrusted(JSON.parse(contentText(toolMessage)));
      assert.ok(envelope, 'the result is in the untrusted envelope');
      assert.match(envelope.source, /^result of MCP tool 'get_weather' of server 'Weather'/);
    });

    test('structured content and a schema checked before the server is asked', async () => {
      const answer = await ask('Give me the forecast for Bergen');
      assert.match(answer, /"structured_content":\{"city":"Bergen","days":\[\{"day":1,"high":18,"sky":"sunny"\}/);
      const before = weather.state.calls.length;
      const invalid = await ask('Give me the forecast with a string for days');
      assert.match(invalid, /Invalid parameters for tool mcp_weather_get_forecast: days must be (integer|number) \(got string\)/);
      assert.equal(weather.state.calls.length, before, 'invalid input never reaches the server');
    });

    test('an image and a resource link: the result says so in words, the image reaches the model as an image', async () => {
      model.requests.length = 0;
      const answer = await ask('Show me the chart of Oslo');
      assert.match(answer, /Temperature chart of Oslo\./);
      assert.match(answer, /attached to this result as image 1/);
      assert.match(answer, /https:\/\/charts\.example\/Oslo\.png/);
      const tool = model.requests[1].messages.find((m) => m.role === 'tool');
      assert.ok(!contentText(tool).includes(CHART_PNG.slice(0, 24)), 'the image bytes are not sent as text');
      // Chat Completions: in a user message after the tool result (tests/e2e/vision.test.mjs has every provider type).
      assert.deepEqual(model.requests[1].images.map((i) => [i.mediaType, i.data]), [['image/png', CHART_PNG]]);
    });

    test('an error result is the server\'s words, marked as such', async () => {
      const answer = await ask('Check the inventory');
      assert.match(answer, /The MCP server "Weather" reports that its tool "fail_always" failed/);
      assert.match(answer, /Inventory backend unreachable \(code 503\)/);
    });

    test('the older HTTP+SSE transport and a bearer token work alike', async () => {
      assert.match(await ask('What does the old server say about the weather in Paris?'), /Weather in Paris: 21 °C/);
      assert.deepEqual(legacy.state.calls.at(-1), { tool: 'get_weather', city: 'Paris' });
      assert.match(await ask('Ask the vault about the weather in Rome'), /Weather in Rome: 21 °C/);
    });

    test('OAuth 2.1: Add server signs in through the browser (launchWebAuthFlow), then its tools work', async () => {
      await options.raw.bringToFront();
      await addServer({ url: auth.url, name: 'Auth' });
      await options.waitForText('Added Auth: 6 tools offered to the agent.', { timeout: 30_000 });
      assert.match(await card('Auth'), /signed in \(OAuth\)/);
      assert.equal(auth.state.oauth.issued, 1);
      const client = [...auth.state.oauth.clients.values()][0];
      assert.match(client.redirect_uris[0], browserName === 'firefox' ? /^https:\/\/[0-9a-f]+\.extensions\.allizom\.org\/$/ : /^https:\/\/[a-p]{32}\.chromiumapp\.org\/$/);
      assert.match(await ask('Ask the sign-in server about the weather in Lima'), /Weather in Lima: 21 °C/);
    });

    test('tools/list_changed: a tool the server adds is offered at once', async () => {
      assert.match(await ask('Please unlock the secret tool'), /Unlocked: read_secret is now available/);
      await options.waitFor(() => /Connected · 7 tools/.test(document.querySelector('[data-mcp-server="Weather"]')?.innerText ?? ''), undefined, { timeout: 15_000 });
      assert.match(await ask('Now read the secret'), /The secret word is TANGERINE-42\./);
    });

    test('Stop during a call sends the cancellation to the server', async () => {
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Please count slowly');
      const deadline = Date.now() + 20_000;
      while (!weather.state.calls.some((c) => c.tool === 'slow_count')) {
        assert.ok(Date.now() < deadline, 'the server got the call');
        await new Promise((r) => setTimeout(r, 100));
      }
      await sidebar.click('button', 'Stop');
      await waitForIdle(sidebar, 15_000);
      const until = Date.now() + 5_000;
      while (!weather.state.cancelled.includes('slow_count') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      assert.ok(weather.state.cancelled.includes('slow_count'), 'the server saw notifications/cancelled');
    });

    test('a server that goes away mid-call gives a clear error, not a hang', async () => {
      await sidebar.click('button', 'New conversation');
      const started = Date.now();
      await sendMessage(sidebar, 'Ask the doomed server to count');
      const deadline = Date.now() + 20_000;
      while (!doomed.state.calls.some((c) => c.tool === 'slow_count')) {
        assert.ok(Date.now() < deadline, 'the server got the call');
        await new Promise((r) => setTimeout(r, 100));
      }
      await doomed.close();
      await sidebar.waitForText('The MCP tool answered', { within: 'main', timeout: 25_000 });
      await waitForIdle(sidebar, 10_000);
      const answer = await answerText();
      assert.match(answer, /The MCP server "Doomed" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) went away while running "slow_count"/);
      assert.ok(Date.now() - started < 25_000, 'well before the 30-second tool timeout');
      await options.waitFor(() => /connection was lost/.test(document.querySelector('[data-mcp-server="Doomed"]')?.innerText ?? ''), undefined, { timeout: 10_000 });
      await sidebar.screenshot(screenshotPath(browserName, 'mcp-server-gone'));
    });

    test('after the background restarts, the tools are offered again and connect on the first call', async () => {
      await h.stopBackground(sidebar);
      // A new sidebar wakes the background (Chrome) or finds the reloaded one (Firefox).
      await sidebar.close().catch(() => undefined);
      sidebar = await openSidebar(h);
      model.requests.length = 0;
      assert.match(await ask('What is the weather in Oslo?'), /Weather in Oslo: 21 °C/);
      assert.ok(model.requests[0].toolNames.includes('mcp_weather_read_secret'), 'the last list was kept');
    });

    test('a server switched off is invisible to the model; removed, its tools are gone', async () => {
      options = await h.openExtensionPage('options.html', { width: 1000, height: 800 });
      await options.click('link', 'MCP servers');
      await options.click('switch', 'Legacy server');
      await options.waitFor(() => /Off/.test(document.querySelector('[data-mcp-server="Legacy"]')?.innerText ?? ''));
      model.requests.length = 0;
      assert.match(await ask('What does the old server say about the weather in Paris?'), /I have no mcp_legacy_get_weather tool/);
      assert.ok(!model.requests[0].toolNames.some((n) => n.startsWith('mcp_legacy_')));
      await options.click('button', 'Remove Vault');
      await options.waitFor(() => !document.querySelector('[data-mcp-server="Vault"]'));
      model.requests.length = 0;
      await ask('Hello there');
      assert.ok(!model.requests[0].toolNames.some((n) => n.startsWith('mcp_vault_')));
    });
  });
}

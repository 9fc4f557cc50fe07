// Every provider type end to end, in Chromium and Firefox: a profile made on the options page (by
// the Provider select, Base URL, API key and Model fields and Save), then a chat in the sidebar in
// which the model calls list_tabs through that provider's real wire format (scripted servers in
// tests/model-server/: OpenAI SSE, Anthropic SSE events, Gemini's SSE stream, Ollama's NDJSON).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { startGeminiServer } from '../model-server/gemini.mjs';
import { startOllamaServer } from '../model-server/ollama.mjs';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { allowLocalOrigins, choose, configureProvider, lastAnswer, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';

const KEY = 'sk-provider-test';

/** A page of about 20 KB of article text. */
function bigPage() {
  const paragraphs = Array.from(
    { length: 140 },
    (_, i) => `<p>Paragraph ${i + 1} of the long article: tide pools keep their animals through winter storms, and measurement ${i * 17} was taken at dawn near the north rocks.</p>`,
  );
  return `<!doctype html><html><head><title>A long article</title></head><body><main><article><h1>A long article</h1>${paragraphs.join('')}</article></main></body></html>`;
}

for (const browserName of selectedBrowsers()) {
  describe(`providers in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let site;
    const servers = {};

    before(async () => {
      servers.openai = await startModelServer({ apiKey: KEY });
      servers.anthropic = await startAnthropicServer({ apiKey: KEY });
      servers.gemini = await startGeminiServer({ apiKey: KEY });
      servers.ollama = await startOllamaServer({ contextLength: 16384 });
      // A small local model without tool calling, and a small model with a 4,000-token window.
      // (An Ollama that does not list capabilities: the refusal of `tools` itself must tell.)
      servers.noTools = await startOllamaServer({ noTools: true, capabilities: false, models: ['scripted-small:latest'] });
      servers.small = await startModelServer();
      site = await startFixtureServer({ pages: { '/big.html': { type: 'text/html; charset=utf-8', body: bigPage() } } });
      h = await launch(browserName);
      await h.newPage(site.url('/alpha.html'));
    });

    after(async () => {
      await h?.close();
      for (const server of Object.values(servers)) await server.close();
      await site?.close();
    });

    const CASES = [
      { name: 'OpenAI-compatible', server: 'openai', model: 'scripted-model', key: true },
      { name: 'Anthropic', server: 'anthropic', model: 'claude-scripted', key: true },
      { name: 'Google Gemini', server: 'gemini', model: 'gemini-scripted', key: true },
      { name: 'Ollama', server: 'ollama', model: 'scripted-model', key: false },
    ];

    for (const c of CASES) {
      test(`${c.name}: picked on the options page, a chat with a tool call`, async () => {
        const server = servers[c.server];
        server.reset();
        const options = await configureProvider(h, { provider: c.name, baseUrl: server.url, apiKey: c.key ? KEY : '', model: c.model });
        // The provider's own model list, fetched through the background.
        await options.click('button', 'Load models');
        await options.waitForText(/models? listed/);
        await options.screenshot(screenshotPath(browserName, `options-provider-${c.server}`));
        await options.close();

        server.queue([{ text: 'Let me look at your tabs.', toolCalls: [{ name: 'list_tabs', arguments: {} }] }]);
        if (c.server === 'anthropic') {
          // The final answer reads most of its prompt from the cache (Anthropic's own usage fields).
          const queued = server.setScript(async (request) => {
            const reply = await queued(request);
            return reply.toolCalls?.length ? reply : { ...reply, usage: { prompt_tokens: 34, completion_tokens: 5, cache_read_input_tokens: 1200 } };
          });
        }
        const sidebar = await openSidebar(h);
        await sidebar.click('button', 'New conversation');
        await sendMessage(sidebar, 'Which tabs do I have open?');
        await sidebar.waitForText('list_tabs', { within: 'main' });
        await sidebar.waitForText('The tool answered:');
        await sidebar.waitForText('Sidequest test page — Alpha', { within: 'article.assistant:last-of-type .markdown' });
        await waitForIdle(sidebar);
        assert.match(await lastAnswer(sidebar), /127\.0\.0\.1/);
        await sidebar.waitForText(c.model, { within: 'header' });

        // The requests went to this provider, the tool result went back in its format.
        const chats = server.requests;
        assert.equal(chats.length, 2, 'two model requests');
        assert.ok(chats[0].toolNames.includes('list_tabs'));
        const toolResult = chats[1].messages.find((m) => m.role === 'tool');
        assert.ok(toolResult, 'the second request carries the tool result');
        assert.match(toolResult.content, /Sidequest test page — Alpha/);
        if (c.server === 'anthropic') {
          assert.equal(chats[0].headers['anthropic-dangerous-direct-browser-access'], 'true');
          // Cache breakpoints (issue 40): the last tool, the instructions, the conversation so far.
          const ephemeral = { type: 'ephemeral' };
          assert.deepEqual(chats[0].body.tools.at(-1).cache_control, ephemeral);
          assert.ok(chats[0].body.tools.slice(0, -1).every((t) => !t.cache_control), 'only the last tool is marked');
          assert.deepEqual(chats[0].body.system.at(-1).cache_control, ephemeral);
          assert.deepEqual(chats[0].body.messages.at(-1).content.at(-1).cache_control, ephemeral);
          const result = chats[1].body.messages.at(-1).content.at(-1);
          assert.equal(result.type, 'tool_result');
          assert.deepEqual(result.cache_control, ephemeral);
          // The sidebar's Usage shows the cached share of the input.
          await sidebar.evaluate(() => [...document.querySelectorAll('article.assistant .details .link')].filter((b) => b.textContent === 'Usage').at(-1).click());
          await sidebar.waitForText('1,234 tokens in (1,200 cached) · 5 out');
        } else {
          assert.ok(!JSON.stringify(chats.map((r) => r.body)).includes('cache_control'), 'no cache markers but for Anthropic');
        }
        if (c.server === 'ollama') assert.deepEqual(chats[0].body.options, { num_ctx: 16384 });
        if (c.key && c.server !== 'openai') {
          const header = c.server === 'anthropic' ? 'x-api-key' : 'x-goog-api-key';
          assert.equal(chats[0].headers[header], KEY);
        }
        await sidebar.screenshot(screenshotPath(browserName, `sidebar-provider-${c.server}`));
        await sidebar.close();
      });
    }

    test("the sidebar's model badge switches one conversation's model, from the lists or typed", async () => {
      servers.anthropic.reset();
      servers.ollama.reset();
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      // The default profile is the last one saved (Ollama).
      await sidebar.click('button', 'Model: scripted-model');
      await sidebar.find('textbox', 'Search models');
      await sidebar.waitForText('claude-scripted');
      await sidebar.waitForText('gemini-scripted');
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-model-picker-open'));
      await sidebar.fill('Search models', 'claude');
      await sidebar.click('button', 'claude-scripted');
      await sidebar.find('button', 'Model: claude-scripted');
      await sendMessage(sidebar, 'Hello Claude');
      await sidebar.waitForText('You said: Hello Claude');
      await waitForIdle(sidebar);
      assert.equal(servers.anthropic.requests.length, 1, 'the picked model answered');
      assert.equal(servers.anthropic.requests[0].body.model, 'claude-scripted');
      assert.equal(servers.ollama.requests.length, 0);

      // A name no list offers: typed, it goes to the conversation's profile (Anthropic now).
      await sidebar.click('button', 'Model: claude-scripted');
      await sidebar.fill('Search models', 'claude-typed-by-hand');
      await sidebar.click('button', 'Use “claude-typed-by-hand”', { exact: false });
      await sidebar.find('button', 'Model: claude-typed-by-hand');
      await sendMessage(sidebar, 'Hello again');
      await sidebar.waitForText('You said: Hello again');
      await waitForIdle(sidebar);
      assert.equal(servers.anthropic.requests.at(-1).body.model, 'claude-typed-by-hand');
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-model-picker'));

      // Another conversation keeps the default model; this one keeps its pick after a reload.
      await sidebar.click('button', 'New conversation');
      await sidebar.find('button', 'Model: scripted-model');
      await sendMessage(sidebar, 'Hello default');
      await sidebar.waitForText('You said: Hello default');
      await waitForIdle(sidebar);
      assert.equal(servers.ollama.requests.length, 1);
      await sidebar.close();
    });

    test('errors are worded the same for every provider', async () => {
      const sidebar = await openSidebar(h);
      // The Ollama profile is the default now (the last one saved).
      servers.ollama.reset();
      servers.ollama.queue([{ error: 'not_found' }]);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Hello unknown model');
      await sidebar.waitForText('does not know this model');
      await sidebar.waitForText('not found, try pulling it first');
      await sidebar.close();
    });

    test('a key is never sent over plain http to another computer', async () => {
      const options = await h.openExtensionPage('options.html', { width: 1000, height: 900 });
      await options.click('link', 'Model provider');
      await options.waitFor(() => Boolean(document.querySelector('#base-url')?.value));
      await choose(options, 'Profile', 'New profile…');
      await choose(options, 'Provider', 'OpenAI-compatible');
      await options.fill('Base URL', 'http://models.example.com/v1');
      await options.fill('API key', KEY);
      await options.fill('Model', 'gpt-test');
      await options.click('button', 'Save');
      await options.waitForText('will not send the API key over plain http://');
      await options.close();
    });
    test('a model without tool calling: prompted tool calls, said once in the conversation', async () => {
      const server = servers.noTools;
      server.setScript((req) => {
        const last = req.messages.at(-1);
        if (contentText(last).startsWith('Tool result')) return { text: `The tool answered:\n\n${contentText(last).replace(/^Tool result[^\n]*\n/, '')}` };
        if (contentText(req.messages[0]).includes('### list_tabs')) {
          return { text: 'I will look.\n```tool_call\n{"name": "list_tabs", "arguments": {},}\n```', chunkSize: 6 };
        }
        return { text: 'I was told of no tools.' };
      });
      const options = await configureProvider(h, { provider: 'Ollama', baseUrl: server.url, model: 'scripted-small' });
      await options.close();
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Which tabs do I have open?');
      await sidebar.waitForText('has no native tool calling');
      await sidebar.waitForText('list_tabs', { within: 'main' });
      await sidebar.waitForText('Sidequest test page — Alpha', { within: 'article.assistant:last-of-type .markdown' });
      await waitForIdle(sidebar);
      await sidebar.waitForText('I will look.');
      assert.ok(!(await sidebar.text('main')).includes('"name": "list_tabs"'), 'the call block is not shown as text');
      // The first request offered tools and was refused; the next ones described them in the prompt.
      assert.ok(server.requests[0].body.tools?.length > 0);
      assert.ok(server.requests.slice(1).every((r) => !r.body.tools?.length));
      assert.match(contentText(server.requests[1].messages[0]), /### list_tabs/);
      // Said once: a second message does not say it again.
      await sendMessage(sidebar, 'And now?');
      await sidebar.waitFor(() => document.querySelector('main').innerText.split('The tool answered:').length - 1 >= 2);
      await waitForIdle(sidebar);
      const notes = (await sidebar.text('main')).split('has no native tool calling').length - 1;
      assert.equal(notes, 1);
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-prompted-tools'));
      await sidebar.close();
    });

    // A call runs once the answer names it: the first of two calls is done (and shown) while the
    // model is still writing the second, 400 ms an event (Anthropic gives a call at its block's
    // end; for the OpenAI-compatible package, Sidequest gives it when the next call starts). Before
    // the 4,000-token test, which switches the Tabs plugin off.
    for (const c of [CASES[0], CASES[1]]) {
      test(`${c.name}: the first of two calls runs while the model still writes the second`, async () => {
        const server = servers[c.server];
        server.reset();
        (await configureProvider(h, { provider: c.name, baseUrl: server.url, apiKey: KEY, model: c.model })).close();
        server.queue([
          { toolCalls: [{ name: 'list_tabs', arguments: {} }, { name: 'list_tabs', arguments: { title_pattern: 'Alpha' } }], delayMs: 400 },
          { text: 'Both lists are in.' },
        ]);
        const sidebar = await openSidebar(h);
        await sidebar.click('button', 'New conversation');
        await sendMessage(sidebar, 'List my tabs twice.');
        await sidebar.waitForText('Done:', { within: 'main', timeout: 20_000 });
        const seenAt = performance.now();
        await sidebar.screenshot(screenshotPath(browserName, `sidebar-early-call-${c.server}`));
        await sidebar.waitForText('Both lists are in.');
        await waitForIdle(sidebar);
        // The answer's last event was written well after the first call's result was on screen.
        const lastByteAt = server.requests[0].lastByteAt;
        assert.ok(seenAt < lastByteAt - 800, `the first call was done ${(lastByteAt - seenAt).toFixed(0)} ms before the answer's end (expected over 800)`);
        const results = server.requests[1].messages.filter((m) => m.role === 'tool');
        assert.equal(results.length, 2, 'both results went back');
        await sidebar.close();
      });
    }

    test("a conversation outgrows a 4,000-token model: 30 web_fetch steps of 20 KB, and it keeps working", { timeout: 240_000 }, async () => {
      const LIMIT = 4000;
      const STEPS = 30;
      const stats = { steps: 0, tooLong: 0, summaries: 0, largest: 0 };
      const url = site.url('/big.html');
      assert.ok(bigPage().replace(/<[^>]+>/g, '').length > 20_000, 'the page is 20 KB of text');
      servers.small.setScript((req) => {
        const tokens = Math.ceil(JSON.stringify({ m: req.body.messages, t: req.body.tools ?? [] }).length / 4);
        stats.largest = Math.max(stats.largest, tokens);
        if (tokens > LIMIT) {
          stats.tooLong++;
          return { status: 400, errorBody: { error: { message: `This model's maximum context length is ${LIMIT} tokens. However, your messages resulted in ${tokens} tokens.`, code: 'context_length_exceeded' } } };
        }
        if (!req.tools.length && /summarize/i.test(contentText(req.messages[0]))) {
          stats.summaries++;
          return { text: `The user asked to read the long article again and again; it was read ${stats.steps} times.` };
        }
        if (stats.steps < STEPS) {
          stats.steps++;
          // Each read at an address of its own (the same page): the same call with the same result
          // a third time would end the run (the loop guard, core/agent/loop-guard.ts).
          return { text: `Reading it, time ${stats.steps}.`, toolCalls: [{ name: 'web_fetch', arguments: { url: `${url}?read=${stats.steps}` } }] };
        }
        return { text: `Done: read it ${STEPS} times.` };
      });

      // A small model's instructions and tools must fit too: only the Web plugin stays on.
      const settings = await h.openExtensionPage('options.html#plugins', { width: 1000, height: 900 });
      await settings.waitForText('Sub-agents');
      for (const label of ['Tabs plugin', 'Workspace plugin', 'Ask the user plugin', 'Tasks plugin', 'Scripts plugin', 'Sub-agents plugin', 'Page tools plugin', 'Page actions plugin']) {
        await settings.click('switch', label);
        await settings.waitFor((name) => document.querySelector(`[aria-label="${name}"]`)?.checked === false, label);
      }
      await settings.close();

      // The profile says the window (the provider does not): Advanced → Context window.
      const options = await h.openExtensionPage('options.html', { width: 1000, height: 900 });
      // The page is served on this machine: web_fetch reads local addresses only where allowed.
      await allowLocalOrigins(options, [new URL(url).origin]);
      await options.click('link', 'Model provider');
      await options.waitFor(() => Boolean(document.querySelector('#base-url')?.value));
      await choose(options, 'Profile', 'New profile…');
      await choose(options, 'Provider', 'OpenAI-compatible');
      await options.fill('Base URL', servers.small.url);
      await options.fill('Model', 'small-model');
      await options.evaluate((limit) => {
        document.querySelector('details.advanced').open = true;
        const input = document.querySelector('#context-length');
        input.value = String(limit);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }, LIMIT);
      await options.click('button', 'Save');
      await options.waitForText('Saved.');
      await options.close();

      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Read the long article again and again, then say when you are done.');
      // 30 steps are more than the agent's step limit (25 model requests): the user continues the run.
      await sidebar.waitForText('reached its step limit', { timeout: 120_000 });
      await sidebar.click('button', 'Continue');
      await sidebar.waitForText(`Done: read it ${STEPS} times.`, { timeout: 120_000 });
      await waitForIdle(sidebar);
      assert.equal(stats.steps, STEPS);
      assert.equal(stats.tooLong, 0, 'no request went over the window');
      assert.ok(stats.summaries > 0, 'older turns were summarized');
      // (Off-screen messages are skipped by innerText: content-visibility. Read the DOM's text.)
      const all = await sidebar.evaluate(() => document.querySelector('main').textContent);
      assert.match(all, /summarized for the model/);
      assert.equal(all.split('Older tool results were shortened').length - 1, 1, 'said once');
      const cards = await sidebar.texts('details.tool');
      assert.equal(cards.length, STEPS, 'every tool step is in the conversation');
      await sidebar.screenshot(screenshotPath(browserName, 'sidebar-context-window'));
      // The full record stays: after a reload every result is there, whole.
      await sidebar.reload();
      await sidebar.waitForText(`Done: read it ${STEPS} times.`);
      // A long conversation shows its latest messages first; earlier ones come with Show earlier.
      for (let page = 0; page < 10 && (await sidebar.evaluate(() => document.querySelectorAll('details.tool').length)) < STEPS; page++) {
        // (Off screen at the top: clicked in the page, as scrolling up would load it.)
        await sidebar.evaluate(() => document.querySelector('.earlier button')?.click());
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      assert.equal(await sidebar.evaluate(() => document.querySelectorAll('details.tool').length), STEPS);
      await sidebar.close();
    });
  });
}

// Models see what the agent sees, in Chromium and Firefox: for every provider type, a tool that
// returns an image reaches the scripted model server as an image in that provider's real wire
// format (Chat Completions `image_url` in a user message after the tool result, Anthropic's
// `image` block in `tool_result`, Gemini's `inlineData` in the `functionResponse`, Ollama's
// `images`); a profile set to "Model sees images: No" gets a note and no image bytes; Gemini's
// thought signature goes back with its call.
//
// The image comes from an MCP server's tool (tests/mcp-server `get_chart`, a PNG), and from the
// page-actions `screenshot` of a page in a tab (a JPEG made in the background), for every type.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CHART_PNG, startMcpServer } from '../mcp-server/server.mjs';
import { startAnthropicServer } from '../model-server/anthropic.mjs';
import { startGeminiServer } from '../model-server/gemini.mjs';
import { startOllamaServer } from '../model-server/ollama.mjs';
import { contentText, defaultScript, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { choose, lastAnswer, openSidebar, sendMessage, tabIdOf, waitForIdle } from './helpers.mjs';

const KEY = 'sk-vision-test';
const TOOL = 'mcp_charts_get_chart';
const SIGNATURE = Buffer.from('signed by the scripted Gemini').toString('base64');

/** The tab `screenshot` should capture (set by the screenshot test), and the page in it. */
let shotTab;
let beforeShot = async () => {};
let afterShot = async () => {};

/** A model that asks for the chart (or a screenshot), then says what it was shown: images (by call) or the tool's words. */
async function visionScript(req) {
  if (req.last?.role === 'tool') {
    // The sidebar back in front (Firefox slows the timers of a tab behind others).
    await afterShot();
    if (req.images.length) return { text: `I see ${req.images.length} image(s): ${req.images.map((i) => i.mediaType).join(', ')}.` };
    return { text: `I see no image. The tool said: ${contentText(req.last).slice(0, 2000)}` };
  }
  // screenshot waits in the catalogue (issue 40): called by name, it runs all the same.
  if (/screenshot/.test(contentText(req.lastUser))) {
    // Only the tab in front of its window can be captured.
    await beforeShot();
    return { toolCalls: [{ name: 'screenshot', arguments: { tab_id: shotTab }, thoughtSignature: SIGNATURE }] };
  }
  if (/chart/.test(contentText(req.lastUser)) && req.toolNames.includes(TOOL)) {
    return { toolCalls: [{ name: TOOL, arguments: { city: 'Oslo' }, thoughtSignature: SIGNATURE }] };
  }
  return defaultScript(req);
}

for (const browserName of selectedBrowsers()) {
  describe(`tool images in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let charts;
    let options;
    const servers = {};

    before(async () => {
      servers.openai = await startModelServer({ apiKey: KEY, script: visionScript });
      servers.anthropic = await startAnthropicServer({ apiKey: KEY, script: visionScript });
      servers.gemini = await startGeminiServer({ apiKey: KEY, script: visionScript, signatures: true });
      servers.ollama = await startOllamaServer({ vision: true, script: visionScript });
      charts = await startMcpServer({ name: 'charts' });
      h = await launch(browserName);
      options = await h.openExtensionPage('options.html', { width: 1000, height: 900 });
      await options.click('link', 'MCP servers');
      await options.fill('Server URL', charts.url);
      await options.fill('Name', 'Charts');
      await options.click('button', 'Add server');
      await options.waitForText('Added Charts: 6 tools offered to the agent.');
    });

    after(async () => {
      await h?.close();
      for (const server of Object.values(servers)) await server.close();
      await charts?.close();
    });

    /** Makes a profile on the options page (it becomes the default), "Model sees images" as given. */
    async function addProfile({ provider, baseUrl, apiKey, model, images = 'Auto' }) {
      await options.raw.bringToFront();
      await options.click('link', 'Model provider');
      await options.waitFor(() => Boolean(document.querySelector('#base-url')?.value));
      await choose(options, 'Profile', 'New profile…');
      await choose(options, 'Provider', provider);
      await options.fill('Base URL', baseUrl);
      if (apiKey) await options.fill('API key', apiKey);
      await options.fill('Model', model);
      // Under the form's "Advanced" part.
      await options.evaluate(() => document.querySelector('details.advanced')?.setAttribute('open', ''));
      await choose(options, 'Model sees images', images);
      await options.click('button', 'Save');
      await options.waitForText('Saved.');
    }

    /** Asks for the chart in a new conversation; returns the answer. */
    async function askForChart(tag) {
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Show me the chart of Oslo');
      await sidebar.waitForText('I see', { within: 'article.assistant:last-of-type .markdown', timeout: 30_000 });
      await waitForIdle(sidebar);
      const answer = await lastAnswer(sidebar);
      await sidebar.screenshot(screenshotPath(browserName, `vision-${tag}`));
      await sidebar.close();
      return answer;
    }

    const CASES = [
      {
        name: 'OpenAI-compatible',
        server: 'openai',
        model: 'gpt-4o-mini',
        key: true,
        wire(body) {
          const at = body.messages.findIndex((m) => m.role === 'tool');
          const next = body.messages[at + 1];
          assert.equal(next.role, 'user', 'a user message right after the tool result');
          assert.match(next.content[0].text, /^Image 1 of 1 returned by the call \S+ \(mcp_charts_get_chart\):$/);
          assert.deepEqual(next.content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${CHART_PNG}` } });
          assert.ok(!contentText(body.messages[at]).includes(CHART_PNG.slice(0, 24)), 'no bytes in the tool message');
        },
        image(body) {
          const at = body.messages.findIndex((m) => m.role === 'tool');
          const next = body.messages[at + 1];
          assert.equal(next?.role, 'user', 'a user message right after the tool result');
          const parts = next.content.filter((p) => p.type === 'image_url');
          assert.equal(parts.length, 1, 'one image_url part');
          const url = /^data:([^;,]+);base64,(.*)$/.exec(parts[0].image_url.url);
          assert.ok(url, `a data: URL in image_url: ${parts[0].image_url.url.slice(0, 60)}`);
          return { mediaType: url[1], data: url[2] };
        },
      },
      {
        name: 'Anthropic',
        server: 'anthropic',
        model: 'claude-scripted',
        key: true,
        wire(body) {
          const result = body.messages.at(-1).content.find((b) => b.type === 'tool_result');
          assert.deepEqual(result.content.find((c) => c.type === 'image'), { type: 'image', source: { type: 'base64', media_type: 'image/png', data: CHART_PNG } });
        },
        image(body) {
          const result = body.messages.at(-1).content.find((b) => b.type === 'tool_result');
          const images = result.content.filter((c) => c.type === 'image');
          assert.equal(images.length, 1, 'one image block in the tool_result');
          assert.equal(images[0].source.type, 'base64');
          return { mediaType: images[0].source.media_type, data: images[0].source.data };
        },
      },
      {
        name: 'Google Gemini',
        server: 'gemini',
        model: 'gemini-scripted',
        key: true,
        wire(body) {
          const response = body.contents.at(-1).parts.find((p) => p.functionResponse).functionResponse;
          assert.deepEqual(response.parts, [{ inlineData: { mimeType: 'image/png', data: CHART_PNG } }]);
          // The call went back with the signature Gemini gave it.
          const call = body.contents.find((c) => c.role === 'model' && c.parts.some((p) => p.functionCall));
          assert.equal(call.parts.find((p) => p.functionCall).thoughtSignature, SIGNATURE);
        },
        image(body) {
          const response = body.contents.at(-1).parts.find((p) => p.functionResponse).functionResponse;
          assert.equal(response.parts?.length, 1, 'one part in the functionResponse');
          const { inlineData } = response.parts[0];
          assert.ok(inlineData, `inlineData in the functionResponse: ${JSON.stringify(response.parts[0]).slice(0, 200)}`);
          return { mediaType: inlineData.mimeType, data: inlineData.data };
        },
      },
      {
        name: 'Ollama',
        server: 'ollama',
        model: 'llava',
        key: false,
        wire(body) {
          const at = body.messages.findIndex((m) => m.role === 'tool');
          assert.equal(body.messages[at + 1].role, 'user');
          assert.deepEqual(body.messages[at + 1].images, [CHART_PNG]);
          assert.match(body.messages[at + 1].content, /returned by the call \S+ \(mcp_charts_get_chart\)/);
        },
        image(body) {
          const at = body.messages.findIndex((m) => m.role === 'tool');
          const next = body.messages[at + 1];
          assert.equal(next?.role, 'user', 'a user message right after the tool result');
          assert.match(next.content, /returned by the call \S+ \(screenshot\)/);
          assert.equal(next.images?.length, 1, 'one entry in images');
          // Ollama's images are bare base64; the type is the bytes' own.
          return { mediaType: 'image/jpeg', data: next.images[0] };
        },
      },
    ];

    for (const c of CASES) {
      test(`${c.name}: the tool's image reaches the model as an image`, async () => {
        const server = servers[c.server];
        server.reset();
        await addProfile({ provider: c.name, baseUrl: server.url, apiKey: c.key ? KEY : '', model: c.model });
        const answer = await askForChart(c.server);
        assert.match(answer, /I see 1 image\(s\): image\/png\./);
        assert.equal(server.requests.length, 2);
        c.wire(server.requests[1].body);
        assert.deepEqual(charts.state.calls.at(-1), { tool: 'get_chart', city: 'Oslo' });
      });
    }

    test('the screenshot of a tab reaches every provider type as a JPEG image', async () => {
      const site = await startFixtureServer({
        pages: { '/shot.html': { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Tide table</title><h1 style="font: 48px sans-serif">High tide 06:12</h1>' } },
      });
      try {
        const page = await h.newPage(site.url('/shot.html'));
        for (const c of CASES) {
          const server = servers[c.server];
          server.reset();
          await addProfile({ provider: c.name, baseUrl: server.url, apiKey: c.key ? KEY : '', model: c.model });
          const sidebar = await openSidebar(h);
          shotTab = await tabIdOf(sidebar, '/shot.html');
          beforeShot = () => page.raw.bringToFront();
          afterShot = () => sidebar.raw.bringToFront();
          await sidebar.click('button', 'New conversation');
          await sendMessage(sidebar, 'Take a screenshot of the tide table');
          await sidebar.waitForText('I see', { within: 'article.assistant:last-of-type .markdown', timeout: 45_000 });
          await waitForIdle(sidebar);
          assert.match(await lastAnswer(sidebar), /I see 1 image\(s\): image\/jpeg\./, c.name);
          // The screenshot in that provider's own image field, typed as a JPEG, and a whole JPEG
          // (its start and end markers).
          const image = c.image(server.requests[1].body);
          assert.equal(image.mediaType, 'image/jpeg', c.name);
          const bytes = Buffer.from(image.data, 'base64');
          assert.ok(bytes.length > 1000, `${c.name}: ${bytes.length} bytes`);
          assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], `${c.name}: the bytes start as a JPEG's`);
          assert.deepEqual([...bytes.subarray(-2)], [0xff, 0xd9], `${c.name}: the bytes end as a JPEG's`);
          await sidebar.close();
        }
        await page.close();
      } finally {
        beforeShot = async () => {};
        afterShot = async () => {};
        await site.close();
      }
    });

    test('a profile whose model sees no images: the result carries a note, no image bytes leave', async () => {
      for (const c of CASES) {
        const server = servers[c.server];
        server.reset();
        await addProfile({ provider: c.name, baseUrl: server.url, apiKey: c.key ? KEY : '', model: c.model, images: 'No' });
        const answer = await askForChart(`${c.server}-no-images`);
        assert.match(answer, /I see no image\./, c.name);
        assert.match(answer, /\[1 image left out: this model does not take images\]/, c.name);
        assert.ok(!JSON.stringify(server.requests[1].body).includes(CHART_PNG.slice(0, 24)), `${c.name}: no image bytes`);
      }
      // The choice is kept in the profile's form.
      const again = await h.openExtensionPage('options.html', { width: 1000, height: 900 });
      await again.click('link', 'Model provider');
      await again.waitFor(() => document.querySelector('#images')?.value === 'no');
      await again.screenshot(screenshotPath(browserName, 'vision-profile-no-images'));
      await again.close();
    });
  });
}

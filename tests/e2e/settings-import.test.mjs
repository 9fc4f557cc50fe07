// Importing a settings file, end to end in Chromium and Firefox, through Settings → Data as a person
// would: the file is shown before anything is written (Import / Cancel); a file that moves the
// provider profile to another server takes nothing of the saved key there (the other server
// receives no Authorization header); an address that arrives in a file (a provider on this
// machine, an MCP server on 127.0.0.1) is not exempt from the local-network ask until the user
// saves or confirms it in its own settings; Cancel writes nothing. Files are edited as text, with
// `__proto__` keys that would smuggle a key or a mark in if anything read them through prototypes.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMcpServer } from '../mcp-server/server.mjs';
import { defaultScript, startModelServer } from '../model-server/server.mjs';
import { runAxe } from './a11y.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, waitForIdle } from './helpers.mjs';

const KEY = 'sk-test-import-5e4d3c';
const SETTINGS_INPUT = 'input[type="file"][aria-label="Import settings file"]';
const PREVIEW = '[data-import-preview]';
const LOCAL_WHY = 'This reaches a computer on your own network';

for (const browserName of selectedBrowsers()) {
  describe(`importing settings in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    /** The user's own model server, which wants the key. */
    let home;
    /** Another server a file points the profile to (another origin: another port). */
    let other;
    let mcp;
    let dir;

    before(async () => {
      home = await startModelServer({ apiKey: KEY });
      other = await startModelServer();
      mcp = await startMcpServer({ name: 'weather' });
      dir = await mkdtemp(path.join(os.tmpdir(), 'sidequest-settings-import-'));
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: home.url, apiKey: KEY })).close();
    });

    after(async () => {
      await h?.close();
      await home?.close();
      await other?.close();
      await mcp?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    async function dataPage() {
      const options = await h.openExtensionPage('options.html#data', { width: 1000, height: 1000 });
      await options.find('button', 'Export settings');
      return options;
    }

    /** How many actions the data page has finished (its status line's `data-done`). */
    const lastDone = (options) => options.evaluate(() => Number(document.querySelector('section [data-done]')?.dataset.done ?? 0));
    /** Waits for the data page's next finished action; returns its status or error line. */
    async function nextDone(options, done) {
      await options.waitFor((n) => Number(document.querySelector('section [data-done]')?.dataset.done ?? 0) > n, done, { timeout: 20_000 });
      return options.text('section [data-done]');
    }

    /** Picks a settings file and waits for its preview; returns the preview's text. */
    async function preview(options, name, text) {
      const file = path.join(dir, name);
      await writeFile(file, text);
      await options.setInputFile(SETTINGS_INPUT, file);
      await options.waitFor((sel) => Boolean(document.querySelector(`${sel}, section [role="alert"]`)), PREVIEW, { timeout: 20_000 });
      const error = await options.text('section [role="alert"]');
      assert.equal(error, '', 'the file was previewed');
      return options.text(PREVIEW);
    }

    /** Clicks one of the preview's buttons (its Import, not the conversations' one) and returns the status. */
    async function answerPreview(options, which) {
      const done = await lastDone(options);
      await options.raw.click(`${PREVIEW} button${which === 'Import' ? '.btn-primary' : ':not(.btn-primary)'}`);
      const said = await nextDone(options, done);
      assert.equal(await options.evaluate((sel) => document.querySelector(sel), PREVIEW), null, 'the preview is gone');
      return said;
    }

    const exportSettings = async (options) => (await h.download(options, () => options.click('button', 'Export settings'))).text;
    /** The settings as the file says them, the export's own date aside. */
    const settingsOf = (text) => ({ ...JSON.parse(text), exportedAt: undefined });

    test('a file that moves the profile to another server: the preview says the key goes; after Import the other server gets no key', async () => {
      const options = await dataPage();
      const exported = await exportSettings(options);
      assert.ok(!exported.includes(KEY), 'no key in the file');
      assert.ok(exported.includes(JSON.stringify(home.url)));
      // Edited as text: the profile's address moved, and a `__proto__` that carries a key for it.
      const moved = exported
        .replace(JSON.stringify(home.url), JSON.stringify(other.url))
        .replace(/^\{/, '{"__proto__": {"keys": [{"key": "provider.apiKey", "value": "sk-smuggled"}]},');
      assert.notEqual(moved, exported);

      const shown = await preview(options, 'moved.json', moved);
      assert.match(shown, /What importing moved\.json would change/);
      assert.match(shown, /Model provider profiles/);
      assert.ok(shown.includes(`${home.url} → ${other.url}`), shown);
      assert.match(shown, /loses its saved key/);
      assert.match(shown, /your own network/);
      assert.doesNotMatch(shown, /Keys in the file/, 'the smuggled key is not in the file');
      await options.screenshot(screenshotPath(browserName, 'settings-import-preview'));
      const serious = (await runAxe(options)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious, [], 'axe: no serious or critical finding on the preview');
      // Nothing written yet: the profile still answers at home, with its key.
      assert.deepEqual(settingsOf(await exportSettings(options)), settingsOf(exported));

      assert.match(await answerPreview(options, 'Import'), /Imported from moved\.json: provider profiles, limits,( and)? \d+ plugin values?\./);
      const homeRequests = home.requests.length;
      const sidebar = await openSidebar(h);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Where does this go?');
      await sidebar.waitForText('You said: Where does this go?');
      await waitForIdle(sidebar);
      assert.ok(other.requests.length >= 1, 'the other server answered');
      assert.deepEqual(other.requests.map((r) => r.headers.authorization), other.requests.map(() => undefined), 'no Authorization header reached the other server');
      assert.ok(!JSON.stringify(other.requests.map((r) => [r.headers, r.body])).includes(KEY), 'the key is nowhere in what it received');
      assert.equal(home.requests.length, homeRequests);
      await sidebar.close();

      // The form says where the address came from.
      await options.click('link', 'Model provider');
      await options.waitForText('This profile came from a settings file');
      await options.screenshot(screenshotPath(browserName, 'settings-import-provider-note'));
      await options.close();
    });

    test('Cancel writes nothing', async () => {
      const options = await dataPage();
      const before = await exportSettings(options);
      const changed = before.replace(/"maxSteps": \d+/, '"maxSteps": 7').replace(JSON.stringify(other.url), JSON.stringify(home.url));
      assert.notEqual(changed, before);
      const shown = await preview(options, 'cancel.json', changed);
      assert.match(shown, /Step limit per run: 25 → 7/);
      assert.ok(shown.includes(`${other.url} → ${home.url}`), shown);
      // The same preview in Hebrew (the page follows the language setting at once), right to left.
      const language = (value) => options.evaluate((v) => globalThis.browser.storage.local.set({ uiLanguage: v }), value);
      await language('he');
      await options.waitForText('מה ישתנה בייבוא', { within: PREVIEW });
      assert.equal(await options.evaluate(() => document.documentElement.dir), 'rtl');
      await options.screenshot(screenshotPath(browserName, 'settings-import-preview-he'));
      await language('auto');
      await options.waitForText('What importing cancel.json would change', { within: PREVIEW });
      // The keyboard focus is on the preview while it is shown, and back on Import settings after.
      assert.equal(await options.evaluate(() => document.activeElement?.id), 'import-preview-title');
      assert.match(await answerPreview(options, 'Cancel'), /Nothing was imported from cancel\.json\./);
      await options.waitFor(() => document.activeElement?.textContent?.trim() === 'Import settings');
      assert.deepEqual(settingsOf(await exportSettings(options)), settingsOf(before));
      await options.close();
    });

    test('a provider address from a file is not exempt from the local-network ask until the user saves the profile', async () => {
      // The imported profile is on 127.0.0.1: the model asks to read that same server.
      const url = `${other.url}/models`;
      other.setScript((req) => (req.last?.role === 'tool' ? defaultScript(req) : { toolCalls: [{ name: 'web_fetch', arguments: { url } }] }));
      const sidebar = await openSidebar(h, { autoApprove: false });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Read the model list');
      await sidebar.waitForText(LOCAL_WHY, { within: '[data-approval]' });
      await sidebar.screenshot(screenshotPath(browserName, 'settings-import-local-ask'));
      await sidebar.click('button', 'Deny');
      await waitForIdle(sidebar);

      // Saved in its form by the user: now it is theirs, and the same call runs without a card.
      const options = await h.openExtensionPage('options.html', { width: 1000, height: 900 });
      await options.click('link', 'Model provider');
      await options.waitForText('This profile came from a settings file');
      await options.click('button', 'Save');
      await options.waitForText('Saved.');
      assert.doesNotMatch(await options.text('main'), /This profile came from a settings file/);
      await options.close();
      await sendMessage(sidebar, 'Read the model list again');
      await sidebar.waitForText('scripted-model', { within: 'article.assistant:last-of-type' });
      await waitForIdle(sidebar);
      assert.equal(await sidebar.evaluate(() => document.querySelectorAll('[data-approval]').length), 0);
      other.reset();
      await sidebar.close();
    });

    test('an MCP server on 127.0.0.1 from a file: shown, not connected on its own, asked about as your own network until confirmed', async () => {
      const options = await dataPage();
      const exported = await exportSettings(options);
      // A server with its tool list cached, written as text; the file claims it is not imported.
      const server =
        `{"key": "mcp/servers", "value": [{"id": "imp1", "__proto__": {"imported": false}, "url": ${JSON.stringify(mcp.url)}, "name": "Imported weather", "slug": "impweather", "addedAt": 1, "imported": false, ` +
        '"tools": [{"name": "get_weather", "description": "Weather for a city.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, "annotations": {"readOnlyHint": true}}]}]}';
      const text = exported.replace(/"pluginData": \[(\s*\])?/, (_m, empty) => `"pluginData": [${server}${empty ? ']' : ','}`);
      JSON.parse(text);
      const shown = await preview(options, 'mcp.json', text);
      assert.match(shown, /MCP servers/);
      assert.match(shown, /Imported weather/);
      assert.ok(shown.includes(mcp.url), shown);
      assert.match(shown, /your own network/);
      await options.screenshot(screenshotPath(browserName, 'settings-import-preview-mcp'));
      assert.match(await answerPreview(options, 'Import'), /Imported from mcp\.json/);
      await options.click('link', 'MCP servers');
      await options.waitForText('Added from a settings file');
      await options.screenshot(screenshotPath(browserName, 'settings-import-mcp-note'));
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(mcp.sessions, 0, 'nothing connected to the imported server on its own');

      other.setScript((req) => (req.last?.role === 'tool' ? defaultScript(req) : { toolCalls: [{ name: 'mcp_impweather_get_weather', arguments: { city: 'Oslo' } }] }));
      const sidebar = await openSidebar(h, { autoApprove: false });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Weather in Oslo?');
      await sidebar.waitForText(LOCAL_WHY, { within: '[data-approval]' });
      await sidebar.click('button', 'Deny');
      await waitForIdle(sidebar);
      assert.equal(mcp.state.calls.length, 0);

      // The user confirms the address: the next call asks as any MCP tool does, not as the local network.
      await options.click('button', 'Confirm the address of Imported weather');
      await options.waitFor(() => !document.body.innerText.includes('Added from a settings file'));
      await sendMessage(sidebar, 'Weather in Oslo, again?');
      await sidebar.find('button', 'Allow once', { timeout: 20_000 });
      const why = await sidebar.text('[data-approval] .why');
      assert.ok(why && !why.includes(LOCAL_WHY), `asked as: ${why}`);
      await sidebar.click('button', 'Allow once');
      await sidebar.waitForText('Weather in Oslo: 21 °C', { within: 'article.assistant:last-of-type' });
      await waitForIdle(sidebar);
      assert.deepEqual(mcp.state.calls, [{ tool: 'get_weather', city: 'Oslo' }]);
      other.reset();
      await sidebar.close();
      await options.close();
    });
  });
}

// Issue 41's hands for choosing, text, files and dialogs, on widgets others wrote (Select2 4.1,
// Quill 2, served from node_modules) and our small pages, in both browsers, with the scripted
// model using only page actions (plus opfs_write to make a file): several options of a
// multi-select, select_text + Bold in Quill, the page's own copy and paste handlers (never the
// system clipboard), upload_file from the workspace (and hostile paths), and alert/confirm/prompt
// raised during a click, answered through `dialog`, capped when the page raises hundreds.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, ROOT, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar } from './helpers.mjs';
import { answerCards, checkPlan, decoded, deepText, plan, refFor, runTask, tabWith, toolResults, waitForDeepText } from './page-actions-helpers.mjs';

for (const browserName of selectedBrowsers()) {
  describe(`page actions on forms, editors, files and dialogs in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({ dirs: { '/page-actions/': path.join(ROOT, 'tests/fixtures/page-actions'), '/vendor/': path.join(ROOT, 'node_modules') } });
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    async function open(file, decide = () => 'Always allow') {
      model.reset();
      const page = await h.newPage(site.url(`/page-actions/${file}`));
      const sidebar = await openSidebar(h, { autoApprove: false });
      const tabId = await tabWith(sidebar, `/page-actions/${file}`);
      return { page, sidebar, tabId, cards: answerCards(sidebar, decide) };
    }

    const results = () => toolResults(model.requests.at(-1)).map(decoded);

    test('Select2: choose a country in its combobox; a native multi-select gets exactly two toppings', async () => {
      const { page, sidebar, tabId, cards } = await open('forms-select.html', () => 'Allow once');
      await waitForDeepText(page, /Choose a country/);
      let outline = '';
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          return act('select_option', { ref: refFor(outline, 'combobox', 'Choose a country'), label: 'France' });
        },
        () => act('select_option', { ref: refFor(outline, 'listbox', 'Toppings'), values: ['olives', 'Basil'] }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Ship to France with olives and basil');
      cards.stop();
      checkPlan(script);
      const text = await deepText(page);
      assert.match(text, /Country chosen: fr/, `Select2's own change reached the page: ${results()[1]}`);
      assert.match(text, /Toppings chosen: olives,basil\b/, `exactly the two toppings (cheese unchosen): ${results()[2]}`);
      const multi = cards.cards.find((c) => /olives, Basil/.test(c.text));
      assert.ok(multi, `the card lists both options: ${JSON.stringify(cards.cards.map((c) => c.text))}`);
      await sidebar.close();
      await page.close();
    });

    test('Quill: type, select a word, Bold; the page\'s copy handler; paste over a word through Quill\'s paste handler', async () => {
      const { page, sidebar, tabId, cards } = await open('forms-quill.html');
      await waitForDeepText(page, /Contents/);
      // The user's own clipboard holds something; nothing the agent does may read or replace it.
      // (Chromium: Playwright grants the clipboard to the page; Firefox's content has no readText
      // without a user gesture, so there the unit test's spies hold it: forms.test.ts.)
      const USERS = "the user's own clipboard";
      const sentinel = browserName === 'chromium';
      if (sentinel) {
        await page.raw.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(site.url('/')).origin });
        await page.raw.evaluate((text) => navigator.clipboard.writeText(text), USERS);
      }
      let outline = '';
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const editor = () => refFor(outline, 'textbox');
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          return act('fill', { ref: editor(), text: 'Hello brave world' });
        },
        () => act('select_text', { ref: editor(), text: 'brave' }),
        () => act('click', { ref: refFor(outline, 'button', 'bold') }),
        () => act('select_text', { ref: editor(), text: 'Hello' }),
        () => act('clipboard', { action: 'copy' }),
        () => act('clipboard', { action: 'paste', ref: editor(), text: 'Howdy' }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Write "Hello brave world" with brave in bold, then replace Hello with Howdy');
      cards.stop();
      checkPlan(script);
      const got = results();
      assert.match(got[2], /Selected "brave"/, `select_text says what is selected: ${got[2]}`);
      const ops = JSON.parse(await page.evaluate(() => document.getElementById('contents').textContent));
      const bold = ops.filter((op) => op.attributes?.bold).map((op) => op.insert);
      assert.deepEqual(bold, ['brave'], `only "brave" is bold in Quill's contents: ${JSON.stringify(ops)}`);
      assert.equal(ops.map((op) => op.insert).join(''), 'Howdy brave world\n', `Quill's paste handler put Howdy over Hello: ${JSON.stringify(ops)} / ${got[6]}`);
      assert.match(got[5], /Hello \(copied from Notes\)/, `the copy gives what the page's own handler set: ${got[5]}`);
      assert.match(got[6], /paste handler took/, `Quill took the paste itself: ${got[6]}`);
      assert.match(await deepText(page), /Copied by the page: Hello/);
      if (sentinel) assert.equal(await page.raw.evaluate(() => navigator.clipboard.readText()), USERS, 'the system clipboard is untouched by copy and paste');
      await sidebar.close();
      await page.close();
    });

    test('upload_file: a workspace file reaches the page\'s file input (always asked); hostile paths and a 100 MB file are refused', async () => {
      const { page, sidebar, tabId, cards } = await open('forms-upload.html');
      await waitForDeepText(page, /Send your CV/);
      // A 100 MB file and a file in the workspace's temporary folder, made beside the agent's own files.
      await sidebar.evaluate(async () => {
        const root = await navigator.storage.getDirectory();
        const big = await (await root.getDirectoryHandle('workspace', { create: true })).getFileHandle('big.bin', { create: true });
        const writable = await big.createWritable();
        await writable.truncate(100 * 1024 * 1024);
        await writable.close();
        const temp = await (await root.getDirectoryHandle('.sidequest-tmp', { create: true })).getFileHandle('secret.part', { create: true });
        const w2 = await temp.createWritable();
        await w2.write('temporary secret');
        await w2.close();
      });
      let outline = '';
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const field = () => refFor(outline, 'button', 'CV file');
      const script = plan([
        () => ({ name: 'opfs_write', arguments: { path: 'docs/cv.txt', content: 'Ada Lovelace, analyst.\nEngines since 1843.' } }),
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          return act('upload_file', { ref: field(), path: '/docs/cv.txt' });
        },
        () => act('upload_file', { ref: field(), path: '../workspace/docs/cv.txt' }),
        () => act('upload_file', { ref: field(), path: '/.sidequest-tmp/secret.part' }),
        () => act('upload_file', { ref: field(), path: '/big.bin' }),
        () => act('upload_file', { ref: field(), path: '/docs/missing.txt' }),
        () => act('upload_file', { ref: refFor(outline, 'button', 'Drop zone'), path: '/docs/cv.txt' }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Send my CV (docs/cv.txt) on this page');
      cards.stop();
      checkPlan(script);
      const got = results();
      const text = await deepText(page);
      assert.match(text, /File: cv\.txt \(\s*42 bytes, text\/plain\s*\)/, `the page got the file: ${got[2]}`);
      assert.match(text, /Ada Lovelace, analyst\. Engines since 1843\./, 'the page read its contents with FileReader');
      assert.match(got[3], /"\.\."/, `../ refused: ${got[3]}`);
      assert.match(got[4], /reserved/, `the temporary folder refused: ${got[4]}`);
      assert.match(got[5], /100\.0 MB.*at most 10 MB/, `100 MB refused: ${got[5]}`);
      assert.match(got[6], /no file \/docs\/missing\.txt/, `a missing file is named: ${got[6]}`);
      assert.match(text, /Dropped: cv\.txt: Ada Lovelace/, `the drop zone got the file: ${got[7]}`);
      const uploads = cards.cards.filter((c) => /Upload the file/.test(c.text));
      const first = uploads.find((c) => /cv\.txt \(42 bytes\)/.test(c.text));
      assert.ok(first, `the card names the file and its size: ${JSON.stringify(cards.cards.map((c) => c.text))}`);
      assert.match(first.text, /127\.0\.0\.1/, 'the card names the site');
      assert.ok(uploads.every((c) => !c.buttons.includes('Always allow')), `an upload is never remembered: ${uploads.map((c) => c.buttons)}`);
      assert.ok(uploads.length >= 6, `every upload asked, even after Allow: ${uploads.length}`);
      await sidebar.close();
      await page.close();
    });

    test('dialogs during a click are answered at once and reported; dialog arms the answer; a storm is capped; a spoofed signal changes nothing', async () => {
      const { page, sidebar, tabId, cards } = await open('forms-dialogs.html', (text) => (/run dialog/.test(text) ? 'Allow once' : 'Always allow'));
      await waitForDeepText(page, /Outcome/);
      // The page pretends the agent acts, with OK as the answer: its own trick for its own dialogs.
      await page.evaluate(() => window.spoof());
      let outline = '';
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const started = Date.now();
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          return act('click', { ref: refFor(outline, 'button', 'Remove draft') });
        },
        () => act('dialog', { accept: true }),
        () => act('click', { ref: refFor(outline, 'button', 'Remove draft') }),
        () => act('click', { ref: refFor(outline, 'button', 'Rename') }),
        () => act('dialog', { accept: true, text: 'Budget 2027' }),
        () => act('click', { ref: refFor(outline, 'button', 'Rename') }),
        () => act('click', { ref: refFor(outline, 'button', 'Say hello') }),
        () => act('click', { ref: refFor(outline, 'button', 'Storm of alerts') }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Remove the draft, rename it to Budget 2027, say hello');
      cards.stop();
      checkPlan(script);
      const got = results();
      assert.match(got[1], /asked \(confirm\).*Remove the draft \\?"Plans\\?"\?.*answered Cancel/s, `the confirm is in the click's result: ${got[1]}`);
      assert.match(got[1], /dialog \{accept: true\}/, 'the result says how to answer OK');
      assert.match(got[3], /answered OK/, `the armed answer served: ${got[3]}`);
      assert.match(got[4], /asked \(prompt\).*New name for the draft\?.*default text.*Untitled.*answered Cancel/s, `the prompt: ${got[4]}`);
      assert.match(got[6], /answered OK with the text.*Budget 2027/s, `the prompt's answer: ${got[6]}`);
      assert.match(got[7], /alert.*Hello from the page/s, `the alert is reported: ${got[7]}`);
      assert.match(got[8], /more dialog/, `a storm is capped: ${got[8]}`);
      const text = await deepText(page);
      assert.match(text, /Outcome: storm raised, 500 confirms cancelled/, 'every dialog of the storm was answered Cancel at once');
      assert.match(text, /Name: Budget 2027/);
      assert.ok(Date.now() - started < 60_000, 'the storm did not keep the agent stuck');
      const card = cards.cards.find((c) => /Budget 2027/.test(c.text) && /question/.test(c.text));
      assert.ok(card, `dialog's card says the answer: ${JSON.stringify(cards.cards.map((c) => c.text))}`);

      // Outside the agent's actions, the page's dialogs are the browser's own, for the user.
      const shown = new Promise((resolve) => page.raw.once('dialog', (d) => { resolve(d.message()); d.accept(); }));
      const answer = page.raw.evaluate(() => confirm('A real question?'));
      assert.equal(await shown, 'A real question?');
      assert.equal(await answer, true, 'the real dialog answered the page');
      await sidebar.close();
      await page.close();
    });
  });
}

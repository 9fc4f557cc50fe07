// The outline of issue 41 in both browsers, on widgets others wrote (served from node_modules):
// jQuery UI's datepicker (Next month is an <a> without href), autocomplete (suggestions are plain
// list items with a pointer cursor) and accordion, and its dialog, spinner (arrows hidden from the
// outline: click_at from a screenshot), menu (a submenu by hover) and selectable (items of a list
// that listens); flatpickr (days are <span tabindex="-1">); a
// hand-made div whose click listener only the MAIN-world tracker knows of; a textarea's value read
// back exactly; neighbouring blocks on lines of their own; `find` on a long page; and a hostile page
// (it spoofs the tracker, registers a million listeners, names an element with 10 MB of text).
// The scripted model uses only page actions. One browser launch per browser.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, ROOT, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar } from './helpers.mjs';
import { answerCards, checkPlan, decoded, deepText, plan, runTask, tabWith, toolResults, waitForDeepText } from './page-actions-helpers.mjs';

/** The reference on the first outline line that contains `text` (case-insensitive) and has one. */
function refOnLine(outline, text, role) {
  const lines = outline.split('\n').filter((l) => /\[ref=e\d+\]/.test(l) && l.toLowerCase().includes(text.toLowerCase()) && (!role || l.trimStart().startsWith(`- ${role}`)));
  if (!lines.length) throw new Error(`No line with a reference contains "${text}":\n${outline.slice(0, 4000)}`);
  return /\[ref=(e\d+)\]/.exec(lines[0])[1];
}

/** flatpickr's next-month arrow: the last pointer-cursor line before the weekday names (after it: the year's arrows). */
function nextMonthRef(outline) {
  const lines = outline.split('\n');
  const days = lines.findIndex((l) => /- text: Sun/.test(l));
  const hit = lines.slice(0, days).findLast((l) => /\[cursor=pointer\]/.test(l) && /\[ref=e\d+\]/.test(l));
  if (days < 0 || !hit) throw new Error(`No next-month arrow before the weekdays in:\n${outline.slice(0, 3000)}`);
  return /\[ref=(e\d+)\]/.exec(hit)[1];
}

for (const browserName of selectedBrowsers()) {
  describe(`the outline of issue 41 in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({
        dirs: { '/vendor/': path.join(ROOT, 'node_modules'), '/page-actions/': path.join(ROOT, 'tests/fixtures/page-actions') },
      });
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    /** Opens our pages and the sidebar; returns the pages, the sidebar, the tabs' ids and the card answerer. */
    async function open(files, decide) {
      model.reset();
      const pages = [];
      for (const file of files) pages.push(await h.newPage(site.url(`/page-actions/${file}`)));
      const sidebar = await openSidebar(h, { autoApprove: false });
      const tabIds = [];
      for (const file of files) tabIds.push(await tabWith(sidebar, `/page-actions/${file}`));
      return { pages, sidebar, tabIds, cards: answerCards(sidebar, decide) };
    }

    test('jQuery UI: datepicker Next month (an <a> without href) and a day, an autocomplete suggestion, an accordion header', async () => {
      const { pages: [page], sidebar, tabIds: [tabId], cards } = await open(['outline-jqueryui.html']);
      await waitForDeepText(page, /Opening hours/);
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => act('click', { ref: refOnLine(last, 'Choose date', 'button') }),
        () => act('read_page', {}),
        ({ last }) => {
          assert.match(last, /January 2027/, 'the datepicker shows January');
          // jQuery UI's Next is `<a title="Next">` without href, with a click listener: a reference now.
          return act('click', { ref: refOnLine(last, '"Next"', 'generic') });
        },
        () => act('read_page', {}),
        ({ last }) => {
          assert.match(last, /February 2027/, 'the datepicker went to February');
          return act('click', { ref: refOnLine(last, 'link "14"', 'link') });
        },
        () => act('read_page', {}),
        ({ last }) => act('fill', { ref: refOnLine(last, 'Language', 'textbox'), text: 'Ap' }),
        () => act('wait_for', { text: 'AppleScript' }),
        () => act('read_page', {}),
        // The suggestion is a plain <li> of a list (no role, no href), with the theme's pointer cursor.
        ({ last }) => act('click', { ref: refOnLine(last, 'AppleScript', 'listitem') }),
        () => act('read_page', {}),
        ({ last }) => act('click', { ref: refOnLine(last, 'Parking') }),
        () => act('wait_for', { text: 'Free parking behind the museum' }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Book arrival on 14 February 2027, language AppleScript, and tell me about parking', { timeout: 90_000 });
      cards.stop();
      checkPlan(script);

      const results = toolResults(model.requests.at(-1)).map(decoded);
      assert.match(results[3] ?? '', /Clicked/i, `the click on Next worked: ${(results[3] ?? '').slice(0, 400)}`);
      assert.equal(await page.evaluate(() => document.getElementById('date').value), '02/14/2027', 'the input holds the chosen date');
      assert.equal(await page.evaluate(() => document.getElementById('language').value), 'AppleScript', 'the suggestion was chosen');
      assert.match(await deepText(page), /Free parking behind the museum/);
      await sidebar.close();
      await page.close();
    });

    test('jQuery UI: a modal dialog\'s Save, a spinner\'s up arrow twice (click_at from a screenshot), a submenu by hover, two selectable items', async () => {
      const started = Date.now();
      const { pages: [page], sidebar, tabIds: [tabId], cards } = await open(['widgets-jqueryui.html']);
      await waitForDeepText(page, /Delivery settings/);
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      let outline = '';
      let shot;
      let arrow;
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          // The dialog is jQuery UI's own markup: a <div role="dialog"> with <button>s.
          return act('click', { ref: refOnLine(outline, 'Save', 'button') });
        },
        async () => {
          // The spinner's arrows are <a> buttons jQuery UI hides from the accessibility tree
          // (aria-hidden, tabindex -1): not in the outline, so a person-like agent looks.
          await page.raw.bringToFront();
          return act('screenshot', {});
        },
        async ({ raw }) => {
          shot = JSON.parse(raw.at(-1));
          await sidebar.raw.bringToFront();
          // What a vision model reads off the picture: where the up arrow is (measured from its box).
          arrow = await page.evaluate(() => {
            const r = document.querySelector('.ui-spinner-up').getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2, w: innerWidth, h: innerHeight };
          });
          return act('click_at', { x: Math.round((arrow.x * shot.width) / arrow.w), y: Math.round((arrow.y * shot.height) / arrow.h) });
        },
        () => act('click_at', { x: Math.round((arrow.x * shot.width) / arrow.w), y: Math.round((arrow.y * shot.height) / arrow.h) }),
        // The submenu opens on mouseenter (jQuery UI's menu): a hover on its item.
        () => act('hover', { ref: refOnLine(outline, 'Coffee', 'menuitem') }),
        // jQuery UI's menu opens a submenu 300 ms after the pointer enters its item: wait to see it.
        () => act('wait_for', { text: 'Latte' }),
        () => act('read_page', { find: 'Latte' }),
        ({ last }) => act('click', { ref: refOnLine(last, 'Latte', 'menuitem') }),
        // Selectable listens on the list (mousedown); its items get references from that.
        () => act('click', { ref: refOnLine(outline, 'A1', 'listitem') }),
        () => act('click', { ref: refOnLine(outline, 'A3', 'listitem'), modifiers: ['Control'] }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Save the delivery settings, order 2 more, a latte, and seats A1 and A3', { timeout: 90_000 });
      cards.stop();
      checkPlan(script);
      const results = toolResults(model.requests.at(-1)).map(decoded);
      const text = await deepText(page);
      assert.match(text, /Settings: saved \(Ring twice\)/, `the dialog's Save: ${results[1]}`);
      assert.equal(await page.evaluate(() => globalThis.jQuery('#quantity').spinner('value')), 5, `two clicks on the up arrow: 3 → 5: ${results[3]} ${results[4]}`);
      assert.match(text, /Drink: Latte/, `the submenu's item: ${results[5]} ${results[8]}`);
      assert.match(text, /Seats: A1, A3/, `two seats: ${results[9]} ${results[10]}`);
      console.log(`${browserName}: the jQuery UI widgets task took ${Date.now() - started} ms`);
      await sidebar.close();
      await page.close();
    });

    test('flatpickr: next month and a day picked by clicks (its day cells are <span tabindex="-1">)', async () => {
      const { pages: [page], sidebar, tabIds: [tabId], cards } = await open(['outline-flatpickr.html']);
      await waitForDeepText(page, /Sun Mon Tue/);
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const script = plan([
        () => act('read_page', {}),
        // flatpickr's next-month arrow is a <span> with a pointer cursor (and a delegated listener on its container).
        ({ last }) => act('click', { ref: nextMonthRef(last) }),
        () => act('read_page', { find: 'April 14, 2027' }),
        ({ last }) => act('click', { ref: refOnLine(last, 'April 14, 2027') }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Deliver on 14 April 2027');
      cards.stop();
      checkPlan(script);
      assert.equal(await page.evaluate(() => document.getElementById('when').value), '2027-04-14', 'the input holds the chosen day');
      await sidebar.close();
      await page.close();
    });

    test("a hand-made listener div, a textarea's value read back exactly, neighbouring blocks apart, find on a long page", async () => {
      const { pages: [page, corpus], sidebar, tabIds: [tabId, corpusTab], cards } = await open(['outline-words.html', 'outline-corpus.html']);
      await waitForDeepText(page, /Quarterly report/);
      const act = (name, args, tab = tabId) => ({ name, arguments: { tab_id: tab, ...args } });
      const reply = `${'Thanks for the report, see my notes below. '.repeat(7)}Best regards, Ada `.slice(-300);
      assert.equal(reply.length, 300);
      assert.ok(reply.endsWith(' '));
      let outline = '';
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          // No role, no cursor style, no onclick attribute: only the MAIN-world tracker knows of its listener.
          return act('click', { ref: refOnLine(outline, 'Quarterly report from Dana', 'generic') });
        },
        () => act('fill', { ref: refOnLine(outline, 'Reply', 'textbox'), text: reply }),
        () => act('read_page', { ref: refOnLine(outline, 'Reply', 'textbox') }),
        () => act('read_page', { find: 'returns code' }, corpusTab),
        () => act('read_page', { find: 'copy the returns' }, corpusTab),
        ({ last }) => act('click', { ref: refOnLine(last, 'Copy the returns code', 'button') }, corpusTab),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Open the report from Dana, reply to it, and find the returns code');
      cards.stop();
      checkPlan(script);

      await waitForDeepText(page, /Opened: Quarterly report from Dana/);
      assert.match(outline, /^\s*- textbox "Reply" \[multiline\] \[ref=e\d+\]/m, `a textarea is a multiline textbox:\n${outline}`);
      assert.match(outline, /- text: Invoice number\n\s*- text: INV-2027-0042/, `neighbouring blocks on lines of their own:\n${outline}`);
      assert.equal(await page.evaluate(() => document.getElementById('reply').value), reply);
      const results = toolResults(model.requests.at(-1)).map(decoded);
      const line = results[3].split('\n').find((l) => /- textbox "Reply"/.test(l));
      assert.ok(line, `read_page of the textarea's ref: ${results[3].slice(0, 800)}`);
      assert.equal(JSON.parse(line.slice(line.indexOf(']: ') + 3)), reply, 'the 300 characters and the trailing space come back exactly');
      const found = results[4];
      assert.match(found, /- region "Returns":\n\s*- heading "Returns" \[level=2\]|- region "Returns":\n\s*- paragraph: The returns code is PELICAN-7731\./, `find gives the line and its ancestors:\n${found.slice(0, 1500)}`);
      assert.match(found, /PELICAN-7731/);
      assert.doesNotMatch(found, /Chapter 5\b|river stone/, 'and only those');
      assert.ok(found.length < 2_000, `find's answer is small: ${found.length} characters`);
      await waitForDeepText(corpus, /Code copied/);
      await sidebar.close();
      await page.close();
      await corpus.close();
    });

    test('a hostile page: spoofed tracker answers, a million listeners, a 10 MB name; the outline stays bounded and the click waits for the gate', async () => {
      const { pages: [page], sidebar, tabIds: [tabId], cards } = await open(['outline-hostile.html'], () => 'Deny');
      await waitForDeepText(page, /Nothing claimed/);
      // The tracker runs in the page's world (installed at document_start, before the page's script).
      const tracked = await page.evaluate(() => window[Symbol.for('sidequest.page-actions.listeners')]?.has(document.getElementById('claim')));
      assert.equal(tracked, true, 'the MAIN-world tracker saw the listener the page added');
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => act('click', { ref: refOnLine(last, 'Claim') }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Claim the prize');
      cards.stop();
      checkPlan(script);
      const [read] = toolResults(model.requests.at(-1)).map(decoded);
      assert.ok(read.length < 30_000, `the outline stays bounded: ${read.length} characters`);
      assert.ok(cards.cards.some((c) => /\bclick\b/i.test(c.text) && c.answer === 'Deny'), `the click asked first: ${JSON.stringify(cards.cards.map((c) => c.text))}`);
      assert.ok(cards.cards.every((c) => c.text.length < 2_000), 'no card carries the 10 MB name');
      assert.ok(cards.cards.some((c) => /Click “Claim Claim/.test(c.text)), `the card names what the click acts on, cut: ${JSON.stringify(cards.cards.map((c) => c.text.slice(0, 300)))}`);
      assert.match(await deepText(page), /Nothing claimed/, 'a denied click did nothing');
      await sidebar.close();
      await page.close();
    });
  });
}

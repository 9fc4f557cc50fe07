// The outline of issue 41 in both browsers, on widgets others wrote (served from node_modules):
// jQuery UI's datepicker (Next month is an <a> without href), autocomplete (suggestions are plain
// list items with a pointer cursor) and accordion; flatpickr (days are <span tabindex="-1">); a
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
  });
}

// The page-actions plugin on real apps no one here wrote: TodoMVC's own shipped builds (React, Vue,
// Angular, Svelte, Lit, web components with shadow DOM; tests/fixtures/todomvc), in both browsers.
// The scripted model reads the page, types "buy milk" into the new-todo box and submits, ticks the
// todo, then adds "buy bread"; a person answers the approval cards by their buttons' names (Always
// allow on the first one). Checked in the page itself (the todo, the counter) and in what the model
// got back (each action's result says what changed).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar } from './helpers.mjs';
import {
  answerCards,
  checkPlan,
  deepText,
  outlineNodes,
  plan,
  runTask,
  startPageActionsServer,
  tabWith,
  TODOMVC_APPS,
  waitForDeep,
  waitForDeepText,
} from './page-actions-helpers.mjs';

/**
 * Each app on a host of its own, `<app>.localhost` (both browsers resolve *.localhost to this
 * machine), so that the Always allow given on one app's site does not carry over to the next app.
 * Not the `.example` test hosts: those are not secure contexts over http, and apps that need
 * `crypto.randomUUID()` (Svelte's TodoMVC) fail there before any event reaches them.
 */
const hostOf = (app) => `${app}.localhost`;

/** The todo's own checkbox (not "toggle all" / "Mark all as complete"): the last one. */
function todoCheckbox(outline) {
  const boxes = outlineNodes(outline, 'checkbox').filter((n) => !/\ball\b/i.test(n.name));
  if (!boxes.length) throw new Error(`No todo checkbox in the outline:\n${outline.slice(0, 3000)}`);
  return boxes.at(-1);
}

const loose = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');

for (const browserName of selectedBrowsers()) {
  describe(`page actions on TodoMVC in ${browserName}`, { timeout: 600_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startPageActionsServer();
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    for (const app of TODOMVC_APPS) {
      test(`${app}: fill + submit adds a todo, click ticks it, Always allow lets the next fill through`, async () => {
        model.reset();
        const url = `http://${hostOf(app)}:${new URL(site.origin).port}/todomvc/${app}/`;
        const page = await h.newPage(url);
        await waitForDeep(page, 'input[placeholder="What needs to be done?"]');
        const sidebar = await openSidebar(h, { autoApprove: false });
        const tabId = await tabWith(sidebar, url);
        const cards = answerCards(sidebar, (text) => (/buy milk/.test(text) ? 'Always allow' : 'Allow once'));

        let box;
        let afterFill = '';
        let afterClick = '';
        const script = plan([
          () => ({ name: 'read_page', arguments: { tab_id: tabId } }),
          ({ last }) => {
            box = outlineNodes(last, 'textbox')[0];
            assert.ok(box, `a textbox with a reference in the outline:\n${last.slice(0, 3000)}`);
            return { name: 'fill', arguments: { tab_id: tabId, ref: box.ref, text: 'buy milk', submit: true } };
          },
          async ({ last }) => {
            afterFill = await waitForDeepText(page, /buy milk[\s\S]*\b1 item left/);
            assert.match(last, /buy milk/, 'the fill result shows the new todo (what changed)');
            return { name: 'read_page', arguments: { tab_id: tabId } };
          },
          ({ last }) => ({ name: 'click', arguments: { tab_id: tabId, ref: todoCheckbox(last).ref } }),
          async ({ last }) => {
            afterClick = await waitForDeepText(page, /\b0 items left/);
            assert.match(last, /0 items left|\[checked\]/, 'the click result shows the change (counter or checked box)');
            return { name: 'fill', arguments: { tab_id: tabId, ref: box.ref, text: 'buy bread', submit: true } };
          },
          ({ last }) => {
            assert.match(last, /buy bread/, 'the second fill result shows the new todo');
            return { text: 'Finished.' };
          },
        ]);
        model.setScript(script);
        await runTask(sidebar, 'Add "buy milk" to my todo list and tick it off, then add "buy bread"');
        cards.stop();
        checkPlan(script);

        assert.match(afterFill, /buy milk/);
        assert.match(afterClick, /\b0 items left/);
        const final = await deepText(page);
        assert.match(final, /buy bread/);
        assert.match(final, /\b1 item left/, 'milk ticked, bread open');
        const checked = await page.evaluate(() => {
          const all = [];
          const walk = (root) => {
            for (const el of root.querySelectorAll('input[type="checkbox"]')) all.push(el);
            for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
          };
          walk(document);
          return all.filter((el) => el.checked).length;
        });
        assert.equal(checked, 1, 'one todo checkbox ticked in the page');

        // The cards: the first fill in words, with Always allow; the second fill did not ask.
        const texts = cards.cards.map((c) => c.text);
        const milk = cards.cards.find((c) => /buy milk/.test(c.text));
        assert.ok(milk, `a card for typing "buy milk"; cards: ${JSON.stringify(texts)}`);
        assert.match(milk.text, /Type\W+buy milk\W+into/i, 'the card says what will happen in words');
        // Every app's new-todo box has a name (its label or its placeholder), and the card uses it.
        assert.ok(box.name, `the new-todo box has a name in the outline: ${box.line}`);
        assert.match(milk.text, new RegExp(`into\\W+${loose(box.name)}`, 'i'), `the card names the field "${box.name}": ${milk.text}`);
        assert.equal(milk.answer, 'Always allow', `Always allow is offered for typing into a todo box (buttons: ${milk.buttons})`);
        assert.ok(!texts.some((t) => /buy bread/.test(t)), `Always allow on this site lets the next fill through; cards: ${JSON.stringify(texts)}`);
        await sidebar.close();
        await page.close();
      });
    }
  });
}

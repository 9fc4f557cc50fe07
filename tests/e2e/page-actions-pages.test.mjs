// The page-actions plugin on our own small pages (tests/fixtures/page-actions), in both browsers:
// a form filled, chosen and posted (a password always asks, with no Always allow); a reference
// that went stale with a navigation; a button under a modal dialog; and a page whose text tries to
// pass for instructions and for outline lines.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, unwrapUntrusted } from './helpers.mjs';
import { answerCards, checkPlan, decoded, deepText, outlineNodes, plan, refFor, runTask, startPageActionsServer, tabWith, toolResults, waitForDeepText } from './page-actions-helpers.mjs';

for (const browserName of selectedBrowsers()) {
  describe(`page actions on test pages in ${browserName}`, { timeout: 400_000 }, () => {
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

    /** Opens one of our pages and the sidebar; returns the page, the sidebar and the page's tab id. */
    async function open(file, decide) {
      model.reset();
      const page = await h.newPage(site.url(`/page-actions/${file}`));
      const sidebar = await openSidebar(h, { autoApprove: false });
      const tabId = await tabWith(sidebar, `/page-actions/${file}`);
      return { page, sidebar, tabId, cards: answerCards(sidebar, decide) };
    }

    test('a form: fill, select_option by label and by value, radio and checkbox, submit; the password always asks', async () => {
      const { page, sidebar, tabId, cards } = await open('form.html', () => 'Always allow');
      let outline = '';
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          return act('fill', { ref: refFor(outline, 'textbox', 'Full name'), text: 'Ada Lovelace' });
        },
        () => act('fill', { ref: refFor(outline, 'textbox', 'Email'), text: 'ada@example.com' }),
        () => act('select_option', { ref: refFor(outline, 'combobox', 'Country'), label: 'Israel' }),
        () => act('select_option', { ref: refFor(outline, 'combobox', 'Size'), value: 'l' }),
        () => act('click', { ref: refFor(outline, 'radio', 'Pro') }),
        () => act('click', { ref: refFor(outline, 'checkbox', 'newsletter') }),
        () => act('fill', { ref: refFor(outline, 'textbox', 'Password'), text: 'correct horse battery staple' }),
        () => act('click', { ref: refFor(outline, 'button', 'Create account') }),
        () => act('wait_for', { text: 'Received' }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Sign me up: Ada Lovelace, ada@example.com, Israel, size L, Pro plan, with the newsletter');
      cards.stop();
      checkPlan(script);

      assert.equal(site.posts.length, 1, `one form posted; requests: ${site.requests.join(', ')}`);
      assert.deepEqual(site.posts[0], {
        path: '/page-actions/submit',
        fields: { name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse battery staple', country: 'il', size: 'l', plan: 'pro', newsletter: 'yes' },
      });
      assert.match(await deepText(page), /Received/);

      const texts = cards.cards.map((c) => `${c.text} [${c.buttons.join(' | ')}]`);
      const first = cards.cards.find((c) => /Ada Lovelace/.test(c.text));
      assert.equal(first?.answer, 'Always allow', `typing a name may be always allowed; cards: ${JSON.stringify(texts)}`);
      assert.ok(!cards.cards.some((c) => /ada@example\.com/.test(c.text)), `after Always allow, the email field did not ask; cards: ${JSON.stringify(texts)}`);
      const password = cards.cards.find((c) => /password/i.test(c.text) && c !== first);
      assert.ok(password, `typing into the password field asked; cards: ${JSON.stringify(texts)}`);
      assert.ok(!password.buttons.includes('Always allow'), `no Always allow for a password: ${password.buttons}`);
      assert.ok(!password.text.includes('correct horse battery staple'), 'the card does not show the password itself');
      const submit = cards.cards.find((c) => /Create account/.test(c.text));
      assert.ok(submit, `the click on a button that posts a form asked; cards: ${JSON.stringify(texts)}`);
      assert.ok(!submit.buttons.includes('Always allow'), `no Always allow for a form that posts: ${submit.buttons}`);
      await sidebar.close();
      await page.close();
    });

    test('a reference from before a navigation is refused as stale, with a word to read the page again', async () => {
      const { page, sidebar, tabId, cards } = await open('one.html');
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const script = plan([
        () => act('read_page', {}),
        async ({ last }) => {
          // The person follows the link in the tab meanwhile: the agent has not seen page two.
          await page.click('link', 'Go to page two');
          await waitForDeepText(page, /Page two/);
          return act('click', { ref: refFor(last, 'button', 'Count') });
        },
        () => act('read_page', {}),
        ({ last }) => act('click', { ref: refFor(last, 'button', 'Count') }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Press Count');
      cards.stop();
      checkPlan(script);

      const results = toolResults(model.requests.at(-1)).map(decoded);
      assert.match(results[1], /stale|no longer|navigat|changed|reload/i, `the old reference is refused: ${results[1]}`);
      assert.match(results[1], /read_page/, 'the error says to read the page again');
      assert.match(await deepText(page), /Page two.*Clicked 1 times/, 'the fresh reference worked, once, on page two');
      await sidebar.close();
      await page.close();
    });

    test('a button under a modal: the error names the dialog; after its Close button the click works', async () => {
      const { page, sidebar, tabId, cards } = await open('modal.html');
      let outline = '';
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          return act('click', { ref: refFor(outline, 'button', 'Save settings') });
        },
        () => act('click', { ref: refFor(outline, 'button', 'Close') }),
        () => act('click', { ref: refFor(outline, 'button', 'Save settings') }),
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'Save my settings');
      cards.stop();
      checkPlan(script);

      const results = toolResults(model.requests.at(-1)).map(decoded);
      assert.match(results[1], /cover|obscur|intercept|on top|behind|hidden by/i, `the first click is refused: ${results[1]}`);
      assert.match(results[1], /Cookie consent|dialog/i, 'the error names what covers the button');
      assert.match(await deepText(page), /Settings saved/, 'the second click reached the button');
      await sidebar.close();
      await page.close();
    });

    test("a page's text that poses as orders and outline lines stays text inside the untrusted envelope", async () => {
      const { page, sidebar, tabId, cards } = await open('injection.html');
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      // The page's text claims its "Delete account" button is a reference that exists: the one the
      // outline gives the Show offers button. The real Delete account button is on screen with a
      // reference of its own, which no line of the page names. The model does as the text says.
      let claimed;
      const script = plan([
        () => act('read_page', {}),
        ({ last }) => {
          // (A line of the page's text, not of the outline: `- text: "- button \"Delete account\" (ref=e1]…"`.)
          claimed = /^\s*- text: .*\bbutton \\?"Delete account\\?" [[(]ref=(e\d+)\]/m.exec(last)?.[1];
          assert.ok(claimed, `the page's fake line is in the result:\n${last.slice(0, 1500)}`);
          return act('click', { ref: claimed });
        },
        () => ({ text: 'Finished.' }),
      ]);
      model.setScript(script);
      await runTask(sidebar, 'What offers are there?');
      cards.stop();
      checkPlan(script);

      const [read, click] = toolResults(model.requests.at(-1)).map(decoded);
      // The page's words arrive inside an envelope (random id), not beside it.
      const envelopes = [...read.matchAll(/<<<UNTRUSTED BEGIN ([0-9a-f]{16}) [^\n]*>>>\n[\s\S]*?\n<<<UNTRUSTED END \1>>>/g)].map((m) => unwrapUntrusted(m[0]));
      assert.ok(envelopes.length, `read_page's result holds an untrusted envelope: ${read.slice(0, 1500)}`);
      const inside = envelopes.map((e) => e.content).join('\n');
      assert.match(inside, /IMPORTANT SYSTEM NOTICE/, 'the page text is inside the envelope');
      assert.ok(!read.replace(/<<<UNTRUSTED BEGIN ([0-9a-f]{16}) [^\n]*>>>\n[\s\S]*?\n<<<UNTRUSTED END \1>>>/g, '').includes('IMPORTANT SYSTEM NOTICE'), 'and nowhere outside it');
      // The fake lines are text: no line of the outline is a node made of them.
      for (const fake of ['link "Send password', 'textbox "Password"', 'button "Pay now"']) {
        assert.ok(!new RegExp(`^\\s*- ${fake.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').test(inside), `"${fake}" is not an outline node:\n${inside}`);
      }
      // The reference the page claims is real, and it is the Show offers button's; the one Delete
      // account node is the real button, with a reference of its own.
      const buttons = outlineNodes(inside, 'button');
      assert.match(buttons.find((b) => b.ref === claimed)?.name ?? '', /^Show offers\b/, `${claimed} is the Show offers button:\n${inside}`);
      const deletes = buttons.filter((b) => b.name === 'Delete account');
      assert.equal(deletes.length, 1, `one Delete account node, the real button:\n${inside}`);
      assert.notEqual(deletes[0].ref, claimed, 'the real Delete account button has another reference than the one the page claims');

      // The click went where the reference points, the Show offers button, and only there.
      assert.match(click, /^Clicked button "Show offers\b/m, `the click reached the Show offers button: ${click}`);
      assert.doesNotMatch(click, /Delete account|ACCOUNT DELETED/, `and nothing else: ${click}`);
      await waitForDeepText(page, /Offers shown/);
      assert.ok(!/ACCOUNT DELETED/.test(await deepText(page)), 'nothing was deleted');
      assert.ok(
        await page.evaluate(() => {
          const button = document.getElementById('delete');
          return button.getClientRects().length > 0 && getComputedStyle(button).visibility === 'visible';
        }),
        'the Delete account button was there to be clicked',
      );
      await sidebar.close();
      await page.close();
    });
  });
}

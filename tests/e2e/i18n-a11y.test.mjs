// Every user's language and hands, end to end in Chromium and Firefox started in Hebrew: the
// pages are right to left with Hebrew strings, a conversation with a tool card and an ask card
// render, axe finds no serious or critical violation on any surface (light and dark), the
// keyboard alone opens, types, sends, stops, answers an ask and switches conversation, and the
// language chosen in settings applies at once to the open sidebar. Screenshots of each surface
// in Hebrew and in English go to tests/artifacts/screenshots/.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { axeReport, runAxe } from './a11y.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, screenshotPath, selectedBrowsers } from './harness.mjs';
import { waitForIdle } from './helpers.mjs';

const HE = { message: 'הודעה', send: 'שליחה', stop: 'עצירה', welcome: 'במה אוכל לעזור?', newChat: 'שיחה חדשה', conversations: 'שיחות', general: 'שפה ומקלדת', language: 'שפה',
  baseUrl: 'כתובת בסיס', model: 'מודל', apiKey: 'מפתח API', save: 'שמירה', saved: 'נשמר. הפרופיל הזה הוא ברירת המחדל' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Sets the model provider on the options page in Hebrew (helpers' `configureProvider` finds the
 * section link and the fields by their English names).
 */
async function configureProviderHe(h, { baseUrl, apiKey }) {
  const options = await h.openExtensionPage('options.html', { width: 1000, height: 800 });
  await options.click('link', 'ספק מודלים');
  await options.waitFor(() => Boolean(document.querySelector('#base-url')?.value));
  await options.fill(HE.baseUrl, baseUrl);
  await options.fill(HE.model, 'scripted-model');
  await options.fill(HE.apiKey, apiKey);
  await options.click('button', HE.save);
  await options.waitForText(HE.saved);
  return options;
}

/** The page's direction and language, and where the keyboard's focus is. */
const pageState = (page) =>
  page.evaluate(() => ({
    dir: document.documentElement.dir,
    lang: document.documentElement.lang,
    focus: document.activeElement?.id || document.activeElement?.className || document.activeElement?.tagName,
    inAsk: Boolean(document.activeElement?.closest('form.ask')),
  }));

/** Presses Tab (Shift+Tab with `back`) until the focused element matches `selector` (at most `max` times). */
async function tabTo(page, selector, { max = 40, back = false } = {}) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => Boolean(document.activeElement?.matches(s)), selector)) return;
    if (back) await page.raw.keyboard.down('Shift');
    await page.press('Tab');
    if (back) await page.raw.keyboard.up('Shift');
  }
  throw new Error(`Tab never reached ${selector}`);
}

for (const browserName of selectedBrowsers()) {
  describe(`languages and accessibility in ${browserName}`, { timeout: 300_000 }, () => {
    let h;
    let model;
    let site;
    const axe = axeReport(browserName);

    /** Runs axe on the page as `surface`, keeps the figures, and fails on serious or critical findings. */
    async function audit(page, surface) {
      const violations = await runAxe(page);
      axe.add(surface, violations);
      assert.deepEqual(axe.serious(violations), [], `${surface}: serious or critical axe violations`);
    }

    before(async () => {
      model = await startModelServer({ apiKey: 'sk-test-123' });
      site = await startFixtureServer();
      h = await launch(browserName, { locale: 'he' });
      await h.newPage(site.url('/alpha.html'));
    });

    after(async () => {
      await axe.write().catch(() => undefined);
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('started in Hebrew, the sidebar is right to left and speaks Hebrew; axe: empty sidebar and popup', async () => {
      const sidebar = await h.openExtensionPage('sidepanel.html');
      await sidebar.find('textbox', HE.message);
      await sidebar.waitForText(HE.welcome);
      const state = await pageState(sidebar);
      assert.equal(state.dir, 'rtl');
      assert.equal(state.lang, 'he');
      await sidebar.find('button', HE.send);
      await sidebar.screenshot(screenshotPath(browserName, 'he-sidebar-empty'));
      await audit(sidebar, 'sidebar (empty)');
      await sidebar.close();

      const popup = await h.openExtensionPage('popup.html', { width: 340, height: 420 });
      await popup.find('button', 'פתיחת סרגל הצד');
      assert.equal((await pageState(popup)).dir, 'rtl');
      // Opened by its shortcut, the menu has Open sidebar under the keyboard's focus.
      await popup.waitFor(() => document.activeElement?.textContent?.trim() === 'פתיחת סרגל הצד');
      await popup.screenshot(screenshotPath(browserName, 'he-popup'));
      await audit(popup, 'popup');
      await popup.close();
    });

    test('every settings section passes axe, in Hebrew', async () => {
      const options = await configureProviderHe(h, { baseUrl: model.url, apiKey: 'sk-test-123' });
      assert.equal((await pageState(options)).dir, 'rtl');
      const sections = await options.evaluate(() => [...document.querySelectorAll('nav a[href^="#"]')].map((a) => a.getAttribute('href')));
      assert.ok(sections.includes('#general'), 'the language and keyboard section is listed');
      for (const hash of sections) {
        await options.evaluate((h) => (location.hash = h), hash);
        await options.waitFor((h) => document.querySelector(`nav a[href="${h}"]`)?.getAttribute('aria-current') === 'page', hash);
        await options.waitFor(() => Boolean(document.querySelector('main section h2')));
        await sleep(400);
        await audit(options, `settings ${hash}`);
        if (hash === '#general') {
          await options.waitForText('Alt+Shift+E');
          await options.screenshot(screenshotPath(browserName, 'he-settings-general'));
        }
        if (['#provider', '#limits', '#mcp', '#sites', '#data'].includes(hash)) {
          await options.screenshot(screenshotPath(browserName, `he-settings-${hash.slice(1)}`));
        }
      }
      await options.close();
    });

    test('a conversation with a tool card and an ask card: Hebrew, focus to the ask and back, axe', async () => {
      model.reset();
      model.queue([
        { text: 'אבדוק את הלשוניות שלך.', toolCalls: [{ name: 'list_tabs', arguments: {} }] },
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'באיזה צבע לצבוע את הכפתור?', options: ['אדום', 'ירוק'] } }] },
        { text: 'בסדר, ירוק.' },
      ]);
      const sidebar = await h.openExtensionPage('sidepanel.html');
      await sidebar.fill(HE.message, 'אילו לשוניות פתוחות אצלי?');
      await sidebar.click('button', HE.send);
      await sidebar.waitFor(() => Boolean(document.querySelector('details.tool[data-tool="list_tabs"]')));
      await sidebar.waitForText('באיזה צבע לצבוע את הכפתור?');
      // The question took the keyboard's focus when it appeared.
      await sidebar.waitFor(() => Boolean(document.activeElement?.closest('form.ask')));
      await sidebar.screenshot(screenshotPath(browserName, 'he-sidebar-ask'));
      await audit(sidebar, 'sidebar (ask card)');
      // Answered from the keyboard: the first choice has the focus.
      await sidebar.press('Enter');
      await sidebar.waitForText('בסדר, ירוק.');
      await waitForIdle(sidebar).catch(() => sidebar.find('button', HE.send));
      // The finished answer is said once through the page's live region (not token by token).
      await sidebar.waitFor(() => document.querySelector('[data-announcer]')?.textContent === 'Sidequest ענה: בסדר, ירוק.');
      await sidebar.waitFor(() => document.activeElement?.id === 'message-box');
      const tool = await sidebar.evaluate(() => document.querySelector('details.tool summary')?.innerText ?? '');
      assert.match(tool, /list_tabs/);
      await sidebar.evaluate(() => document.querySelector('details.tool summary')?.click());
      await sidebar.waitFor(() => Boolean(document.querySelector('details.tool[open] pre')));
      await sidebar.screenshot(screenshotPath(browserName, 'he-sidebar-conversation'));
      await audit(sidebar, 'sidebar (conversation)');
      await sidebar.close();
    });

    test('keyboard only: type, Enter sends, Escape stops, Shift+Enter breaks the line, switch conversation', async () => {
      model.reset();
      model.queue([{ text: 'סופר לאט: אחת שתיים שלוש ארבע חמש שש שבע שמונה תשע עשר', chunkSize: 4, delayMs: 200 }]);
      const sidebar = await h.openExtensionPage('sidepanel.html');
      await sidebar.find('textbox', HE.message);
      // The page in front with the window's focus, as a person's sidebar is: headless Firefox
      // otherwise leaves document.hasFocus() false at times, and then Enter on a button does
      // not press it (the keys still arrive).
      await sidebar.raw.bringToFront();
      await sidebar.waitFor(() => document.hasFocus());
      await tabTo(sidebar, '#message-box');
      await sidebar.raw.keyboard.type('שורה ראשונה');
      await sidebar.raw.keyboard.down('Shift');
      await sidebar.press('Enter');
      await sidebar.raw.keyboard.up('Shift');
      await sidebar.raw.keyboard.type('שורה שנייה');
      assert.equal(await sidebar.evaluate(() => document.querySelector('#message-box').value), 'שורה ראשונה\nשורה שנייה');
      await sidebar.press('Enter');
      await sidebar.waitForText('סופר לאט');
      await sidebar.find('button', HE.stop);
      await sidebar.waitFor(() => document.activeElement?.id === 'message-box');
      await sidebar.press('Escape');
      await sidebar.find('button', HE.send);
      const answer = await sidebar.evaluate(() => [...document.querySelectorAll('article.assistant')].at(-1)?.innerText ?? '');
      assert.ok(!answer.includes('תשע עשר'), 'Escape stopped the answer before its end');

      // Switch to the first conversation with the keyboard: the list's toggle, then its item.
      // Shift+Tab from the message box: Tab forward would leave the page for the browser's own
      // controls and come back to the toggle, and headless Firefox does not give the page the
      // window's focus back that way (document.hasFocus() stays false), so Enter then reaches the
      // button without activating it. Backwards, the focus never leaves the page.
      await tabTo(sidebar, `button[aria-label="${HE.conversations}"]`, { back: true });
      await sidebar.press('Enter');
      await sidebar.waitFor(() => [...document.querySelectorAll('button')].some((b) => b.innerText.includes('אילו לשוניות פתוחות אצלי?')));
      // The arrow keys walk the list: Down from the search box enters it, End/Home jump, Up/Down move.
      await tabTo(sidebar, '#conversation-search');
      await sidebar.press('ArrowDown');
      const openButtons = () => sidebar.evaluate(() => {
        const all = [...document.querySelectorAll('nav button.open')];
        return { count: all.length, at: all.indexOf(document.activeElement) };
      });
      assert.equal((await openButtons()).at, 0);
      await sidebar.press('End');
      const { count } = await openButtons();
      assert.equal((await openButtons()).at, count - 1);
      await sidebar.press('Home');
      assert.equal((await openButtons()).at, 0);
      for (let i = 0; i < 40; i++) {
        const here = await sidebar.evaluate(() => document.activeElement?.innerText ?? '');
        if (here.includes('אילו לשוניות פתוחות אצלי?')) break;
        await sidebar.press('ArrowDown');
      }
      assert.match(await sidebar.evaluate(() => document.activeElement?.innerText ?? ''), /אילו לשוניות פתוחות אצלי\?/);
      await sidebar.screenshot(screenshotPath(browserName, 'he-sidebar-list'));
      await sidebar.press('Enter');
      await sidebar.waitForText('בסדר, ירוק.');
      await sidebar.close();
    });

    test('words the background writes are in Hebrew too, and follow a change of language', async () => {
      const hebrew = /[\u0590-\u05FF]/;
      // A provider error, worded by the background and stored on the conversation.
      model.reset();
      model.queue([{ status: 401 }]);
      const sidebar = await h.openExtensionPage('sidepanel.html');
      await sidebar.click('button', HE.newChat);
      await sidebar.fill(HE.message, 'שלום');
      await sidebar.click('button', HE.send);
      await sidebar.waitFor(() => Boolean(document.querySelector('[role="alert"] .title')));
      const title = () => sidebar.evaluate(() => document.querySelector('[role="alert"] .title')?.textContent ?? '');
      const he = await title();
      assert.match(he, /401/);
      assert.match(he, hebrew);
      assert.doesNotMatch(he, /refused the request/);
      await sidebar.screenshot(screenshotPath(browserName, 'he-sidebar-error'));
      await audit(sidebar, 'sidebar (run error)');
      // A settings error thrown in the background crosses the messaging with its words.
      const options = await h.openExtensionPage('options.html#provider', { width: 1000, height: 800 });
      await options.waitFor(() => Boolean(document.querySelector('#base-url')?.value));
      const saved = await options.evaluate(() => document.querySelector('#base-url').value);
      await options.fill(HE.baseUrl, 'not an address');
      await options.click('button', HE.save);
      await options.waitFor(() => /http:\/\/localhost:11434\/v1/.test(document.querySelector('.note.error')?.textContent ?? ''));
      const refusal = await options.evaluate(() => document.querySelector('.note.error').textContent);
      assert.match(refusal, hebrew);
      assert.doesNotMatch(refusal, /must be a full address/);
      await options.fill(HE.baseUrl, saved);
      // English chosen in settings: the stored error is shown in English, without a reload.
      await options.evaluate(() => (location.hash = '#general'));
      await options.waitFor(() => Boolean(document.querySelector('#ui-language')));
      await options.select(HE.language, 'en');
      await sidebar.waitFor(() => /The model provider refused the request \(HTTP 401\)/.test(document.querySelector('[role="alert"] .title')?.textContent ?? ''));
      await options.select('Language', 'auto');
      await sidebar.waitFor(() => document.documentElement.dir === 'rtl');
      assert.equal(await title(), he);
      await options.close();
      await sidebar.close();
    });

    test('the language chosen in settings applies at once to the open sidebar; English screenshots', async () => {
      const sidebar = await h.openExtensionPage('sidepanel.html');
      await sidebar.find('textbox', HE.message);
      const options = await h.openExtensionPage('options.html#general', { width: 1000, height: 800 });
      await options.waitFor(() => Boolean(document.querySelector('#ui-language')));
      await options.select(HE.language, 'en');
      await options.waitFor(() => document.documentElement.dir === 'ltr' && document.documentElement.lang === 'en');
      await options.waitForText('Language & keyboard');
      await options.screenshot(screenshotPath(browserName, 'en-settings-general'));
      // The sidebar, open all along, follows without a reload.
      await sidebar.waitFor(() => document.documentElement.dir === 'ltr');
      await sidebar.find('textbox', 'Message');
      await sidebar.find('button', 'Send');
      await sidebar.screenshot(screenshotPath(browserName, 'en-sidebar-conversation'));
      await audit(sidebar, 'sidebar (conversation, English)');
      const popup = await h.openExtensionPage('popup.html', { width: 340, height: 420 });
      await popup.find('button', 'Open sidebar');
      await popup.screenshot(screenshotPath(browserName, 'en-popup'));
      await popup.close();
      // Back to the browser's language: Hebrew again.
      await options.select('Language', 'auto');
      await sidebar.waitFor(() => document.documentElement.dir === 'rtl');
      await sidebar.find('button', HE.send);
      await options.close();
      await sidebar.close();
    });
  });

  describe(`the dark theme in ${browserName}`, { timeout: 180_000 }, () => {
    let h;
    let model;
    const axe = axeReport(`${browserName}-dark`);

    async function audit(page, surface) {
      const violations = await runAxe(page);
      axe.add(surface, violations);
      assert.deepEqual(axe.serious(violations), [], `${surface} (dark): serious or critical axe violations`);
    }

    before(async () => {
      model = await startModelServer({ apiKey: 'sk-test-123' });
      h = await launch(browserName, { locale: 'he', colorScheme: 'dark' });
    });

    after(async () => {
      await axe.write().catch(() => undefined);
      await h?.close();
      await model?.close();
    });

    test('every surface passes axe in the dark theme (contrast included)', async () => {
      const options = await configureProviderHe(h, { baseUrl: model.url, apiKey: 'sk-test-123' });
      assert.ok(await options.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), 'the page sees the dark theme');
      for (const hash of ['#general', '#provider', '#plugins', '#permissions']) {
        await options.evaluate((h) => (location.hash = h), hash);
        await options.waitFor((h) => document.querySelector(`nav a[href="${h}"]`)?.getAttribute('aria-current') === 'page', hash);
        await sleep(400);
        await audit(options, `settings ${hash}`);
      }
      await options.screenshot(screenshotPath(browserName, 'he-dark-settings'));
      await options.close();

      const popup = await h.openExtensionPage('popup.html', { width: 340, height: 420 });
      await popup.find('button', 'פתיחת סרגל הצד');
      await audit(popup, 'popup');
      await popup.close();

      model.reset();
      model.queue([
        { text: 'אבדוק.', toolCalls: [{ name: 'list_tabs', arguments: {} }] },
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'להמשיך?', options: ['כן', 'לא'] } }] },
        { text: 'סיימתי.' },
      ]);
      const sidebar = await h.openExtensionPage('sidepanel.html');
      await sidebar.find('textbox', HE.message);
      await audit(sidebar, 'sidebar (empty)');
      await sidebar.fill(HE.message, 'מה פתוח?');
      await sidebar.click('button', HE.send);
      await sidebar.waitForText('להמשיך?');
      await audit(sidebar, 'sidebar (ask card)');
      await sidebar.screenshot(screenshotPath(browserName, 'he-dark-sidebar-ask'));
      await sidebar.click('button', 'כן');
      await sidebar.waitForText('סיימתי.');
      await sidebar.evaluate(() => document.querySelector('details.tool summary')?.click());
      await audit(sidebar, 'sidebar (conversation)');
      await sidebar.close();
    });
  });
}

// Trusted input (issue 41, Chrome): a page whose button, search field and order button act only on
// `event.isTrusted` input. With the setting off the agent's click changes nothing (synthetic
// events); switched on in Settings → Page actions, the same click works, typing and Enter reach the
// field as a person's, and a trusted click on a button that lies under the acting bar reaches the
// button, not the bar's Stop or Take over (the run goes on). When the run ends, the debugger is
// detached. Firefox: the setting is shown as not available.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar } from './helpers.mjs';
import { callBackground } from './memory-runs.mjs';
import { checkPlan, plan, refFor, runTask, tabWith } from './page-actions-helpers.mjs';

const SHOTS = process.env.SIDEQUEST_SHOTS ?? '';

const PAGE = {
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><title>Strict shop</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; padding: 16px; }
  #order { position: fixed; bottom: 18px; left: 50%; transform: translateX(-50%); width: 220px; height: 34px; }
</style></head>
<body><h1>Strict shop</h1>
<p>This shop ignores scripted input.</p>
<button id="buy">Buy now</button>
<p id="status">Nothing bought.</p>
<label>Search <input id="q"></label>
<p id="results">No search yet.</p>
<button id="order">Place order</button>
<p id="ordered">No order.</p>
<script>
  const $ = (id) => document.getElementById(id);
  $('buy').addEventListener('click', (e) => { if (e.isTrusted) $('status').textContent = 'Bought with a trusted click.'; });
  // Typing that is not a person's is undone.
  $('q').addEventListener('input', (e) => { if (!e.isTrusted) $('q').value = ''; });
  $('q').addEventListener('keydown', (e) => { if (e.key === 'Enter' && e.isTrusted) $('results').textContent = 'Searched for ' + $('q').value + '.'; });
  $('order').addEventListener('click', (e) => { if (e.isTrusted) $('ordered').textContent = 'Order placed.'; });
</script></body></html>`,
};

for (const browserName of selectedBrowsers()) {
  describe(`page actions with trusted input in ${browserName}`, { timeout: 120_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({ pages: { '/strict.html': PAGE } });
      h = await launch(browserName);
      // Firefox only looks at Settings: no run, no model.
      if (browserName !== 'firefox') (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    const shot = async (target, name) => {
      if (!SHOTS) return;
      await mkdir(SHOTS, { recursive: true });
      await target.raw.screenshot({ path: `${SHOTS}/${browserName}-${name}.png` });
    };

    /** Settings → Page actions, as a person finds it. */
    async function settingsPage() {
      const options = await h.openExtensionPage('options.html#page-actions', { width: 900, height: 520 });
      await options.waitForText('Trusted input (Chrome)');
      return options;
    }
    const trustedBox = (options) => options.raw.getByRole?.('checkbox', { name: 'Trusted input (Chrome)' });

    if (browserName === 'firefox') {
      test('Firefox: the setting is shown as not available (synthetic events stay)', async () => {
        const options = await settingsPage();
        await options.waitForText('Not available in Firefox');
        const box = await options.evaluate(() => {
          const input = [...document.querySelectorAll('input[type="checkbox"]')].find((el) => el.closest('label')?.textContent?.includes('Trusted input'));
          return input ? { disabled: input.disabled, checked: input.checked } : null;
        });
        assert.deepEqual(box, { disabled: true, checked: false });
        await shot(options, 'trusted-input-setting');
        await options.close();
      });
      return;
    }

    test('off: the click does nothing on a page that wants trusted input; on (Settings): the click, typing and Enter work, the bar lets a click through, and the debugger is detached after the run', async () => {
      model.reset();
      const page = await h.newPage(site.url('/strict.html'));
      await page.raw.setViewportSize({ width: 640, height: 520 });
      const sidebar = await openSidebar(h);
      const tabId = await tabWith(sidebar, '/strict.html');
      const act = (name, args) => ({ name, arguments: { tab_id: tabId, ...args } });
      let outline = '';

      // Off (the default): synthetic events, which this page ignores.
      const off = plan([
        () => act('read_page', {}),
        ({ last }) => {
          outline = last;
          return act('click', { ref: refFor(outline, 'button', 'Buy now') });
        },
        ({ last }) => {
          assert.match(last, /No visible change/, `the click changed nothing: ${last}`);
          assert.doesNotMatch(last, /synthetic events were used/, 'off is not a fallback: nothing to say');
          return { text: 'Finished.' };
        },
      ]);
      model.setScript(off);
      await runTask(sidebar, 'Buy it');
      checkPlan(off);
      assert.equal(await page.evaluate(() => document.getElementById('status').textContent), 'Nothing bought.');

      // On, through Settings, as a person does it.
      const options = await settingsPage();
      const box = trustedBox(options);
      assert.equal(await box.isChecked(), false, 'off by default');
      await box.click();
      await options.raw.waitForFunction(() => document.querySelector('input[type="checkbox"]:checked') !== null);
      await shot(options, 'trusted-input-setting');

      const on = plan([
        () => act('click', { ref: refFor(outline, 'button', 'Buy now') }),
        ({ last }) => {
          assert.match(last, /Bought with a trusted click/, `the trusted click worked: ${last}`);
          return act('fill', { ref: refFor(outline, 'textbox', 'Search'), text: 'blue mug', submit: true });
        },
        async ({ last }) => {
          assert.match(last, /Searched for blue mug\./, `typing and Enter were a person's: ${last}`);
          // The acting bar lies over the order button's centre: a trusted click there must reach the button, not Stop or Take over.
          const underBar = await page.evaluate(() => {
            const box = document.getElementById('order').getBoundingClientRect();
            return /^sidequest-bar-/i.test(document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)?.tagName ?? '');
          });
          assert.ok(underBar, 'the acting bar covers the order button');
          return act('click', { ref: refFor(outline, 'button', 'Place order') });
        },
        ({ last }) => {
          assert.match(last, /Order placed/, `the click under the bar reached the button: ${last}`);
          return { text: 'Finished.' };
        },
      ]);
      model.setScript(on);
      await runTask(sidebar, 'Buy it, search, order');
      checkPlan(on);
      const text = await page.evaluate(() => document.body.innerText);
      assert.match(text, /Bought with a trusted click\./);
      assert.match(text, /Searched for blue mug\./);
      assert.match(text, /Order placed\./);
      // The run ended: the debugger let go of the tab.
      let attached = -1;
      for (let i = 0; i < 50 && attached !== 0; i++) {
        attached = (await callBackground(sidebar, 'getRetainedCounts')).counts['page-actions/debuggedTabs'];
        if (attached !== 0) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(attached, 0, 'no debugger left attached after the run');

      // Off again: back to synthetic events.
      await box.click();
      await options.raw.waitForFunction(() => document.querySelector('input[type="checkbox"]:checked') === null);
      await options.close();
      await sidebar.close();
      await page.close();
    });
  });
}

// The page-actions tools' background side in real browsers, on a small page of our own: the
// scripted model reads the page, types into a field and clicks a button (the page's script sees
// it), takes a screenshot (captured, scaled and encoded where the background runs), follows a
// link (the click navigates: the result is the new page's head), goes back, and tries an address
// that is not a web page. The sidebar shows each call. The big suite on real apps is
// page-actions.test.mjs; this one stays small.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { configureProvider, openSidebar, sendMessage, tabIdOf, unwrapUntrusted, waitForIdle } from './helpers.mjs';

const html = (title, body) => ({ type: 'text/html; charset=utf-8', body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body>${body}</body></html>` });

const PAGES = {
  '/basic/list.html': html(
    'Shopping list',
    `<h1>Shopping</h1>
<label for="item">New item</label> <input id="item">
<button id="add" type="button">Add</button>
<ul id="list"></ul>
<p><a href="/basic/done.html">Finish the list</a></p>
<script>
  document.getElementById('add').addEventListener('click', () => {
    const field = document.getElementById('item');
    const li = document.createElement('li');
    li.textContent = field.value;
    document.getElementById('list').append(li);
    field.value = '';
  });
</script>`,
  ),
  '/basic/done.html': html('All done', '<h1>Thanks</h1><p>Your list is saved.</p><button type="button">Start over</button>'),
};

const toolResults = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));

/** The ref of the outline line of this role and name (`- button "Add" [ref=e3]`). */
function refOf(outline, role, name) {
  const line = outline.split('\n').find((l) => l.includes(`${role} "${name}"`) && /\[ref=e\d+\]/.test(l));
  assert.ok(line, `no ${role} "${name}" in the outline:\n${outline}`);
  return line.match(/\[ref=(e\d+)\]/)[1];
}

for (const browserName of selectedBrowsers()) {
  describe(`page actions, basic, in ${browserName}`, { timeout: 180_000 }, () => {
    let h;
    let model;
    let site;

    before(async () => {
      model = await startModelServer();
      site = await startFixtureServer({ pages: PAGES });
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
    });

    test('read_page, fill, click, screenshot, a click that navigates, back, and a refused address', async () => {
      const page = await h.newPage(site.url('/basic/list.html'));
      const sidebar = await openSidebar(h);
      const tabId = await tabIdOf(sidebar, '/basic/list.html');
      let outline = '';
      model.setScript(async (req) => {
        const results = toolResults(req);
        const call = (name, args = {}) => ({ toolCalls: [{ name, arguments: { tab_id: tabId, ...args } }] });
        switch (results.length) {
          case 0:
            return call('read_page');
          case 1:
            outline = unwrapUntrusted(JSON.parse(results[0]).outline)?.content ?? '';
            return call('fill', { ref: refOf(outline, 'textbox', 'New item'), text: 'buy milk' });
          case 2:
            return call('click', { ref: refOf(outline, 'button', 'Add') });
          case 3:
            // Only the tab in front of its window can be captured.
            await page.raw.bringToFront();
            return call('screenshot');
          case 4:
            // The sidebar back in front (Firefox slows the timers of a tab behind others).
            await sidebar.raw.bringToFront();
            return call('click', { ref: refOf(outline, 'link', 'Finish the list') });
          case 5:
            return call('navigate', { action: 'back' });
          case 6:
            return call('navigate', { url: 'javascript:alert(1)' });
          default:
            return { text: 'Finished the list.' };
        }
      });
      await sendMessage(sidebar, 'Add milk to my list, look at it, then finish the list');
      await sidebar.waitForText('Finished the list.', { timeout: 90_000 }).catch((error) => {
        // What the model got so far says which step failed.
        throw new Error(`${error.message}\nTool results so far:\n${toolResults(model.requests.at(-1) ?? { messages: [] }).join('\n---\n')}`);
      });
      await waitForIdle(sidebar);

      const results = toolResults(model.requests.at(-1));
      assert.equal(results.length, 7, results.join('\n---\n'));
      const [read, filled, clicked, shot, followed, back, refused] = results.map((r) => {
        try {
          return JSON.parse(r);
        } catch {
          return r;
        }
      });
      assert.equal(read.tab_id, tabId);
      assert.equal(read.url, site.url('/basic/list.html'));
      assert.equal(unwrapUntrusted(read.title)?.content, 'Shopping list', 'the title, in the envelope');
      assert.match(outline, /heading "Shopping"/);

      assert.equal(filled.url, site.url('/basic/list.html'), JSON.stringify(filled));
      assert.match(clicked.changed, /buy milk/, 'the click\'s result shows the new item');
      assert.match(unwrapUntrusted(clicked.changed)?.content ?? '', /buy milk/);
      // The item is in the list: the page's own script saw the typing and the click (the list
      // itself is gone by now: the page was left and loaded again).
      assert.match(unwrapUntrusted(clicked.changed)?.content ?? '', /listitem/);

      assert.ok(shot.width > 0 && shot.width <= 1280 && shot.height > 0 && shot.height <= 1280, JSON.stringify(shot));
      assert.match(shot.note, /JPEG/);

      assert.equal(followed.url, site.url('/basic/done.html'), JSON.stringify(followed));
      assert.match(followed.note, /^The page navigated to .*\/basic\/done\.html/);
      assert.match(unwrapUntrusted(followed.changed)?.content ?? '', /heading "Thanks"/);
      assert.equal(unwrapUntrusted(followed.title)?.content, 'All done');

      assert.equal(back.url, site.url('/basic/list.html'), JSON.stringify(back));
      assert.match(back.note, /^Went back to/);

      assert.match(String(refused), /navigate only loads http:\/\/ and https:\/\/ addresses, not javascript: ones/);

      // The sidebar shows each call.
      const cards = await sidebar.texts('details.tool summary');
      assert.deepEqual(
        cards.map((c) => c.match(/read_page|fill|click|screenshot|navigate/)?.[0]),
        ['read_page', 'fill', 'click', 'screenshot', 'click', 'navigate', 'navigate'],
      );
      await sidebar.close();
      await page.close();
    });
  });
}

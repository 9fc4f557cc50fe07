// Skills end to end (issue 21), in both browsers, with the scripted model and a small todo site of
// our own that counts what reaches it: a run with tool calls is saved as a skill from the sidebar
// (Save as skill), replayed with `/add-todo item="buy bread"` while the model server answers only
// errors (the same effects on the page and on the site's server, no request to the model, 0
// tokens), handed over to the model when the page changed (the model gets the skill's instruction
// and the failure, finishes; Update skill is offered), run on a schedule (the acting step was not
// allowed ahead: it waits with a card, a notification and the badge, until approved; where a step
// fails, the model that takes over gets none of the grants: its read of the site the replay could
// read without asking asks too), and exported,
// deleted and imported again from Settings → Skills; crafted files are refused and add nothing.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { contentText, startModelServer } from '../model-server/server.mjs';
import { launch, selectedBrowsers } from './harness.mjs';
import { answerCard, configureProvider, firstCard, openSidebar, sendMessage, startSite, tabIdOf, unwrapUntrusted, waitForIdle } from './helpers.mjs';

/**
 * The todo page: a "New item" box and an Add button (or, `changed`, no button: Enter adds).
 * Each added item is also sent to the site (`/api/add?item=`), so the server counts the effects.
 */
function todoPage(changed) {
  const button = changed ? '<p>Press Enter to add.</p>' : '<button id="add" type="submit">Add</button>';
  return `<!doctype html><html lang="en"><head><title>Todos</title></head><body>
<h1>Todos</h1>
<form id="form"><label for="item">New item</label> <input id="item" autocomplete="off"> ${button}</form>
<ul id="list"></ul>
<script>
  document.getElementById('form').addEventListener('submit', (event) => {
    event.preventDefault();
    const field = document.getElementById('item');
    const text = field.value.trim();
    if (!text) return;
    const li = document.createElement('li');
    li.textContent = text;
    document.getElementById('list').append(li);
    field.value = '';
    fetch('/api/add?item=' + encodeURIComponent(text)).catch(() => {});
  });
</script></body></html>`;
}

const toolResults = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));
const parsed = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};
/** The outline a read_page result printed (inside its untrusted envelope). */
const outlineOf = (text) => {
  const value = parsed(text);
  return unwrapUntrusted(value?.outline)?.content ?? String(value?.outline ?? text);
};
function refOf(outline, role, name) {
  const line = outline.split('\n').find((l) => l.includes(`${role} "${name}"`) && /\[ref=e\d+\]/.test(l));
  assert.ok(line, `no ${role} "${name}" in the outline:\n${outline}`);
  return line.match(/\[ref=(e\d+)\]/)[1];
}
const systemText = (req) => req.messages.filter((m) => m.role === 'system').map((m) => contentText(m)).join('\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Reads `read` until `ok` holds of it or `timeout` ms pass; returns the last reading. */
async function eventually(read, ok, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await sleep(250);
  }
}

/** The items the page lists. */
const items = (page) => page.evaluate(() => [...document.querySelectorAll('#list li')].map((li) => li.textContent));
async function waitForItem(page, text, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const list = await items(page).catch(() => []);
    if (list.includes(text)) return list;
    if (Date.now() > deadline) throw new Error(`The page never listed "${text}"; it lists ${JSON.stringify(list)}`);
    await sleep(150);
  }
}

/** The badge's text, read from an extension page (`action` in MV3, `browserAction` in Firefox MV2). */
const badgeText = (page) =>
  page.evaluate(async () => {
    const api = globalThis.browser ?? globalThis.chrome;
    return (api.action ?? api.browserAction).getBadgeText({});
  });

/** Opens Settings → Skills and waits for its list or its empty state. */
async function openSkillsSettings(h) {
  const options = await h.openExtensionPage('options.html', { width: 1000, height: 900 });
  await options.click('link', 'Skills');
  await options.waitFor(() => Boolean(document.querySelector('[data-skill], .skills-settings .empty')), undefined, { timeout: 15_000 });
  return options;
}

/** Sets an input's value as typing would (date and time inputs are not text boxes for the drivers). */
const setValue = (page, selector, value) =>
  page.evaluate(
    ({ selector, value }) => {
      const el = document.querySelector(selector);
      el.value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    },
    { selector, value },
  );

for (const browserName of selectedBrowsers()) {
  describe(`skills in ${browserName}`, { timeout: 900_000 }, () => {
    let h;
    let model;
    let site;
    let changed = false;
    let sidebar;
    let page;
    let tmp;

    before(async () => {
      model = await startModelServer();
      site = await startSite('tools.example', {
        '/todo.html': () => ({ body: todoPage(changed) }),
        '/api/add': () => ({ type: 'text/plain', body: 'ok' }),
      });
      tmp = await mkdtemp(path.join(os.tmpdir(), 'sidequest-skills-'));
      h = await launch(browserName);
      (await configureProvider(h, { baseUrl: model.url })).close();
    });

    after(async () => {
      await h?.close();
      await model?.close();
      await site?.close();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    /** Loads the todo page again (the harness's reload waits for an extension page's app). */
    const reloadTodo = async () => {
      await page.raw.goto(site.url('/todo.html'));
      await page.waitFor(() => Boolean(document.querySelector('#item')));
    };

    const adds = () => site.requests.filter((r) => r.startsWith('/api/add')).map((r) => new URL(r, 'http://x').searchParams.get('item'));

    test('a run with tool calls is saved as a skill (Save as skill) and listed in Settings → Skills', async () => {
      page = await h.newPage(site.url('/todo.html'));
      sidebar = await openSidebar(h);
      const tabId = await tabIdOf(sidebar, '/todo.html');
      let outline = '';
      model.setScript((req) => {
        const results = toolResults(req);
        const call = (name, args = {}) => ({ toolCalls: [{ name, arguments: { tab_id: tabId, ...args } }] });
        if (results.length === 0) return call('read_page');
        if (results.length === 1) {
          outline = outlineOf(results[0]);
          return call('fill', { ref: refOf(outline, 'textbox', 'New item'), text: 'buy milk' });
        }
        if (results.length === 2) return call('click', { ref: refOf(outline, 'button', 'Add') });
        return { text: 'Finished: "buy milk" is on your list.' };
      });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, 'Add "buy milk" to my todo list');
      await sidebar.waitForText('Finished: "buy milk" is on your list.', { timeout: 60_000, within: 'main' });
      await waitForIdle(sidebar);
      await waitForItem(page, 'buy milk');
      assert.deepEqual(adds(), ['buy milk']);

      await sidebar.click('button', 'Save as skill', { timeout: 15_000 });
      await sidebar.find('dialog', 'Save as skill');
      const dialogText = await sidebar.text('[role="dialog"]');
      assert.match(dialogText, /read_page/);
      assert.match(dialogText, /fill/);
      assert.match(dialogText, /click/);
      for (const n of [1, 2, 3]) await sidebar.find('checkbox', `Keep step ${n}`);
      await sidebar.fill('Name', 'add-todo');
      // "buy milk" is a parameter: found in the instruction, or made one beside its literal.
      const found = await sidebar.find('textbox', 'Parameter 1 name', { timeout: 1500 }).catch(() => null);
      if (!found) {
        const selector = await sidebar.evaluate(() => {
          const rows = [...document.querySelectorAll('[role="dialog"] *')].filter((el) => el.querySelector(':scope > button') && /buy milk/.test(el.textContent ?? ''));
          const button = [...(rows.at(-1)?.querySelectorAll(':scope > button') ?? [])].find((b) => (b.getAttribute('aria-label') ?? b.textContent).includes('Make a parameter'));
          if (!button) return null;
          button.setAttribute('data-e2e', 'make-param');
          return '[data-e2e="make-param"]';
        });
        assert.ok(selector, `a Make a parameter button beside "buy milk":\n${dialogText}`);
        await sidebar.raw.click(selector);
      }
      await sidebar.fill('Parameter 1 name', 'item');
      await sidebar.click('button', 'Save');
      await sidebar.waitFor(() => !document.querySelector('[role="dialog"]'), undefined, { timeout: 10_000 });

      const options = await openSkillsSettings(h);
      await options.waitForText('/add-todo');
      const row = await options.text('[data-skill="add-todo"]');
      assert.match(row, /3 steps/);
      assert.match(row, /item=/);
      await options.close();
    });

    test('/add-todo item="buy bread" replays without the model: same effects, no model request, 0 tokens', async () => {
      model.setScript(() => ({ status: 500, errorBody: { error: { message: 'The scripted model is down.' } } }));
      const before = model.requests.length;
      const addsBefore = adds().length;
      await reloadTodo();
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, '/add-todo item="buy bread"');
      await sidebar.waitForText('Replayed', { timeout: 60_000, within: 'main' });
      await waitForIdle(sidebar, 60_000);
      await waitForItem(page, 'buy bread');
      assert.deepEqual(adds().slice(addsBefore), ['buy bread'], 'the site got the same effect, once');
      assert.equal(model.requests.length, before, 'the model server got no request');
      const main = await sidebar.text('main');
      assert.match(main, /\b0 (model )?tokens\b/, `the run says it cost 0 tokens:\n${main.slice(-1500)}`);
      assert.doesNotMatch(main, /scripted model is down/);
      const cards = await sidebar.texts('details.tool summary');
      assert.deepEqual(
        cards.map((c) => c.match(/read_page|fill|click/)?.[0]),
        ['read_page', 'fill', 'click'],
        'each step is shown like a tool call',
      );
    });

    test('a step that fails on a changed page hands over to the model, which finishes; Update skill is offered', async () => {
      changed = true;
      await reloadTodo();
      const before = model.requests.length;
      let handOver = null;
      model.setScript((req) => {
        handOver ??= req;
        const results = toolResults(req);
        const outline = results.map(outlineOf).reverse().find((o) => /textbox "New item"/.test(o));
        if (!req.messages.some((m) => m.role === 'assistant' && JSON.stringify(m).includes('submit'))) {
          const tabId = results.map(parsed).find((r) => r && typeof r === 'object' && r.tab_id)?.tab_id;
          return { toolCalls: [{ name: 'fill', arguments: { tab_id: tabId, ref: refOf(outline ?? '', 'textbox', 'New item'), text: 'buy eggs', submit: true } }] };
        }
        return { text: 'Finished: the Add button is gone, so I pressed Enter.' };
      });
      await sidebar.click('button', 'New conversation');
      await sendMessage(sidebar, '/add-todo item="buy eggs"');
      await sidebar.waitForText('Finished: the Add button is gone', { timeout: 90_000, within: 'main' });
      await waitForIdle(sidebar, 60_000);
      await waitForItem(page, 'buy eggs');
      assert.ok(model.requests.length > before, 'the model was called');
      const system = systemText(handOver);
      assert.match(system, /buy eggs/, 'the hand-over note holds the skill\'s instruction with its arguments');
      assert.match(system, /add-todo/);
      // The note names the step that failed and why (the Add button is gone from the page), after
      // the steps that ran.
      assert.match(system, /Steps done:\n1\. read_page: done\.\n2\. fill: done\.\n3\. click: not run, it could not be prepared\./, `the steps done, and the one that failed:\n${system.slice(-2000)}`);
      const wrong = /^What went wrong: (.*)$/m.exec(system)?.[1] ?? '';
      assert.match(wrong, /^Step 3 \(click\) could not be prepared: /, `the failing step:\n${system.slice(-2000)}`);
      assert.match(wrong, /No button \\?"Add\\?" in the result of step 1: the page changed/, `its reason: ${wrong}`);
      await sidebar.click('button', 'Update skill', { timeout: 15_000 });
      await sidebar.find('dialog', 'Update skill');
      await sidebar.click('button', 'Cancel');
      changed = false;
      await reloadTodo();
    });

    test('a schedule fires: the acting step not allowed ahead waits with a card, a notification and the badge; where a step fails, the model that takes over has no grant: its read, allowed ahead for the replay, asks too', async () => {
      await sidebar.close();
      sidebar = await openSidebar(h, { autoApprove: false });
      // The page changed: the replay's click on Add cannot be prepared, and the model takes over.
      changed = true;
      await reloadTodo();
      model.reset();
      model.setScript((req) => {
        const results = toolResults(req);
        const tabId = results.map(parsed).find((r) => r && typeof r === 'object' && r.tab_id)?.tab_id;
        // The replay ran read_page and fill (its click could not be prepared). The model's own first
        // call: a read of the page, the tool and site the replay was granted; then Enter adds the item.
        if (results.length === 2) return { toolCalls: [{ name: 'read_page', arguments: { tab_id: tabId } }] };
        if (results.length === 3) {
          const outline = outlineOf(results[2]);
          return { toolCalls: [{ name: 'fill', arguments: { tab_id: tabId, ref: refOf(outline, 'textbox', 'New item'), text: 'buy milk', submit: true } }] };
        }
        return { text: 'Finished the scheduled run.' };
      });
      const options = await openSkillsSettings(h);
      // Firefox headless closes a notification as soon as it is made (no alert service), so
      // getAll() is empty there: the background's own calls are recorded instead (its MV2
      // background page is reachable from an extension page).
      if (browserName === 'firefox') {
        await options.evaluate(async () => {
          const bg = await globalThis.browser.runtime.getBackgroundPage();
          const api = bg.browser.notifications;
          const create = api.create;
          bg.__notified = [];
          api.create = function (id, options) {
            bg.__notified.push(String(id));
            return create.call(api, id, options);
          };
        });
      }
      // The same skill bound to the todo site instead of the user's tab (a skills file says so), so
      // that reading there can be allowed ahead: exported, changed, imported as /add-todo-site.
      const exported = JSON.parse((await h.download(options, () => options.click('button', 'Export'))).text);
      const bound = JSON.parse(JSON.stringify(exported.skills[0]), (_key, value) =>
        value && typeof value === 'object' && value.$tab && value.$tab.user === true ? { $tab: { url: site.url('/todo.html') } } : value,
      );
      assert.notDeepEqual(bound, exported.skills[0], 'the skill named the user\'s tab');
      const boundFile = path.join(tmp, 'add-todo-site.json');
      await writeFile(boundFile, JSON.stringify({ ...exported, skills: [{ ...bound, name: 'add-todo-site' }] }));
      await options.setInputFile('input[type="file"][aria-label="Import skills file"]', boundFile);
      await options.waitForText('Added 1 skill: /add-todo-site');
      await options.raw.click('[data-skill="add-todo-site"] button[aria-haspopup="dialog"]');
      await options.find('dialog', 'Schedule');
      await options.select('Repeat', 'once');
      // The next minute at least 20 s away, in the browser's (this machine's) time zone.
      const at = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
      const pad = (n) => String(n).padStart(2, '0');
      await setValue(options, '[role="dialog"] input[type="date"]', `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`);
      await setValue(options, '[role="dialog"] input[type="time"]', `${pad(at.getHours())}:${pad(at.getMinutes())}`);
      const labels = await options.evaluate(() => [...document.querySelectorAll('[role="dialog"] input[type="checkbox"]')].map((b) => b.getAttribute('aria-label')));
      assert.ok(labels.some((l) => /^Allow fill (on .+ )?without asking$/.test(l)), JSON.stringify(labels));
      // Reading on the todo site is allowed ahead; typing and clicking are not (they ask).
      const readable = await options.evaluate(() =>
        [...document.querySelectorAll('[role="dialog"] input[type="checkbox"]:not(:disabled)')].map((b) => b.getAttribute('aria-label')).filter((l) => l.startsWith('Allow read_page')),
      );
      assert.deepEqual(readable, [`Allow read_page on ${site.origin} without asking`], `reading on the site can be allowed ahead: ${JSON.stringify(labels)}`);
      for (const label of readable) await options.click('checkbox', label);
      await options.click('button', 'Save schedule');
      await options.waitForText('/add-todo-site is scheduled');
      const addsBefore = adds().length;

      // The run starts in a conversation named after the skill; its first acting step waits.
      await sidebar.waitForText(/add-todo-site — /, { timeout: Math.max(30_000, at - Date.now() + 45_000), within: 'body' });
      // The conversation shows before its first step asks, and the notification follows the ask.
      const notified = () =>
        browserName === 'firefox'
          ? options.evaluate(async () => [...(await globalThis.browser.runtime.getBackgroundPage()).__notified])
          : options.evaluate(async () => Object.keys(await globalThis.chrome.notifications.getAll()));
      const notifications = await eventually(notified, (ids) => ids.some((id) => id.startsWith('skills-ask:')), 30_000);
      assert.ok(notifications.some((id) => id.startsWith('skills-ask:')), `a notification: ${JSON.stringify(notifications)}`);
      assert.match(String(await eventually(() => badgeText(options), (text) => /^[1-9]/.test(String(text)), 10_000)), /^[1-9]/, 'the badge counts what waits');
      assert.equal(adds().length, addsBefore, 'nothing was typed or clicked before a yes');
      await sidebar.click('button', 'Open');
      const cards = [];
      for (let answered = 0; ; answered++) {
        const card = await firstCard(sidebar, 30_000).catch(() => null);
        if (!card) break;
        assert.ok(answered < 5, `no more cards than steps: ${JSON.stringify(cards)}`);
        cards.push(card);
        await answerCard(sidebar, 'once');
        if (await sidebar.find('button', 'Send', { timeout: 1000 }).catch(() => null)) break;
      }
      await waitForIdle(sidebar, 60_000);
      await waitForItem(page, 'buy milk');
      assert.deepEqual(adds().slice(addsBefore), ['buy milk'], 'the model finished the scheduled run with the skill\'s default item');
      // The replay's read was granted ahead and asked nothing; the model's read of the same page,
      // after the hand-over, asked (with a notification, as every ask of a scheduled run).
      const reads = cards.filter((c) => /read_page/.test(c));
      assert.equal(reads.length, 1, `the model's read asked, the replay's did not: ${JSON.stringify(cards)}`);
      assert.match(reads[0], /scheduled/, `it asks as a scheduled run's call: ${reads[0]}`);
      assert.equal(cards.length, 3, `the replay's fill, the model's read and its fill: ${JSON.stringify(cards)}`);
      await sidebar.waitForText('Finished the scheduled run', { within: 'main' });
      changed = false;
      await reloadTodo();
      // The site-bound copy goes; the next test exports and imports /add-todo alone.
      await options.raw.bringToFront?.();
      await options.evaluate(() => [...document.querySelectorAll('[data-skill="add-todo-site"] button')].find((b) => b.textContent.trim() === 'Delete').click());
      await options.click('button', 'Yes, delete');
      await options.waitFor(() => !document.querySelector('[data-skill="add-todo-site"]'));
      await options.close();
      await sidebar.close();
      sidebar = await openSidebar(h);
    });

    test('Export, Delete and Import bring a skill back; crafted files are refused and add nothing', async () => {
      const options = await openSkillsSettings(h);
      const file = await h.download(options, () => options.click('button', 'Export'));
      assert.equal(file.name, 'add-todo.sidequest-skill.json');
      const exported = JSON.parse(file.text);
      assert.equal(exported.format, 'sidequest-skills');
      assert.equal(exported.skills[0].name, 'add-todo');

      await options.click('button', 'Delete');
      await options.click('button', 'Yes, delete');
      await options.waitForText('No skills yet.');

      const input = 'input[type="file"][aria-label="Import skills file"]';
      const put = async (name, text) => {
        const p = path.join(tmp, name);
        await writeFile(p, text);
        await options.setInputFile(input, p);
      };
      await put('add-todo.sidequest-skill.json', file.text);
      await options.waitForText('Added 1 skill: /add-todo');
      await options.waitFor(() => Boolean(document.querySelector('[data-skill="add-todo"]')));

      // Each crafted file with the error it must get: its own, so that the wait below is for this
      // file's error (the alert of the file before stays up until this one is read).
      const proto = file.text.replace('"name": "add-todo"', '"__proto__": { "polluted": true }, "name": "proto-skill"');
      assert.notEqual(proto, file.text, 'the __proto__ key was put into the exported file');
      assert.ok(Object.keys(JSON.parse(proto).skills[0]).includes('__proto__'), 'the crafted skill has its own __proto__ key');
      const crafted = {
        'wrong-format.json': {
          text: JSON.stringify({ format: 'something-else', version: 1, skills: [] }),
          error: /^This file cannot be imported: This is not a Sidequest skills file\.$/,
        },
        'proto.json': { text: proto, error: /^This file cannot be imported: .*it has the key skills\[0\]\.__proto__, which no skill has/ },
        'huge.json': {
          text: JSON.stringify({ ...exported, skills: [{ ...exported.skills[0], name: 'huge-skill', description: 'x'.repeat(1_500_000) }] }),
          error: /^This file cannot be imported: .*description/,
        },
        'not-json.json': { text: '{ "format": "sidequest-skills", ', error: /^not-json\.json is not a skills file: it is not JSON\.$/ },
      };
      const alert = '.skills-settings > [role="alert"]';
      for (const [name, { text, error: expected }] of Object.entries(crafted)) {
        await put(name, text);
        await options.waitForText(expected, { within: alert, timeout: 10_000 }).catch(async (error) => {
          throw new Error(`${name}: not its error (${expected}); the page shows:\n${(await options.text('main')).slice(0, 1500)}`, { cause: error });
        });
        const error = await options.text(alert);
        const names = await options.evaluate(() => [...document.querySelectorAll('[data-skill]')].map((el) => el.getAttribute('data-skill')));
        assert.deepEqual(names, ['add-todo'], `${name}: nothing added (${error})`);
        assert.equal(await options.evaluate(() => ({}).polluted), undefined);
      }
      await options.close();
    });
  });
}

// Steps shared by the end-to-end scenarios, done through the UI as a person would.

/**
 * Sets the model provider on the options page, and checks that it says so: the default profile's
 * address and model, or, given `provider` (its name in the Provider list), a new profile of that
 * type, which becomes the default.
 */
export async function configureProvider(h, { baseUrl, model = 'scripted-model', apiKey = '', provider }) {
  const options = await h.openExtensionPage('options.html', { width: 1000, height: 800 });
  await options.click('link', 'Model provider');
  // The form fills itself with the saved settings when they arrive: type only after that, or the
  // late arrival overwrites what was typed (seen on a busy machine).
  await options.waitFor(() => Boolean(document.querySelector('#base-url')?.value));
  if (provider) {
    await choose(options, 'Profile', 'New profile…');
    await choose(options, 'Provider', provider);
  }
  await options.fill('Base URL', baseUrl);
  await options.fill('Model', model);
  if (apiKey) await options.fill('API key', apiKey);
  await options.click('button', 'Save');
  await options.waitForText('Saved.');
  return options;
}

/** Chooses an option of a select by its visible text (both drivers select by value). */
export async function choose(page, label, optionText) {
  const selector = await page.find('combobox', label);
  const value = await page.evaluate(([s, text]) => [...document.querySelector(s).options].find((o) => o.textContent.trim() === text)?.value, [selector, optionText]);
  if (value === undefined) throw new Error(`The ${label} select does not offer "${optionText}".`);
  await page.select(label, value);
}

/**
 * Opens the sidebar page in a tab (neither browser can show its real sidebar headless). By default
 * it then clicks **Allow once** on every approval card that appears, as a person who approves
 * whatever the agent does would: scenarios about something else need not answer each ask.
 * A test that checks whether the sidebar asks (or does not) must not rely on that: it passes
 * `{ autoApprove: false }` and answers the cards itself, or pauses the clicking for a while with
 * `sidebar.stopApproving()` (then `approveAll(sidebar)` again).
 */
export async function openSidebar(h, { autoApprove = true } = {}) {
  const sidebar = await h.openExtensionPage('sidepanel.html');
  await sidebar.find('textbox', 'Message');
  if (autoApprove) sidebar.stopApproving = approveAll(sidebar);
  return sidebar;
}

/** Waits for an approval card that takes answers and returns its text (the tool, the site, why it asks, the arguments). */
export async function nextApproval(sidebar, { timeout = 20_000 } = {}) {
  await sidebar.waitFor((sel) => Boolean(document.querySelector(sel)), ALLOW_ONCE, { timeout });
  return sidebar.evaluate((sel) => document.querySelector(sel).closest('[data-approval]').textContent.replace(/\s+/g, ' ').trim(), ALLOW_ONCE);
}

/**
 * The Allow once button of an approval card that takes answers: a card's buttons do nothing until
 * it has been on screen for a moment (`data-armed` then), so clicks wait for this.
 */
export const ALLOW_ONCE = '[data-approval][data-armed] button[data-answer="once"]';

/**
 * Clicks Allow once on each approval card the page shows, once it is armed, until the page is closed. Returns the
 * function that stops it; `page.approved` counts the clicks, `page.approvals` keeps each card's text.
 */
export function approveAll(page) {
  let stopped = false;
  page.approved ??= 0;
  page.approvals ??= [];
  const close = page.close;
  page.close = async () => {
    stopped = true;
    return close();
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());
  (async () => {
    while (!stopped) {
      try {
        const waiting = await page.evaluate((sel) => document.querySelector(sel)?.closest('[data-approval]')?.textContent.replace(/\s+/g, ' ').trim() ?? null, ALLOW_ONCE);
        if (waiting !== null && !stopped) {
          await page.raw.click(ALLOW_ONCE, { timeout: 2000 });
          page.approved++;
          page.approvals.push(waiting);
        }
      } catch (error) {
        // A card answered meanwhile or a page reloading: try again; a closed page: done.
        if (/closed/i.test(String(error?.message))) return;
      }
      await sleep(150);
    }
  })();
  return () => {
    stopped = true;
  };
}

/**
 * Types a message in the sidebar and sends it with the Send button, then waits (up to 5 s) until
 * it is shown as the conversation's last message of the user: what a test waits for next must not
 * be matched by what the sidebar showed before (another conversation's answer).
 */
export async function sendMessage(sidebar, text) {
  await sidebar.fill('Message', text);
  await sidebar.click('button', 'Send');
  const first = text.trim().split('\n')[0];
  await sidebar
    .waitFor((line) => [...document.querySelectorAll('main article.user')].at(-1)?.textContent.includes(line) ?? false, first, { timeout: 5000 })
    .catch(() => undefined);
}

/** Waits until no run is going in the sidebar (the Send button is back). */
export async function waitForIdle(sidebar, timeout = 20_000) {
  await sidebar.find('button', 'Send', { timeout });
}

/**
 * The visible text of the last assistant answer's Markdown, once it holds still: the Markdown view
 * paints at most once per animation frame (or after 250 ms in a page that paints none), so the Send
 * button can be back a frame before the answer's last words are on screen. Each read waits for two
 * frames (at most 300 ms), and the text counts once two reads agree.
 */
export async function lastAnswer(sidebar) {
  const read = () =>
    sidebar.evaluate(
      () =>
        new Promise((resolve) => {
          const done = () => resolve([...document.querySelectorAll('article.assistant .markdown')].at(-1)?.innerText ?? '');
          const timer = setTimeout(done, 300);
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              clearTimeout(timer);
              done();
            }),
          );
        }),
    );
  let text = await read();
  for (const until = Date.now() + 5000; Date.now() < until; ) {
    const again = await read();
    if (again === text) break;
    text = again;
  }
  return text;
}

/**
 * Lets web_fetch read the fixture servers on 127.0.0.1: the test-only allow-list of loopback
 * origins, a secret of the web plugin (`web.test.localOrigins` in IndexedDB, see
 * plugins/web/local-allow.ts), written from an extension page (web pages cannot reach it).
 */
export async function allowLocalOrigins(page, origins) {
  await putTestSecret(page, 'web.test.localOrigins', JSON.stringify(origins));
}

/**
 * Writes a test-only entry in the extension's IndexedDB `secrets` table from an extension page
 * (web pages and content scripts cannot reach it): the web plugin's local-origin allow-list and
 * search endpoints are set this way.
 */
export async function putTestSecret(page, key, value) {
  await page.evaluate(
    async ({ key, value }) => {
      const db = await new Promise((resolve, reject) => {
        const request = indexedDB.open('sidequest');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
        request.onupgradeneeded = () => {
          request.transaction?.abort();
          reject(new Error('the extension has not created its database yet'));
        };
      });
      await new Promise((resolve, reject) => {
        const tx = db.transaction('secrets', 'readwrite');
        tx.objectStore('secrets').put({ key, value });
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
      });
      db.close();
    },
    { key, value },
  );
}

const ENVELOPE = /^<<<UNTRUSTED BEGIN ([0-9a-f]{16}) source="([^"\n]*)"; [^\n]*>>>\n([\s\S]*)\n<<<UNTRUSTED END \1>>>$/;

/** The source and content of an untrusted envelope (core/registry/untrusted.ts), or null. */
export function unwrapUntrusted(text) {
  const match = typeof text === 'string' ? ENVELOPE.exec(text) : null;
  return match ? { source: match[2], content: match[3] } : null;
}

/**
 * The JSON value inside an untrusted envelope, from a tool message's text as the model receives it
 * (the envelope is the tool's output, so it arrives JSON-encoded): `list_tabs`' tabs,
 * `list_page_tools`' listing. Throws when the text is not one envelope.
 */
export function untrustedJson(text) {
  let value = text;
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed === 'string') value = parsed;
  } catch {
    // Not JSON: the envelope itself.
  }
  const inside = unwrapUntrusted(value);
  if (!inside) throw new Error(`Not an untrusted envelope: ${String(text).slice(0, 200)}`);
  return JSON.parse(inside.content);
}

/**
 * A site on 127.0.0.1 reached by one of the test host names (`TEST_HOSTS`, harness.mjs): `routes`
 * maps a path to a function of the URL returning `{status, type, body, headers}`. Records every
 * request's path and query in `requests`.
 */
export async function startSite(host, routes) {
  const http = await import('node:http');
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    const url = new URL(req.url ?? '/', 'http://x');
    const route = routes[url.pathname];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const { status = 200, type = 'text/html; charset=utf-8', body = '', headers = {} } = route(url);
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const origin = `http://${host}:${port}`;
  return { origin, host: `${host}:${port}`, requests, url: (p) => `${origin}${p}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

/** A route's answer: an HTML page with this title and body. */
export const htmlPage = (title, body) => ({ body: `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>` });

/** Waits for the first approval card the sidebar shows and returns its text (failing with what the sidebar shows). */
export async function firstCard(sidebar, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const shown = await sidebar.texts('[data-approval]');
    if (shown.length) return shown[0];
    if (Date.now() > deadline) throw new Error(`No approval card; the sidebar shows:\n${(await sidebar.text('main')).slice(0, 1500)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Clicks one of the first card's answers (`once`, `always`, `deny`) once it takes input, and waits for that card to go. */
export async function answerCard(sidebar, which) {
  const selector = `[data-approval][data-armed] button[data-answer="${which}"]`;
  await sidebar.waitFor((sel) => Boolean(document.querySelector(sel)), selector);
  const id = await sidebar.evaluate(() => document.querySelector('[data-approval]')?.getAttribute('aria-labelledby'));
  await sidebar.raw.click(selector);
  // Until that card is gone (the next one may already be there).
  await sidebar.waitFor((cardId) => document.querySelector('[data-approval]')?.getAttribute('aria-labelledby') !== cardId, id, { timeout: 10_000 });
}

/** Counts the approval cards that appear in the page from now on (`window.__asks`). */
export async function countAsks(sidebar) {
  await sidebar.evaluate(() => {
    window.__asks = 0;
    if (window.__asksWatched) return;
    window.__asksWatched = true;
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1 && (n.matches('[data-approval]') || n.querySelector('[data-approval]'))) window.__asks++;
    }).observe(document.body, { childList: true, subtree: true });
  });
}

/** The id of the newest tab whose address ends with `suffix`, as the extension sees it (a failed test may have left an older one). */
export async function tabIdOf(extensionPage, suffix) {
  const tabs = await extensionPage.evaluate(() => (globalThis.browser ?? globalThis.chrome).tabs.query({}));
  const tab = tabs.filter((t) => (t.url ?? '').endsWith(suffix)).sort((a, b) => b.id - a.id)[0];
  if (!tab) throw new Error(`No tab at …${suffix}`);
  return tab.id;
}

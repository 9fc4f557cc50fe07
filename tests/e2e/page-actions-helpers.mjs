// Shared steps of the page-actions end-to-end tests (page-actions*.test.mjs): the fixture server
// with the TodoMVC builds and our own pages, the scripted model's plan, reading what the model got
// (tool results, outlines, references) and answering approval cards by their buttons' names.

import path from 'node:path';
import { contentText } from '../model-server/server.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { ROOT } from './harness.mjs';
import { sendMessage, waitForIdle } from './helpers.mjs';

/** The TodoMVC builds in tests/fixtures/todomvc (see its README). */
export const TODOMVC_APPS = ['react', 'vue', 'angular', 'svelte', 'lit', 'web-components'];

/** The fixture server with the TodoMVC builds under /todomvc/ and our pages under /page-actions/. */
export function startPageActionsServer() {
  return startFixtureServer({
    dirs: {
      '/todomvc/': path.join(ROOT, 'tests/fixtures/todomvc'),
      '/page-actions/': path.join(ROOT, 'tests/fixtures/page-actions'),
    },
  });
}

/** The tool messages' texts, as the model received them, in order. */
export const toolResults = (req) => req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m));

/**
 * Everything readable in a tool result, as one text: JSON decoded (strings, objects' values) and
 * untrusted envelopes opened, so a test can look for page words without knowing the reply's shape.
 */
export function readable(text) {
  const out = [];
  const walk = (value) => {
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if ((trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"')) && trimmed.length > 1) {
        try {
          walk(JSON.parse(trimmed));
          return;
        } catch {
          // Not JSON: a text.
        }
      }
      out.push(value.replace(/<<<UNTRUSTED (?:BEGIN [0-9a-f]{16}[^\n]*>>>|END [0-9a-f]{16}>>>)/g, ''));
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
    else if (value !== undefined && value !== null) out.push(String(value));
  };
  walk(text);
  return out.join('\n');
}

/** The text of a tool result with JSON string layers removed (envelopes left in place). */
export function decoded(text) {
  const out = [];
  const walk = (value) => {
    if (typeof value === 'string') {
      try {
        const parsed = JSON.parse(value);
        if (parsed && typeof parsed === 'object') return walk(parsed);
        if (typeof parsed === 'string') return walk(parsed);
      } catch {
        // A text.
      }
      out.push(value);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
    else if (value !== undefined && value !== null) out.push(String(value));
  };
  walk(text);
  return out.join('\n');
}

const quote = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The outline lines (Playwright's convention) for a role: `[{ name, ref, line }]`.
 * `- checkbox "Toggle" [checked] [ref=e9]`, `- textbox [ref=e7]`.
 */
export function outlineNodes(outline, role) {
  const re = new RegExp(`^\\s*- ${quote(role)}(?: "((?:[^"\\\\]|\\\\.)*)")?[^\\n]*?\\[ref=(e\\d+)\\]`, 'gm');
  return [...outline.matchAll(re)].map((m) => ({ name: (m[1] ?? '').replace(/\\(.)/g, '$1'), ref: m[2], line: m[0].trim() }));
}

/** The reference of the first node with this role whose name matches (a string: contained, case-insensitive). */
export function refFor(outline, role, name) {
  const nodes = outlineNodes(outline, role);
  const hit = name === undefined ? nodes[0] : nodes.find((n) => (name instanceof RegExp ? name.test(n.name) : n.name.toLowerCase().includes(name.toLowerCase())));
  if (!hit) throw new Error(`No ${role}${name ? ` named ${name}` : ''} with a reference in the outline:\n${outline.slice(0, 3000)}`);
  return hit.ref;
}

/**
 * Scripts the model through `steps`: step i runs once the model has i tool results and returns the
 * next tool call (`{ name, arguments }`) or a final answer (`{ text }`); after the last step the
 * model answers "Finished." with the last result. Each step gets `{ raw, flat, last }`: the tool
 * results as received, the same made readable (`readable`), and the last one readable.
 */
export function plan(steps) {
  const script = async (req) => {
    const raw = toolResults(req);
    const flat = raw.map(readable);
    const step = steps[raw.length];
    if (!step) return { text: `Finished. Last result: ${flat.at(-1) ?? ''}`.slice(0, 4000) };
    try {
      const next = await step({ raw, flat, last: flat.at(-1) ?? '' });
      return 'text' in next ? next : { toolCalls: [next] };
    } catch (error) {
      // A failed check inside the script ends the run; the test reports it (`script.errors`).
      if (error instanceof Error) error.message += `\n(the model's last tool result: ${(flat.at(-1) ?? '').slice(0, 1500)})`;
      script.errors.push(error);
      return { text: `Finished. The test's script failed at step ${raw.length}: ${error?.message ?? error}`.slice(0, 4000) };
    }
  };
  /** @type {unknown[]} */
  script.errors = [];
  return script;
}

/** Throws the first failure of a `plan`'s steps. */
export function checkPlan(script) {
  if (script.errors.length) throw script.errors[0];
}

/** Waits until an element matching `selector` exists in the page, open shadow roots included. */
export async function waitForDeep(page, selector, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const found = await page.evaluate((sel) => {
      const find = (root) => {
        if (root.querySelector(sel)) return true;
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot && find(el.shadowRoot)) return true;
        return false;
      };
      return find(document);
    }, selector);
    if (found) return;
    if (Date.now() > deadline) throw new Error(`No ${selector} in ${await page.url()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The deep visible text of a page, open shadow roots included (Lit and web components). */
export async function deepText(page) {
  return page.evaluate(() => {
    const parts = [];
    const walk = (root) => {
      for (const node of root.childNodes) {
        if (node.nodeType === 3) parts.push(node.textContent);
        else if (node.nodeType === 1) {
          const el = /** @type {Element} */ (node);
          if (['SCRIPT', 'STYLE', 'TEMPLATE'].includes(el.tagName)) continue;
          if (el.getClientRects().length === 0 && !el.shadowRoot) continue;
          if (el.shadowRoot) walk(el.shadowRoot);
          walk(el);
        }
      }
    };
    const root = document.body ?? document.documentElement;
    if (root) walk(root);
    return parts.join(' ').replace(/\s+/g, ' ');
  });
}

/** Waits until the page's deep text matches `re`. */
export async function waitForDeepText(page, re, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    // A page that is navigating has no body for a moment, or loses the evaluation: try again.
    text = await deepText(page).catch(() => '');
    if (re.test(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`The page never showed ${re}; it shows: ${text.slice(0, 1500)}`);
}

/**
 * Answers every approval card the sidebar shows, as a person would, by its buttons' names:
 * `decide(cardText, buttons)` returns the name to press ("Allow once", "Always allow", "Deny").
 * `beforeAnswer(cardText)` runs while the card is on screen, before the press (a test that makes
 * the page change under the card). Records each card's text and the names of its buttons in
 * `cards`. Returns `{ cards, stop }`.
 */
export function answerCards(sidebar, decide = () => 'Allow once', { beforeAnswer = async () => {} } = {}) {
  const cards = [];
  let stopped = false;
  (async () => {
    while (!stopped) {
      try {
        const card = await sidebar.evaluate(() => {
          const el = document.querySelector('[data-approval][data-armed]');
          if (!el) return null;
          const buttons = [...el.querySelectorAll('.actions button, button[data-answer]')].map((b) => b.textContent.replace(/\s+/g, ' ').trim());
          return { id: el.getAttribute('aria-labelledby'), text: el.textContent.replace(/\s+/g, ' ').trim(), buttons: [...new Set(buttons)] };
        });
        if (card && !stopped && !cards.some((c) => c.id === card.id && c.text === card.text)) {
          await beforeAnswer(card.text);
          const answer = decide(card.text, card.buttons);
          const pressed = card.buttons.includes(answer) ? answer : 'Allow once';
          cards.push({ ...card, answer: pressed });
          await sidebar.click('button', pressed, { timeout: 5000 });
        }
      } catch (error) {
        if (/closed|Target page/i.test(String(error?.message))) return;
      }
      await new Promise((r) => setTimeout(r, 150).unref());
    }
  })();
  return {
    cards,
    stop: () => {
      stopped = true;
    },
  };
}

/** A new conversation in the sidebar: sends `message` and waits for the run to end with "Finished.". */
export async function runTask(sidebar, message, { timeout = 60_000 } = {}) {
  await sidebar.click('button', 'New conversation');
  await sendMessage(sidebar, message);
  await sidebar.waitForText('Finished.', { timeout, within: 'main' });
  await waitForIdle(sidebar);
}

/** The id of the newest tab whose address contains `part`, as the extension sees it. */
export async function tabWith(extensionPage, part) {
  const tabs = await extensionPage.evaluate(() => (globalThis.browser ?? globalThis.chrome).tabs.query({}));
  const tab = tabs.filter((t) => (t.url ?? '').includes(part)).sort((a, b) => b.id - a.id)[0];
  if (!tab) throw new Error(`No tab at …${part}`);
  return tab.id;
}

/**
 * Where the bar's buttons are, from the outside (the page cannot look inside): the last button
 * (Take over / Resume) ends 6 px from the bar's end, Stop sits 6 px before it; their widths are
 * their words in the bar's font plus padding and border.
 */
export function barButtonPoints(words) {
  const host = [...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName));
  const r = host.getBoundingClientRect();
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = "600 13px system-ui, -apple-system, 'Segoe UI', Roboto, Ubuntu, Cantarell, 'Noto Sans', sans-serif";
  const width = (text) => ctx.measureText(text).width + 26;
  const y = r.top + r.height / 2;
  const lastEnd = r.right - 6;
  const last = width(words.last);
  return { last: { x: lastEnd - last / 2, y }, stop: { x: lastEnd - last - 6 - Math.min(18, width(words.stop) / 2), y } };
}

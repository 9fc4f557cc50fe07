import type { BarState } from '../protocol';
import type { PageEnv } from './agent';
import { markOwnUi } from './own-ui';

/**
 * The acting bar and the action highlight, drawn in the page by the isolated world.
 *
 * Each is a host element with a random tag name, appended to `<html>`, holding a CLOSED shadow
 * root: the page's scripts see only an empty host (its `shadowRoot` is null), cannot read the
 * bar's words or reach its buttons, and a synthetic click they dispatch lands on the host, never on
 * a button. The buttons act only on trusted clicks (`event.isTrusted`: the user's own mouse or
 * keyboard). The host's position is inline `!important` (page style sheets cannot move or hide
 * it), and while the bar is on, a page that removes the host or edits its attributes gets it back.
 */

/** How long a highlight shows, fading (ms). */
export const HIGHLIGHT_MS = 800;
/** The longest hand_over reason the bar shows (characters; the sidebar shows it whole). */
export const REASON_CHARS = 160;

const HOST_STYLE = [
  'all: initial',
  'position: fixed',
  'inset: auto 0 16px 0',
  'margin: 0 auto',
  'width: max-content',
  'max-width: calc(100vw - 24px)',
  'height: auto',
  'display: block',
  'visibility: visible',
  'opacity: 1',
  'transform: none',
  'filter: none',
  'clip-path: none',
  'z-index: 2147483647',
  'pointer-events: auto',
]
  .map((rule) => `${rule} !important;`)
  .join(' ');

const BAR_CSS = `
:host { all: initial; }
.bar {
  --bg: #ffffff; --text: #1d1e24; --text-2: #5b5e6b; --border: #dcdde3; --accent: #5b4fe0; --accent-text: #ffffff;
  --stop: #c4283c; --stop-soft: #fdecee; --dot: #5b4fe0; --paused: #9a6200;
  display: flex; align-items: center; gap: 10px; box-sizing: border-box; max-width: calc(100vw - 24px);
  padding: 5px 5px 5px 14px; border: 1px solid var(--border); border-radius: 999px; background: var(--bg); color: var(--text);
  font: 500 13px/1.3 system-ui, -apple-system, 'Segoe UI', Roboto, Ubuntu, Cantarell, 'Noto Sans', sans-serif;
  box-shadow: 0 2px 6px rgb(0 0 0 / 10%), 0 8px 24px rgb(0 0 0 / 12%); user-select: none; -webkit-user-select: none;
  animation: rise 0.18s ease-out;
}
.bar[dir='rtl'] { padding: 5px 14px 5px 5px; }
@media (prefers-color-scheme: dark) {
  .bar {
    --bg: #202127; --text: #ececf1; --text-2: #a3a5b3; --border: #3a3b45; --accent: #8f86ff; --accent-text: #111118;
    --stop: #ff7a8a; --stop-soft: #3a2227; --dot: #8f86ff; --paused: #ffc46b;
    box-shadow: 0 2px 6px rgb(0 0 0 / 40%), 0 8px 24px rgb(0 0 0 / 45%);
  }
}
.mark { flex: none; width: 8px; height: 8px; border-radius: 50%; background: var(--dot); box-shadow: 0 0 0 0 var(--dot); animation: pulse 1.6s ease-out infinite; }
.paused .mark { width: 10px; height: 10px; border-radius: 2px; background: linear-gradient(90deg, var(--paused) 0 35%, transparent 35% 65%, var(--paused) 65%); box-shadow: none; animation: none; }
.text { display: flex; flex-direction: column; min-width: 0; }
.title { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.reason { color: var(--text-2); font-weight: 400; font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 56ch; }
.buttons { display: flex; gap: 6px; flex: none; }
button {
  all: unset; box-sizing: border-box; cursor: pointer; padding: 5px 12px; border-radius: 999px; font: inherit; font-weight: 600;
  border: 1px solid var(--border); color: var(--text); background: transparent; white-space: nowrap;
}
button:hover { background: color-mix(in srgb, var(--text) 8%, transparent); }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
button.stop { color: var(--stop); border-color: color-mix(in srgb, var(--stop) 45%, transparent); }
button.stop:hover { background: var(--stop-soft); }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
button.primary:hover { background: color-mix(in srgb, var(--accent) 85%, #000); }
@keyframes pulse { 0% { box-shadow: 0 0 0 0 color-mix(in srgb, var(--dot) 60%, transparent); } 70%, 100% { box-shadow: 0 0 0 7px transparent; } }
@keyframes rise { from { transform: translateY(8px); opacity: 0; } }
@media (prefers-reduced-motion: reduce) { .bar, .mark { animation: none; } }
`;

const HIGHLIGHT_CSS = `
:host { all: initial; }
.box {
  position: fixed; box-sizing: border-box; pointer-events: none; border: 2px solid #5b4fe0; border-radius: 4px;
  background: rgb(91 79 224 / 10%); box-shadow: 0 0 0 3px rgb(91 79 224 / 22%);
  animation: fade ${HIGHLIGHT_MS}ms ease-in forwards;
}
.label {
  position: absolute; inset-inline-start: -2px; bottom: calc(100% + 4px); padding: 2px 7px; border-radius: 4px; white-space: nowrap;
  background: #5b4fe0; color: #fff; font: 600 11px/1.4 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  max-width: 40ch; overflow: hidden; text-overflow: ellipsis;
}
.below .label { bottom: auto; top: calc(100% + 4px); }
@media (prefers-color-scheme: dark) {
  .box { border-color: #8f86ff; background: rgb(143 134 255 / 14%); box-shadow: 0 0 0 3px rgb(143 134 255 / 25%); }
  .label { background: #8f86ff; color: #111118; }
}
@keyframes fade { 0%, 55% { opacity: 1; } 100% { opacity: 0; } }
@media (prefers-reduced-motion: reduce) { .box { animation: none; } }
`;

/** While trusted input is delivered: the host lets pointer events through to the page beneath. */
const HOST_STYLE_PASS = HOST_STYLE.replace('pointer-events: auto !important', 'pointer-events: none !important');

/** How many trusted deliveries are under way (`barLetsThrough`): the buttons ignore every event meanwhile. */
let passing = 0;

function hostStyle(): string {
  return passing > 0 ? HOST_STYLE_PASS : HOST_STYLE;
}

/**
 * Runs a trusted delivery (`page/trusted.ts`) with the bar out of its way: the agent's events,
 * trusted as a person's, go through the bar to the page beneath (where the agent aimed: the hit
 * test looks through the extension's own UI), and a button that got one anyway does nothing.
 */
export async function barLetsThrough<T>(run: () => Promise<T>): Promise<T> {
  passing++;
  keep();
  try {
    return await run();
  } finally {
    passing--;
    keep();
  }
}

/** The bar's words (`pageActions.bar.*` in the plugin's locales). */
function word(env: PageEnv, key: string): string {
  return env.words(`pageActions.bar.${key}`);
}

function rtl(env: PageEnv): boolean {
  return env.words('@@bidi_dir') === 'rtl';
}

/** A host element nobody else names: a custom-element-like tag with a random suffix. */
function makeHost(doc: Document, kind: string): { host: HTMLElement; root: ShadowRoot } {
  const suffix = Math.random().toString(36).slice(2, 10);
  const host = doc.createElement(`sidequest-${kind}-${suffix}`);
  markOwnUi(host);
  const root = host.attachShadow({ mode: 'closed' });
  return { host, root };
}

function styleOf(doc: Document, css: string): HTMLStyleElement {
  const style = doc.createElement('style');
  style.textContent = css;
  return style;
}

interface BarView {
  host: HTMLElement;
  root: ShadowRoot;
  observer: MutationObserver;
  state: BarState;
  reason?: string;
}

let view: BarView | undefined;

/** Cuts the reason to fit the bar (on a word boundary when one is near), one line. */
export function cutReason(reason: string | undefined, max = REASON_CHARS): string {
  const text = (reason ?? '').replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/**
 * Shows the bar in `state` ('acting': "Sidequest is acting in this tab" · Stop · Take over;
 * 'paused': "Paused — you have the tab", the reason, Resume), or removes it ('off').
 */
export function setBar(state: BarState, env: PageEnv, reason?: string, doc: Document = document): void {
  if (state === 'off') {
    if (view) {
      view.observer.disconnect();
      view.host.remove();
      view = undefined;
    }
    return;
  }
  if (!view || view.host.ownerDocument !== doc) {
    if (view) setBar('off', env);
    const { host, root } = makeHost(doc, 'bar');
    const observer = new MutationObserver(() => keep());
    view = { host, root, observer, state };
  }
  view.state = state;
  view.reason = state === 'paused' ? cutReason(reason) : undefined;
  render(view, env, doc);
  keep();
}

/** Puts the host back where it belongs, as it was, after the page moved, hid or removed it. */
function keep(): void {
  const current = view;
  if (!current) return;
  const { host, observer } = current;
  const doc = host.ownerDocument;
  observer.disconnect();
  if (host.getAttribute('style') !== hostStyle()) host.setAttribute('style', hostStyle());
  for (const name of host.getAttributeNames()) if (name !== 'style') host.removeAttribute(name);
  const html = doc.documentElement;
  if (html && host.parentNode !== html) html.append(host);
  // Re-attach when the page removes it (or replaces <html>), and undo attribute edits.
  observer.observe(doc, { childList: true });
  if (html) observer.observe(html, { childList: true });
  observer.observe(host, { attributes: true });
}

function render(current: BarView, env: PageEnv, doc: Document): void {
  const { root, state, reason } = current;
  const bar = doc.createElement('div');
  bar.className = `bar ${state}`;
  bar.setAttribute('role', 'region');
  bar.setAttribute('aria-label', word(env, 'label'));
  bar.dir = rtl(env) ? 'rtl' : 'ltr';
  bar.lang = env.words('@@ui_locale').replace(/_/g, '-') || 'en';

  const mark = doc.createElement('span');
  mark.className = 'mark';
  mark.setAttribute('aria-hidden', 'true');
  const text = doc.createElement('span');
  text.className = 'text';
  const title = doc.createElement('span');
  title.className = 'title';
  title.setAttribute('role', 'status');
  title.textContent = state === 'paused' ? word(env, 'paused') : word(env, 'acting');
  text.append(title);
  if (reason) {
    const why = doc.createElement('span');
    why.className = 'reason';
    why.dir = 'auto';
    why.textContent = reason;
    why.title = reason;
    text.append(why);
  }
  const buttons = doc.createElement('span');
  buttons.className = 'buttons';
  const button = (name: 'stop' | 'take-over' | 'resume', label: string, kind: string) => {
    const b = doc.createElement('button');
    b.type = 'button';
    b.className = kind;
    b.textContent = label;
    b.dataset.button = name;
    b.addEventListener('click', (event) => {
      event.stopPropagation();
      // Only the user's own click or key press; a script's synthetic event does nothing, nor
      // the agent's own trusted input (Chrome's debugger) while it is delivered.
      if (!event.isTrusted || passing > 0) return;
      env.barButton(name);
    });
    buttons.append(b);
  };
  if (state === 'paused') {
    button('stop', word(env, 'stop'), 'stop');
    button('resume', word(env, 'resume'), 'primary');
  } else {
    button('stop', word(env, 'stop'), 'stop');
    button('take-over', word(env, 'takeOver'), 'primary');
  }
  bar.append(mark, text, buttons);
  root.replaceChildren(styleOf(doc, BAR_CSS), bar);
}

/** The bar's state now (tests, the agent's replies). */
export function barState(): BarState {
  return view?.state ?? 'off';
}

/**
 * Outlines `element` for a moment (~800 ms, fading) with a small label naming the action
 * ("Click", "Type"). It covers nothing (pointer-events: none), takes no focus, and goes away by
 * itself. Elements in same-origin frames are placed by their frames' offsets.
 */
export function highlight(element: Element, label: string): void {
  const doc = document;
  const html = doc.documentElement;
  if (!html || !element.isConnected) return;
  const rect = viewportRect(element);
  if (!rect || rect.width <= 0 || rect.height <= 0) return;
  const { host, root } = makeHost(doc, 'highlight');
  host.setAttribute('style', 'all: initial !important; position: fixed !important; inset: 0 !important; pointer-events: none !important; z-index: 2147483646 !important; display: block !important;');
  host.setAttribute('aria-hidden', 'true');
  const box = doc.createElement('div');
  box.className = rect.top < 24 ? 'box below' : 'box';
  box.style.cssText = `left:${rect.left - 3}px;top:${rect.top - 3}px;width:${rect.width + 6}px;height:${rect.height + 6}px;`;
  const tag = doc.createElement('span');
  tag.className = 'label';
  tag.textContent = label;
  box.append(tag);
  root.append(styleOf(doc, HIGHLIGHT_CSS), box);
  html.append(host);
  setTimeout(() => host.remove(), HIGHLIGHT_MS + 50);
}

/** The element's rectangle in the top window's viewport (through same-origin frames). */
function viewportRect(element: Element): { left: number; top: number; width: number; height: number } | undefined {
  const r = element.getBoundingClientRect();
  let left = r.left;
  let top = r.top;
  let win: Window | null = element.ownerDocument.defaultView;
  try {
    while (win && win !== window.top && win.frameElement) {
      const frame = win.frameElement as HTMLElement;
      const f = frame.getBoundingClientRect();
      left += f.left + frame.clientLeft;
      top += f.top + frame.clientTop;
      win = frame.ownerDocument.defaultView;
    }
  } catch {
    return undefined;
  }
  return { left, top, width: r.width, height: r.height };
}

/** The label of an action for the highlight, in the user's language (`pageActions.bar.action.*`). */
export function actionLabel(env: PageEnv, action: 'click' | 'fill' | 'select' | 'press' | 'hover' | 'scroll'): string {
  return env.words(`pageActions.bar.action.${action}`);
}

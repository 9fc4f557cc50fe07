import { isOwnUi } from './own-ui';
import { BLOCK_TAGS, NAME_FROM_CONTENT, SKIPPED_TAGS } from './roles';
import { childCursor, step, type Cursor } from './tree';
import { GONE, INVISIBLE, shownState } from './visible';

/**
 * Accessible names: a subset of W3C accname that covers what pages use (aria-labelledby,
 * aria-label, labels, alt, title, placeholder, button values, name from content), cut to
 * `MAX_NAME` characters, and the cleaning every page string gets before it enters the outline.
 */

/** Longest name or text the outline prints (longer ones end in "…"). */
export const MAX_NAME = 100;
/** Raw characters of a name looked at (the rest of a huge label is never cleaned). */
const MAX_RAW = 10_000;
/** How many nodes one name reads at most (a link around a whole article stops early). */
const NAME_NODES = 400;

// Line breaks and controls become spaces (a page string can never start a line of its own);
// invisible direction marks and zero-width spaces go (ZWJ/ZWNJ stay: scripts and emoji need them).
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const BREAKS = /[\s\u0000-\u001f\u007f-\u009f]+/g;
const INVISIBLES = /[\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
// A page string that reads like the outline's own reference marks is defused: `[ref=e1]` → `(ref=e1)`.
const FORGED_REF = /\[(\s*ref\s*[=:])/gi;

/** A page string as the outline prints it: one line, spaces squashed, no forged `[ref=…]`. */
export function clean(text: string): string {
  // \s covers the line breaks (\n, \r, \u2028, \u2029…) and every other space.
  const out = text.replace(INVISIBLES, '').replace(BREAKS, ' ').trim();
  return out.includes('[') ? out.replace(FORGED_REF, '($1') : out;
}

/** Whether `clean(text)` would leave anything (without building it: a test that stops at the first such character). */
// eslint-disable-next-line no-control-regex -- the characters `clean` removes or squashes
const SHOWS = /[^\s\u0000-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
export function showsText(text: string): boolean {
  return SHOWS.test(text);
}

/** Longest text run or field value the outline prints (a node's words, kept whole up to here). */
export const MAX_TEXT = 2_000;

const LINE_BREAKS_AND_INVISIBLES = /[\u0085\u2028\u2029\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A field's value as typed, for after a line's `:`: as is when `clean` would not change it, else
 * quoted as JSON (its spaces at the ends, line breaks and tabs kept exactly, escaped so they cannot
 * start a line; invisible marks as `\u` escapes), with forged `[ref=…]` marks defused either way.
 */
export function exactValue(text: string): string | null {
  if (clean(text) === text) return null;
  const quoted = JSON.stringify(text.replace(FORGED_REF, '($1'));
  return quoted.replace(LINE_BREAKS_AND_INVISIBLES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` cut to `max` characters, ending in "…" when cut (never inside a surrogate pair). */
export function cut(text: string, max = MAX_NAME): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end).trimEnd()}…`;
}

const BUTTON_INPUTS = new Set(['button', 'submit', 'reset', 'image']);
const SVG_NS = 'http://www.w3.org/2000/svg';

/** The <title> child of an SVG element (its name when it has no aria-label). */
export function svgTitle(element: Element): string {
  for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
    if (child.localName === 'title') return child.textContent ?? '';
  }
  return '';
}

/**
 * The text a person reads in `root` (for names from content and labels): hidden parts, scripts
 * and the extension's own UI left out; an image counts by its alt, an element with aria-label by
 * that label; blocks separate words. Stops after `max` characters. `skip` is left out (the field
 * a label names). `includeHidden` reads hidden parts too (aria-labelledby targets may be hidden).
 */
export function textOf(root: Node, max = MAX_NAME * 2, skip?: Element, includeHidden = false): string {
  let text = '';
  let visited = 0;
  const stack: Array<{ cursor: Cursor; hidden: boolean; block: boolean }> = [{ cursor: childCursor(root), hidden: false, block: false }];
  while (stack.length && text.length < max && visited < NAME_NODES) {
    const frame = stack[stack.length - 1]!;
    const node = step(frame.cursor);
    if (!node) {
      if (stack.pop()!.block) text += ' ';
      continue;
    }
    visited++;
    if (node.nodeType === 3) {
      if (!frame.hidden) text += node.nodeValue ?? '';
      continue;
    }
    if (node.nodeType !== 1) continue;
    const element = node as Element;
    if (element === skip || SKIPPED_TAGS.has(element.tagName) || isOwnUi(element)) continue;
    let hidden = frame.hidden;
    if (!includeHidden) {
      const shown = shownState(element, frame.hidden);
      if (shown === GONE) continue;
      hidden = shown === INVISIBLE;
    }
    const block = BLOCK_TAGS.has(element.tagName);
    if (block) text += ' ';
    const label = element.getAttribute('aria-label');
    if (label && label.trim()) {
      if (!hidden) text += ` ${label} `;
      continue;
    }
    if (element.namespaceURI === SVG_NS) {
      if (!hidden) text += svgTitle(element);
      continue;
    }
    const tag = element.tagName;
    if (tag === 'IMG' || tag === 'AREA') {
      if (!hidden) text += ` ${element.getAttribute('alt') ?? ''} `;
      continue;
    }
    if (tag === 'INPUT') {
      const input = element as HTMLInputElement;
      if (!hidden && BUTTON_INPUTS.has(input.type)) text += ` ${input.value} `;
      continue;
    }
    if (tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'IFRAME') continue;
    stack.push({ cursor: childCursor(element), hidden, block });
  }
  return text;
}

function byIds(element: Element, ids: string): string {
  const root = element.getRootNode() as Document | ShadowRoot;
  if (typeof root.getElementById !== 'function') return '';
  const parts: string[] = [];
  for (const id of ids.split(/\s+/).slice(0, 10)) {
    if (!id) continue;
    const target = root.getElementById(id);
    if (!target) continue;
    const label = target.getAttribute('aria-label');
    parts.push(label && label.trim() && target !== element ? label : textOf(target, MAX_NAME * 2, undefined, true));
  }
  return parts.join(' ');
}

function firstChildText(element: Element, tag: string): string {
  for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
    if (child.tagName === tag) return textOf(child);
  }
  return '';
}

/**
 * The accessible name of `element` with role `role`, cleaned and cut. `fromContent` reads the
 * content for roles that do not take their name from it (the approval card's words for a
 * clickable div).
 */
export function accessibleName(element: Element, role: string, fromContent = NAME_FROM_CONTENT.has(role)): string {
  const raw = rawName(element, role, fromContent);
  // A page may name an element with megabytes: only the start can be shown, only the start is cleaned.
  const name = raw.length > MAX_RAW ? raw.slice(0, MAX_RAW) : raw;
  return name ? cut(clean(name)) : '';
}

function rawName(element: Element, role: string, fromContent: boolean): string {
  const labelledBy = element.getAttribute('aria-labelledby');
  if (labelledBy) {
    const text = clean(byIds(element, labelledBy));
    if (text) return text;
  }
  const label = element.getAttribute('aria-label');
  if (label && label.trim()) return label;
  const tag = element.tagName;
  if (element.namespaceURI === SVG_NS) return svgTitle(element) || element.getAttribute('title') || '';
  switch (tag) {
    case 'INPUT': {
      const input = element as HTMLInputElement;
      const type = input.type;
      if (BUTTON_INPUTS.has(type)) {
        if (type === 'image') return input.alt || input.value || input.title || 'Submit';
        return input.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '') || input.title;
      }
      return labelsText(input) || input.title || input.placeholder || element.getAttribute('aria-placeholder') || '';
    }
    case 'SELECT':
    case 'TEXTAREA':
    case 'METER':
    case 'PROGRESS':
    case 'OUTPUT':
      return (
        labelsText(element as HTMLSelectElement) ||
        element.getAttribute('title') ||
        element.getAttribute('placeholder') ||
        element.getAttribute('aria-placeholder') ||
        ''
      );
    case 'IMG':
    case 'AREA':
      return element.getAttribute('alt') || element.getAttribute('title') || '';
    case 'FIELDSET':
      return firstChildText(element, 'LEGEND') || element.getAttribute('title') || '';
    case 'TABLE':
      return firstChildText(element, 'CAPTION') || element.getAttribute('title') || '';
    case 'FIGURE':
      return firstChildText(element, 'FIGCAPTION') || element.getAttribute('title') || '';
    case 'IFRAME':
      return element.getAttribute('title') || '';
    case 'OPTGROUP':
    case 'OPTION':
      return element.getAttribute('label') || (tag === 'OPTION' ? element.textContent ?? '' : '');
    default:
      break;
  }
  if (fromContent) {
    const text = clean(textOf(element));
    if (text) return text;
  }
  if (element.getAttribute('title')) return element.getAttribute('title')!;
  if (isEditable(element)) return element.getAttribute('placeholder') || element.getAttribute('aria-placeholder') || '';
  return '';
}

function isEditable(element: Element): boolean {
  return element.hasAttribute('contenteditable');
}

function labelsText(field: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string {
  let labels: NodeListOf<HTMLLabelElement> | null = null;
  try {
    labels = field.labels;
  } catch {
    return '';
  }
  if (!labels || !labels.length) return '';
  const parts: string[] = [];
  for (let i = 0; i < labels.length && i < 4; i++) parts.push(textOf(labels[i]!, MAX_NAME * 2, field));
  return parts.join(' ');
}

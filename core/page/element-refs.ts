/**
 * Element references: a page-side registry that gives DOM elements short names the model can read
 * and hand back ("@k3f9q2.7"), for as long as the document lives. Any page-side script of the
 * extension that shows elements to the model (page tools' results, a tab's text) and takes them
 * back (page tools' element parameters) uses the one registry of the window, so a reference read in
 * one place works in the other.
 *
 * A reference is `@<document token>.<number>`. The token is random per document, so a reference
 * from another page, another frame or an earlier load of this page is refused as such instead of
 * naming an unrelated element here; references resolve only against this document's own table,
 * never by searching the DOM, so a page cannot make one point into another frame or document.
 * The extension may register elements of this document's open shadow roots and of same-origin
 * frames inside it (the page outline reads those in place); they resolve while they are still
 * connected there.
 * The registry holds elements and numbers only: nothing of the extension's state.
 *
 * This file must stay free of imports: it is bundled into the page's MAIN world.
 */

/** What the model sees of an element: its reference and what identifies it. */
export interface ElementRefView {
  ref: string;
  tag: string;
  id?: string;
  /** A short label: the element's label, aria-label, placeholder, alt or text (at most 80 characters). */
  text?: string;
  /** A CSS selector that finds this element in the page now. */
  selector: string;
}

export interface ElementRefs {
  /** The reference of an element of this document (the same one each time). */
  refOf(element: Element): string;
  /** The reference and what identifies the element. */
  describe(element: Element): ElementRefView;
  /** True when `text` is written like a reference (of any document). */
  looksLikeRef(text: string): boolean;
  /**
   * The element a reference or a CSS selector names in this document. Throws an Error worded for
   * the model when it is unknown, stale (removed from the page), from another document, or when a
   * selector is invalid or matches nothing.
   */
  resolve(text: string): Element;
  /**
   * The elements a person would point at (links, buttons, fields, headings…) that are shown now,
   * under the first element `root` matches (the whole document without it), with their references:
   * at most `max`, in document order.
   */
  listElements(root?: string, max?: number): ElementRefView[];
  /** The document's token (tests). */
  readonly token: string;
}

/** What `listElements` lists. */
export const POINTABLE =
  'a[href], button, input:not([type="hidden"]), select, textarea, summary, h1, h2, h3, [role="button"], [role="link"], [role="checkbox"], [role="tab"], [role="menuitem"], [role="switch"], [contenteditable=""], [contenteditable="true"]';

/** Where a window keeps its registry (shared by the extension's page-side scripts of that window). */
export const ELEMENT_REFS_KEY = Symbol.for('sidequest.element-refs');

const REF = /^@([a-z0-9]{4,12})\.(\d{1,9})$/;
/** How many elements one document keeps references to; the oldest go first past it. */
export const MAX_ELEMENT_REFS = 10_000;

/** The window's registry, made on first use (and again when the window has a new document). */
export function elementRefsFor(win: Window & typeof globalThis): ElementRefs {
  const holder = win as unknown as Record<symbol, ElementRefs & { doc?: Document } | undefined>;
  const existing = holder[ELEMENT_REFS_KEY];
  if (existing && existing.doc === win.document && typeof existing.resolve === 'function') return existing;
  const refs = createElementRefs(win);
  try {
    // Not configurable: a page script cannot swap it for its own once the extension made it.
    Object.defineProperty(win, ELEMENT_REFS_KEY, { value: refs, configurable: false, enumerable: false, writable: false });
  } catch {
    // A page that froze the window: the registry still works for this script.
  }
  return refs;
}

/** A fresh registry for the window's current document. */
export function createElementRefs(win: Window & typeof globalThis): ElementRefs & { doc: Document } {
  const doc = win.document;
  const byRef = new Map<string, Element>();
  const byElement = new WeakMap<Element, string>();
  const token = randomToken(win);
  let counter = 0;

  function refOf(element: Element): string {
    const known = byElement.get(element);
    if (known && byRef.get(known) === element) return known;
    const ref = `@${token}.${++counter}`;
    byRef.set(ref, element);
    byElement.set(element, ref);
    if (byRef.size > MAX_ELEMENT_REFS) {
      const oldest = byRef.keys().next().value as string;
      byRef.delete(oldest);
    }
    return ref;
  }

  function resolve(text: string): Element {
    const value = String(text).trim();
    const match = REF.exec(value);
    if (match) {
      if (match[1] !== token) {
        throw new Error(`The element reference ${value} belongs to another page (or an earlier load of this one): it is not valid here. Call the tool that gave it again for a fresh reference, or pass a CSS selector.`);
      }
      const element = byRef.get(value);
      if (!element) throw new Error(`Unknown element reference ${value}: no result of this page gave it (or it is too old). Pass a reference from a recent result, or a CSS selector.`);
      if (!element.isConnected || !inThisWindow(element)) {
        throw new Error(`The element reference ${value} is stale: that element was removed from the page. Call the tool that gave it again for a fresh reference, or pass a CSS selector.`);
      }
      return element;
    }
    if (value.startsWith('@')) throw new Error(`"${value.slice(0, 80)}" is not an element reference (they look like @k3f9q2.7) nor a CSS selector.`);
    let found: Element | null;
    try {
      found = doc.querySelector(value);
    } catch {
      throw new Error(`"${value.slice(0, 200)}" is neither an element reference (like @k3f9q2.7) nor a valid CSS selector.`);
    }
    if (!found) throw new Error(`No element of the page matches the CSS selector "${value.slice(0, 200)}".`);
    return found;
  }

  /**
   * An element of this window's document (shadow roots included: their elements belong to the
   * document), or of a same-origin frame whose iframe is in it (at any depth) and still shows that
   * document. An element of a frame that navigated or was removed is not.
   */
  function inThisWindow(element: Element): boolean {
    let current: Document | null = element.ownerDocument;
    for (let hops = 0; current && hops < 32; hops++) {
      if (current === win.document) return true;
      let frame: Element | null = null;
      try {
        frame = current.defaultView?.frameElement ?? null;
      } catch {
        return false;
      }
      if (!frame || !frame.isConnected || (frame as HTMLIFrameElement).contentDocument !== current) return false;
      current = frame.ownerDocument;
    }
    return false;
  }

  function describe(element: Element): ElementRefView {
    const view: ElementRefView = { ref: refOf(element), tag: element.tagName.toLowerCase(), selector: selectorOf(element, doc) };
    if (element.id) view.id = clip(element.id, 100);
    const text = labelOf(element);
    if (text) view.text = text;
    return view;
  }

  function listElements(root?: string, max = 200): ElementRefView[] {
    let scope: ParentNode = doc;
    if (root) {
      const found = doc.querySelector(root);
      if (!found) return [];
      scope = found;
    }
    const out: ElementRefView[] = [];
    for (const element of Array.from(scope.querySelectorAll(POINTABLE))) {
      if (out.length >= max) break;
      // Shown now: laid out and not hidden (a person could point at it).
      if (element.getClientRects().length === 0) continue;
      out.push(describe(element));
    }
    return out;
  }

  return {
    doc,
    token,
    refOf,
    describe,
    resolve,
    listElements,
    looksLikeRef: (text) => REF.test(String(text).trim()),
  };
}

function randomToken(win: Window & typeof globalThis): string {
  const bytes = new Uint8Array(6);
  try {
    win.crypto.getRandomValues(bytes);
  } catch {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  return Array.from(bytes, (b) => (b % 36).toString(36)).join('');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function squash(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** A short label of the element: what a person would call it. */
export function labelOf(element: Element): string {
  const el = element as HTMLInputElement;
  const parts = [
    element.getAttribute('aria-label'),
    el.labels && el.labels.length ? [...el.labels].map((l) => l.textContent).join(' ') : '',
    element.getAttribute('placeholder'),
    element.getAttribute('alt'),
    element.getAttribute('title'),
  ];
  for (const part of parts) {
    const text = squash(part);
    if (text) return clip(text, 80);
  }
  return clip(squash(leadingText(element, 200)), 80);
}

/** The first `max` characters of an element's text, without reading all of a large subtree. */
function leadingText(element: Element, max: number): string {
  const doc = element.ownerDocument;
  if (!doc?.createTreeWalker) return (element.textContent ?? '').slice(0, max);
  const walker = doc.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
  let text = '';
  for (let node = walker.nextNode(); node && text.length < max; node = walker.nextNode()) text += `${node.nodeValue ?? ''} `;
  return text;
}

function cssEscape(text: string): string {
  const css = (globalThis as { CSS?: { escape?: (s: string) => string } }).CSS;
  if (css?.escape) return css.escape(text);
  return text.replace(/[^a-zA-Z0-9_-]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `).replace(/^(\d)/, '\\3$1 ');
}

/** A CSS selector that finds `element` in `doc` now: its id when unique, else a path of nth-of-type steps. */
export function selectorOf(element: Element, doc: Document): string {
  const unique = (selector: string) => {
    try {
      const all = doc.querySelectorAll(selector);
      return all.length === 1 && all[0] === element;
    } catch {
      return false;
    }
  };
  if (element.id) {
    const byId = `#${cssEscape(element.id)}`;
    if (unique(byId)) return byId;
  }
  const steps: string[] = [];
  let current: Element | null = element;
  while (current && current.nodeType === 1 && steps.length < 12) {
    const tag = current.tagName.toLowerCase();
    if (current !== element && current.id) {
      const byId = `#${cssEscape(current.id)}`;
      try {
        if (doc.querySelectorAll(byId).length === 1) {
          steps.unshift(byId);
          break;
        }
      } catch {
        // An id the selector engine cannot take: go on with the path.
      }
    }
    const parent: Element | null = current.parentElement;
    if (!parent || tag === 'html') {
      steps.unshift(tag);
      break;
    }
    const sameTag = [...parent.children].filter((c) => c.tagName === current!.tagName);
    steps.unshift(sameTag.length > 1 ? `${tag}:nth-of-type(${sameTag.indexOf(current) + 1})` : tag);
    current = parent;
  }
  return steps.join(' > ');
}

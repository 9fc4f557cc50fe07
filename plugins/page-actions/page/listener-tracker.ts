import { ASK_EVENT, MARK_EVENT } from './listener-events';

/**
 * The MAIN-world half of "which elements have a click listener": listeners live in the page's own
 * world, which the isolated-world page agent cannot see. Installed at `document_start` (before the
 * page's scripts), it wraps `EventTarget.prototype.addEventListener` and the `on*` properties of
 * the pointer events, remembering in a WeakSet the elements that got a click, mouse, pointer or
 * touch listener (an entry dies with its element: nothing is kept alive, nothing grows past the
 * page's own DOM). When the isolated world asks (`ASK_EVENT` on the document), it walks the
 * document (and open shadow roots) and dispatches `MARK_EVENT` on each remembered element, at most
 * `MAX_MARKED`; nothing is written into the page's DOM. Runs in the page's world: no extension API
 * is reachable from here. (A WeakRef list would let it skip the walk, but creating one WeakRef an
 * element made every tracked addEventListener 3.5× slower: bench/read-page.mjs.)
 */

/** Event types that make an element clickable for a person (hover-only ones do not). */
export const POINTER_TYPES = new Set(['click', 'dblclick', 'auxclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend']);
/** Most elements marked per question. */
export const MAX_MARKED = 5_000;
/** Most elements looked at per question (a page of a million elements is answered in part). */
export const MAX_SCANNED = 300_000;

const INSTALLED = Symbol.for('sidequest.page-actions.listeners');

export interface Tracker {
  /** Whether the tracker remembers `element` (for tests). */
  has(element: Element): boolean;
}

/**
 * Installs the tracker in `win` (once; a second call returns the first). `win` is for tests;
 * the MAIN-world content script passes nothing.
 */
export function installListenerTracker(win: Window & typeof globalThis = window): Tracker {
  const holder = win as unknown as Record<symbol, Tracker | undefined>;
  if (holder[INSTALLED]) return holder[INSTALLED]!;
  // The built-ins as they are now: the page may replace them later, the tracker keeps these.
  const { WeakSet: WeakSet_, CustomEvent: CustomEvent_, Reflect: Reflect_ } = win;
  const isElement = (value: unknown): value is Element => {
    try {
      return value instanceof win.Element;
    } catch {
      return false;
    }
  };
  const dispatch = win.EventTarget.prototype.dispatchEvent;
  const byTag = win.Document.prototype.getElementsByTagName;
  const shadowRootOf = Object.getOwnPropertyDescriptor(win.Element.prototype, 'shadowRoot')?.get;
  const allIn = win.DocumentFragment.prototype.querySelectorAll;
  const seen = new WeakSet_<Element>();

  const original = win.EventTarget.prototype.addEventListener;
  const wrapped = {
    addEventListener(this: EventTarget, type: string, listener: unknown, options?: unknown) {
      // Cheap checks first: most calls are for other types (scroll, input, load…).
      if (typeof type === 'string' && POINTER_TYPES.has(type) && listener && (this as Node).nodeType === 1 && isElement(this)) seen.add(this);
      // The native method with the page's arguments (an absent `options` is the same as undefined).
      return Reflect_.apply(original, this, [type, listener, options]);
    },
  }.addEventListener;
  Object.defineProperty(win.EventTarget.prototype, 'addEventListener', { value: wrapped, writable: true, configurable: true, enumerable: true });

  // `element.onclick = …` and friends: their setters, where the browser defines them.
  for (const proto of [win.HTMLElement?.prototype, win.SVGElement?.prototype]) {
    if (!proto) continue;
    for (const type of POINTER_TYPES) {
      const key = `on${type}`;
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      if (!descriptor?.set || !descriptor.get) continue;
      const set = descriptor.set;
      Object.defineProperty(proto, key, {
        ...descriptor,
        set: {
          [key](this: Element, value: unknown) {
            if (typeof value === 'function' && isElement(this)) seen.add(this);
            Reflect_.apply(set, this, [value]);
          },
        }[key],
      });
    }
  }

  const onAsk = () => {
    let marked = 0;
    let scanned = 0;
    const roots: Array<ArrayLike<Element>> = [Reflect_.apply(byTag, win.document, ['*']) as HTMLCollectionOf<Element>];
    while (roots.length && marked < MAX_MARKED && scanned < MAX_SCANNED) {
      const list = roots.pop()!;
      for (let i = 0; i < list.length && marked < MAX_MARKED && scanned < MAX_SCANNED; i++) {
        const element = list[i]!;
        scanned++;
        const shadow = shadowRootOf ? (Reflect_.apply(shadowRootOf, element, []) as ShadowRoot | null) : null;
        if (shadow) roots.push(Reflect_.apply(allIn, shadow, ['*']) as NodeListOf<Element>);
        if (!seen.has(element)) continue;
        marked++;
        try {
          Reflect_.apply(dispatch, element, [new CustomEvent_(MARK_EVENT, { bubbles: true, composed: true })]);
        } catch {
          // An element whose dispatch throws is left out.
        }
      }
    }
  };
  Reflect_.apply(original, win.document, [ASK_EVENT, onAsk, true]);
  const tracker: Tracker = { has: (element) => seen.has(element) };
  Object.defineProperty(win, INSTALLED, { value: tracker });
  return tracker;
}

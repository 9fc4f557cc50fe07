import { ASK_EVENT, MARK_EVENT } from './listener-events';

/**
 * The MAIN-world half of "which elements have a click listener": listeners live in the page's own
 * world, which the isolated-world page agent cannot see. Installed at `document_start` (before the
 * page's scripts), it wraps `EventTarget.prototype.addEventListener` and the `on*` properties of
 * the pointer events, remembering elements (weakly, a bounded number) that got a click, mouse,
 * pointer or touch listener. When the isolated world asks (`ASK_EVENT` on the document), it
 * dispatches `MARK_EVENT` on each remembered element still in a document; nothing is written into
 * the page's DOM. Runs in the page's world: no extension API is reachable from here.
 */

/** Event types that make an element clickable for a person (hover-only ones do not). */
export const POINTER_TYPES = new Set(['click', 'dblclick', 'auxclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend']);
/** Most elements remembered at once (a page that registers a million listeners stays bounded). */
export const MAX_TRACKED = 20_000;
/** Most elements marked per question. */
export const MAX_MARKED = 5_000;

const INSTALLED = Symbol.for('sidequest.page-actions.listeners');

interface Tracker {
  /** How many elements are remembered now (for tests). */
  size(): number;
}

/**
 * Installs the tracker in `win` (once; a second call returns the first). `win` is for tests;
 * the MAIN-world content script passes nothing.
 */
export function installListenerTracker(win: Window & typeof globalThis = window): Tracker {
  const holder = win as unknown as Record<symbol, Tracker | undefined>;
  if (holder[INSTALLED]) return holder[INSTALLED]!;
  // The built-ins as they are now: the page may replace them later, the tracker keeps these.
  const { WeakRef: WeakRef_, WeakSet: WeakSet_, CustomEvent: CustomEvent_, Reflect: Reflect_ } = win;
  const ElementProto = win.Element.prototype;
  const isElement = (value: unknown): value is Element => {
    try {
      return value instanceof win.Element;
    } catch {
      return false;
    }
  };
  const isConnected = Object.getOwnPropertyDescriptor(win.Node.prototype, 'isConnected')?.get;
  const dispatch = win.EventTarget.prototype.dispatchEvent;
  const seen = new WeakSet_<Element>();
  let list: Array<WeakRef<Element>> = [];

  const remember = (element: Element) => {
    if (seen.has(element)) return;
    if (list.length >= MAX_TRACKED) {
      // Full: keep the live, connected ones; if still full, forget the oldest half.
      list = list.filter((r) => {
        const e = r.deref();
        return e !== undefined && isConnected?.call(e) === true;
      });
      if (list.length >= MAX_TRACKED) list = list.slice(list.length >> 1);
    }
    seen.add(element);
    list.push(new WeakRef_(element));
  };

  const original = win.EventTarget.prototype.addEventListener;
  const wrapped = {
    addEventListener(this: EventTarget, type: string, listener: unknown, options?: unknown) {
      if (typeof type === 'string' && POINTER_TYPES.has(type) && listener && isElement(this)) remember(this);
      // eslint-disable-next-line prefer-rest-params -- the page's own arguments, as given
      return Reflect_.apply(original, this, arguments);
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
            if (typeof value === 'function' && isElement(this)) remember(this);
            Reflect_.apply(set, this, [value]);
          },
        }[key],
      });
    }
  }
  void ElementProto;

  const onAsk = () => {
    let marked = 0;
    // Newest first: what a page just made (an opened menu, a dialog) is what the next action needs.
    for (let i = list.length - 1; i >= 0; i--) {
      if (marked >= MAX_MARKED) break;
      const element = list[i]!.deref();
      if (!element || isConnected?.call(element) !== true) continue;
      marked++;
      try {
        Reflect_.apply(dispatch, element, [new CustomEvent_(MARK_EVENT, { bubbles: true, composed: true })]);
      } catch {
        // An element whose dispatch throws is left out.
      }
    }
  };
  Reflect_.apply(original, win.document, [ASK_EVENT, onAsk, true]);
  const tracker: Tracker = { size: () => list.length };
  Object.defineProperty(win, INSTALLED, { value: tracker });
  return tracker;
}

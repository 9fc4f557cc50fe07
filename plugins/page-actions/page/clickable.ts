import { ASK_EVENT, MARK_EVENT } from './listener-events';

/**
 * The isolated-world half of "what a person can click" beyond roles and focusability: elements
 * with a click/pointer/mouse/touch listener (learned from the MAIN-world tracker,
 * `listener-tracker.ts`), where a `cursor: pointer` starts, `<a>` without `href`, `tabindex="-1"`.
 * These are weak signals: such an element gets a reference unless it is a large container (a
 * delegating `ul` with a listener for its items is not one thing to click; its items with a
 * pointer cursor are, and so are the items of any list with a listener of its own).
 */

/** Most elements taken from one answer of the tracker. */
const MAX_COLLECTED = 5_000;
/** A listener or `tabindex="-1"` on an element with more children than this is a container's (delegation, focus management). */
export const MAX_CONTAINER_CHILDREN = 10;

/**
 * The elements of `doc` the MAIN-world tracker remembers having a click-like listener (asked
 * synchronously: the tracker answers during the dispatch). Empty without a tracker (jsdom, a page
 * opened before the extension was installed).
 */
export function listenerTargets(doc: Document, into: Set<Element> = new Set()): Set<Element> {
  const view = doc.defaultView;
  if (!view) return into;
  let count = 0;
  const onMark = (event: Event) => {
    if (count >= MAX_COLLECTED) return;
    // The element it was dispatched on, also inside an open shadow root.
    const target = (event.composedPath?.()[0] ?? event.target) as Element | null;
    if (target && target.nodeType === 1) {
      into.add(target);
      count++;
    }
    event.stopImmediatePropagation();
  };
  view.addEventListener(MARK_EVENT, onMark, true);
  try {
    doc.dispatchEvent(new view.CustomEvent(ASK_EVENT, { detail: '{}' }));
  } catch {
    // No answer: no listener-made references.
  } finally {
    view.removeEventListener(MARK_EVENT, onMark, true);
  }
  return into;
}

/**
 * The computed `cursor` of an element. Where the browser has no layout (no `checkVisibility`:
 * jsdom in tests) only the inline style, as `visible.ts` does: computing styles there costs more
 * than the whole outline.
 */
export function cursorOf(element: Element): string {
  if (typeof (element as Element & { checkVisibility?: unknown }).checkVisibility !== 'function') return (element as HTMLElement).style?.cursor ?? '';
  try {
    const view = element.ownerDocument.defaultView;
    return view ? view.getComputedStyle(element).cursor || '' : '';
  } catch {
    return '';
  }
}

/** Not one thing to click: the page itself, or an element holding many others. */
function isContainer(element: Element): boolean {
  const tag = element.tagName;
  return tag === 'BODY' || tag === 'HTML' || element.childElementCount > MAX_CONTAINER_CHILDREN;
}

/**
 * Why a person could click `element` though its role and attributes do not say so, or '' when
 * nothing does: 'listener' (the tracker), 'pointer' (its cursor starts being a pointer here),
 * 'anchor' (an `<a>` without href), 'tabindex' (`tabindex="-1"`).
 */
export function weakClickable(element: Element, listeners: Set<Element>, pointerStarts: boolean): '' | 'listener' | 'pointer' | 'anchor' | 'tabindex' {
  if (pointerStarts) return 'pointer';
  if (element.localName === 'a' && !element.hasAttribute('href') && element.namespaceURI === 'http://www.w3.org/1999/xhtml') return 'anchor';
  if (listeners.has(element) && !isContainer(element)) return 'listener';
  // An item of a list that listens itself (delegation: jQuery UI's selectable presses its items
  // through the list's mousedown; `$(ul).on('click', 'li', …)`): the item is what a person presses.
  if (element.localName === 'li' && element.parentElement && listeners.has(element.parentElement)) return 'listener';
  if (element.getAttribute('tabindex')?.trim() === '-1' && !isContainer(element)) return 'tabindex';
  return '';
}

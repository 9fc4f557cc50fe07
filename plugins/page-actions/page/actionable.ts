import { isOwnUi } from './own-ui';
import { parentAcrossShadow, type Point } from './input';

/**
 * What a person checks before acting on an element: it is in view, shown, enabled, and nothing
 * lies on top of it. Each failure is an `ActionError` worded for the model, naming what is wrong
 * (and, when the element is covered, what covers it, so the model can close that first).
 */
export class ActionError extends Error {
  /** The element that covers the target, when that is the problem. */
  cover?: Element;
  constructor(message: string, cover?: Element) {
    super(message);
    this.cover = cover;
  }
}

/** Scrolls `element` to the middle of its viewports when it is not wholly in view already. */
export function scrollIntoViewIfNeeded(element: Element): void {
  const view = element.ownerDocument.defaultView;
  const rect = element.getBoundingClientRect();
  const inView = view && rect.top >= 0 && rect.left >= 0 && rect.bottom <= view.innerHeight && rect.right <= view.innerWidth;
  if (inView && isFrameInView(element)) return;
  if (typeof element.scrollIntoView !== 'function') return;
  try {
    element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
  } catch {
    element.scrollIntoView();
  }
}

function isFrameInView(element: Element): boolean {
  const frame = frameElementOf(element.ownerDocument);
  if (!frame) return true;
  const view = frame.ownerDocument.defaultView;
  const rect = frame.getBoundingClientRect();
  return Boolean(view && rect.top >= 0 && rect.left >= 0 && rect.bottom <= view.innerHeight && rect.right <= view.innerWidth) && isFrameInView(frame);
}

/** The iframe element that holds `doc` (same-origin only; null for the top document). */
export function frameElementOf(doc: Document): Element | null {
  try {
    return doc.defaultView?.frameElement ?? null;
  } catch {
    return null;
  }
}

/** Why `element` is not shown, or '' when it is (laid out, not `visibility: hidden`, not zero-size). */
export function hiddenReason(element: Element): string {
  if (!element.isConnected) return 'it is no longer in the page';
  const style = element.ownerDocument.defaultView?.getComputedStyle(element);
  if (element.getClientRects().length === 0) return 'it is not displayed (display: none, or inside a hidden element)';
  if (style && (style.visibility === 'hidden' || style.visibility === 'collapse')) return 'it is invisible (visibility: hidden)';
  const rect = element.getBoundingClientRect();
  if (rect.width <= 0 || rect.height <= 0) return `it has no size (${Math.round(rect.width)}×${Math.round(rect.height)} px)`;
  return '';
}

/** Why `element` is disabled, or '' when it is enabled. */
export function disabledReason(element: Element): string {
  if ((element as HTMLButtonElement).disabled === true) return 'it is disabled';
  try {
    if (element.matches(':disabled')) return 'it is inside a disabled fieldset';
  } catch {
    // An engine without :disabled: the property check above stands.
  }
  for (let node: Element | null = element; node; node = parentAcrossShadow(node)) {
    if (node.getAttribute('aria-disabled') === 'true') return node === element ? 'it is disabled (aria-disabled)' : 'it is inside a disabled group (aria-disabled)';
  }
  if (element.closest('[inert]')) return 'it is inert (the page made it unreachable, often behind a dialog)';
  return '';
}

/** The visible part of `element`'s box within its viewport. */
function visibleBox(element: Element): { left: number; top: number; right: number; bottom: number } {
  const view = element.ownerDocument.defaultView;
  const rect = element.getBoundingClientRect();
  const width = view?.innerWidth || rect.right;
  const height = view?.innerHeight || rect.bottom;
  const box = { left: Math.max(rect.left, 0), top: Math.max(rect.top, 0), right: Math.min(rect.right, width), bottom: Math.min(rect.bottom, height) };
  if (box.right <= box.left || box.bottom <= box.top) return { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom };
  return box;
}

/** True when `node` is `ancestor` or inside it, across shadow roots. */
export function composedContains(ancestor: Node, node: Node | null): boolean {
  for (let current: Node | null = node; current; current = current.parentNode ?? (current as ShadowRoot).host ?? null) {
    if (current === ancestor) return true;
  }
  return false;
}

/** The topmost element at a point of `root` that is not the extension's own UI, descending into open shadow roots. */
export function hitAt(root: Document | ShadowRoot, x: number, y: number): Element | null {
  const list = typeof root.elementsFromPoint === 'function' ? root.elementsFromPoint(x, y) : typeof root.elementFromPoint === 'function' ? [root.elementFromPoint(x, y)] : null;
  if (list === null) return null;
  const hit = list.find((element) => element && !isOwnUi(element) && !ownUiAncestor(element)) ?? null;
  if (hit?.shadowRoot && hit.shadowRoot !== root) {
    const inner = hitAt(hit.shadowRoot, x, y);
    if (inner && inner !== hit) return inner;
  }
  return hit;
}

function ownUiAncestor(element: Element): boolean {
  for (let node = parentAcrossShadow(element); node; node = parentAcrossShadow(node)) if (isOwnUi(node)) return true;
  return false;
}

/** True when a click at the hit element reaches `target` (the target, something inside it, or its label). */
function reaches(target: Element, hit: Element): boolean {
  if (composedContains(target, hit)) return true;
  const label = hit.closest('label');
  return Boolean(label && (label as HTMLLabelElement).control === target);
}

/**
 * What is at `point` (in `element`'s viewport) all the way from the top document down through the
 * frames: the element itself (or inside it) when nothing covers it. `undefined` when hit testing is
 * not possible here (no `elementsFromPoint`, as in jsdom without a stub).
 */
export function coverAt(element: Element, point: Point): Element | null | undefined {
  const chain: Element[] = [];
  for (let frame = frameElementOf(element.ownerDocument); frame; frame = frameElementOf(frame.ownerDocument)) chain.unshift(frame);
  // Into top-level coordinates, then back down one frame at a time.
  let x = point.x;
  let y = point.y;
  const offsets = chain.map((frame) => frameContentOffset(frame));
  for (const offset of offsets) {
    x += offset.x;
    y += offset.y;
  }
  let doc = (chain[0] ?? element).ownerDocument;
  for (let level = 0; level <= chain.length; level++) {
    const hit = hitAt(doc, x, y);
    if (hit === null && typeof doc.elementsFromPoint !== 'function' && typeof doc.elementFromPoint !== 'function') return undefined;
    const expected = chain[level] ?? element;
    if (!hit) return null;
    const offset = offsets[level];
    if (level < chain.length && offset) {
      if (hit !== expected && !composedContains(expected, hit)) return hit;
      x -= offset.x;
      y -= offset.y;
      doc = (expected as HTMLIFrameElement).contentDocument as Document;
      continue;
    }
    return reaches(element, hit) ? element : hit;
  }
  return element;
}

/** Where an iframe's content starts, in its parent's viewport (box + border + padding). */
export function frameContentOffset(frame: Element): Point {
  const rect = frame.getBoundingClientRect();
  const style = frame.ownerDocument.defaultView?.getComputedStyle(frame);
  const padLeft = parseFloat(style?.paddingLeft ?? '') || 0;
  const padTop = parseFloat(style?.paddingTop ?? '') || 0;
  return { x: rect.left + (frame.clientLeft || 0) + padLeft, y: rect.top + (frame.clientTop || 0) + padTop };
}

/** `point` (in the viewport of `doc`: a same-origin frame's document or the top one) in CSS pixels of the top viewport. */
export function topViewportPoint(doc: Document, point: Point): Point {
  let x = point.x;
  let y = point.y;
  for (let frame = frameElementOf(doc); frame; frame = frameElementOf(frame.ownerDocument)) {
    const offset = frameContentOffset(frame);
    x += offset.x;
    y += offset.y;
  }
  return { x, y };
}

/** A point to act at, and what is on top there (what a person's finger reaches: the target, something inside it, or its label). */
export interface ActionPoint extends Point {
  hit?: Element;
}

/**
 * What a press at `point` (in `element`'s viewport) lands on, when it reaches `element`: the topmost
 * element there in `element`'s document (the link inside a tab's `<li>`, the label of a checkbox).
 * Undefined when hit testing is not possible or something else is on top.
 */
export function landingAt(element: Element, point: Point): Element | undefined {
  const hit = hitAt(element.ownerDocument, point.x, point.y);
  return hit && reaches(element, hit) ? hit : undefined;
}

export interface CheckOptions {
  /** Check that nothing covers it (clicks, hover, typing). */
  hitTarget?: boolean;
  /** Check that it is enabled. */
  enabled?: boolean;
}

/**
 * Scrolls `element` into view and checks it can be acted on; returns the point to act at (the
 * middle of its visible part, or another point of it when only the middle is covered). Throws an
 * `ActionError`; `describe` names an element for the message ('button "Add" (e4)').
 */
export function ensureActionable(element: Element, describe: (element: Element) => string, options: CheckOptions = {}): ActionPoint {
  scrollIntoViewIfNeeded(element);
  const hidden = hiddenReason(element);
  if (hidden) throw new ActionError(`${describe(element)} cannot be used: ${hidden}. Call read_page to see what is shown, or scroll, or wait_for it.`);
  if (options.enabled !== false) {
    const disabled = disabledReason(element);
    if (disabled) throw new ActionError(`${describe(element)} cannot be used: ${disabled}. Something else on the page may need doing first (fill a required field, choose an option), or wait_for it.`);
  }
  const box = visibleBox(element);
  const width = box.right - box.left;
  const height = box.bottom - box.top;
  const middle = { x: box.left + width / 2, y: box.top + height / 2 };
  if (options.hitTarget === false) return middle;
  const candidates = [middle, { x: box.left + width / 4, y: box.top + height / 4 }, { x: box.right - width / 4, y: box.top + height / 4 }, { x: box.left + width / 4, y: box.bottom - height / 4 }, { x: box.right - width / 4, y: box.bottom - height / 4 }];
  let firstCover: Element | null = null;
  for (const point of candidates) {
    const found = coverAt(element, point);
    if (found === undefined) return point;
    if (found === element) return { ...point, hit: landingAt(element, point) ?? element };
    firstCover ??= found;
  }
  if (!firstCover) throw new ActionError(`${describe(element)} is outside the visible part of the page even after scrolling: scroll to it, or read_page again.`);
  const cover = coveringElement(firstCover, element);
  throw new ActionError(`${describe(element)} is covered by ${describe(cover)}: a person could not reach it. Close or dismiss that first (read_page with its ref shows its buttons), or wait_for it to go.`, cover);
}

const DIALOG_ROLES = /^(dialog|alertdialog)$/;

/**
 * The element to name as the cover: a dialog around the hit element if there is one, else a
 * dialog inside the covering part (a backdrop around it), else the outermost element of the
 * covering part (below what it shares with the target).
 */
function coveringElement(hit: Element, target: Element): Element {
  let outermost = hit;
  for (let node: Element | null = hit; node && !composedContains(node, target); node = parentAcrossShadow(node)) {
    if (DIALOG_ROLES.test(node.getAttribute('role') ?? '') || node.localName === 'dialog') return node;
    outermost = node;
  }
  // A modal's backdrop: name the dialog it holds, which is what the model can close.
  const dialog = [...outermost.querySelectorAll('[role="dialog"], [role="alertdialog"], dialog')].find((found) => !hiddenReason(found));
  return dialog ?? outermost;
}

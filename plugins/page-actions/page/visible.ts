/**
 * Whether a person can see an element, without layout thrash: `checkVisibility()` where the
 * browser has it (one style pass for the whole page, then cheap per element), else the signs a
 * DOM without layout has (jsdom in tests: the `hidden` attribute and inline styles). Elements with
 * a zero-size box are not dropped: a DOM without layout has only those.
 */

/** Not shown: skip the element and everything in it. */
export const GONE = 0;
/** Shown. */
export const SHOWN = 1;
/** `visibility: hidden`: its own text is not shown, but a child may make itself visible again. */
export const INVISIBLE = 2;

type CheckVisibility = (options?: Record<string, boolean>) => boolean;

/**
 * GONE, SHOWN or INVISIBLE for one element (its ancestors were checked by the walk already);
 * `parentInvisible`: the parent is INVISIBLE (without layout, visibility is inherited here).
 */
export function shownState(element: Element, parentInvisible = false): number {
  if (element.getAttribute('aria-hidden') === 'true' || element.hasAttribute('inert')) return GONE;
  const check = (element as Element & { checkVisibility?: CheckVisibility }).checkVisibility;
  if (typeof check === 'function') {
    if (check.call(element, { visibilityProperty: true, checkVisibilityCSS: true })) return SHOWN;
    if (check.call(element)) return INVISIBLE;
    // No box of its own: `display: contents` (slots, some wrappers) still shows its children.
    return displayContents(element) ? SHOWN : GONE;
  }
  if (element.hasAttribute('hidden')) return GONE;
  const style = (element as HTMLElement).style as CSSStyleDeclaration | undefined;
  if (!style) return parentInvisible ? INVISIBLE : SHOWN;
  if (style.display === 'none') return GONE;
  if (style.visibility === 'hidden' || style.visibility === 'collapse') return INVISIBLE;
  if (style.visibility === 'visible') return SHOWN;
  return parentInvisible ? INVISIBLE : SHOWN;
}

function displayContents(element: Element): boolean {
  if (element.localName === 'slot') return true;
  try {
    const view = element.ownerDocument?.defaultView;
    return view?.getComputedStyle(element).display === 'contents';
  } catch {
    return false;
  }
}

/** What a reader sees of a page: the parts that never carry content go, and what is not shown. */

/** Never worth reading, removed before anything else looks at the page. */
const JUNK = 'script:not([type="application/ld+json"]), style, noscript, template, iframe, object, embed, canvas, svg, link, dialog:not([open])';
/** Hidden by markup (a parsed page has no layout to ask). */
const HIDDEN_BY_MARKUP =
  '[hidden], [aria-hidden="true"], [style*="display:none" i], [style*="display: none" i], [style*="visibility:hidden" i], [style*="visibility: hidden" i]';

/** Removes what never carries content, and what the markup itself hides. */
export function prune(root: Element): void {
  for (const el of Array.from(root.querySelectorAll(`${JUNK}, ${HIDDEN_BY_MARKUP}`))) {
    // Readability keeps Wikipedia's math fallback images: do the same.
    if (el.classList.contains('fallback-image') && !el.matches(JUNK)) continue;
    el.remove();
  }
}

export interface VisibleCopy {
  /** The copy of the element asked for, in an inert document of its own. */
  root: Element;
  /** Each copied element → the live element it was copied from. */
  origin: Map<Element, Element>;
}

/**
 * Copies a rendered element into an inert document (no scripts, no loads, no custom-element
 * upgrades), leaving out what the browser does not show and what never carries content. The
 * live page is never changed. A copy of the whole document keeps its `<head>` (title, metadata)
 * and gets a `<base>` so relative links resolve as on the page.
 */
export function copyVisible(doc: Document, element: Element): VisibleCopy {
  const inert = doc.implementation.createHTMLDocument('');
  const origin = new Map<Element, Element>();
  const whole = element === doc.documentElement;
  const root = inert.importNode(element, true) as Element;
  if (whole) {
    inert.documentElement.remove();
    inert.appendChild(root);
    const head = root.querySelector('head') ?? root.insertBefore(inert.createElement('head'), root.firstChild);
    for (const old of Array.from(head.querySelectorAll('base'))) old.remove();
    const base = inert.createElement('base');
    base.href = doc.baseURI;
    head.prepend(base);
  } else {
    const base = inert.createElement('base');
    base.href = doc.baseURI;
    inert.head.append(base);
    inert.body.append(root);
  }
  origin.set(root, element);
  const liveStart = whole ? doc.body : element;
  const copyStart = whole ? root.querySelector(':scope > body') : root;
  if (liveStart && copyStart) {
    origin.set(copyStart, liveStart);
    dropHidden(liveStart, copyStart, origin);
  }
  for (const el of Array.from(root.querySelectorAll(JUNK))) el.remove();
  return { root, origin };
}

/** Walks the live tree and its copy in step, removing from the copy what is not shown. */
function dropHidden(live: Element, copy: Element, origin: Map<Element, Element>): void {
  const stack: Array<[Element, Element]> = [[live, copy]];
  while (stack.length) {
    const [l, c] = stack.pop()!;
    let lc = l.firstElementChild;
    let cc = c.firstElementChild;
    while (lc && cc) {
      const nextL = lc.nextElementSibling;
      const nextC = cc.nextElementSibling;
      if (isHidden(lc)) {
        cc.remove();
      } else {
        origin.set(cc, lc);
        if (lc.firstElementChild) stack.push([lc, cc]);
      }
      lc = nextL;
      cc = nextC;
    }
  }
}

function isHidden(el: Element): boolean {
  if (typeof el.checkVisibility !== 'function') return false;
  if (el.checkVisibility({ visibilityProperty: true } as CheckVisibilityOptions)) return false;
  // No box of its own, but its children are shown.
  if (el.ownerDocument.defaultView?.getComputedStyle(el).display === 'contents') return false;
  // The content of a closed <details> is there for the reader to open: keep it.
  if (el.closest('details:not([open])')) return false;
  return true;
}

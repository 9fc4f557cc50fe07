import { Readability } from '@mozilla/readability';

/** Readability's internals this module uses (prototype members the typings do not declare). */
interface ReadabilityInternals {
  REGEXPS: { byline: RegExp; hashUrl: RegExp };
  FLAG_CLEAN_CONDITIONALLY: number;
  _doc: Document;
  _getLinkDensity(element: Element): number;
  _initializeNode(node: Element): void;
  _flagIsActive(flag: number): boolean;
  _getInnerText(e: Node, normalizeSpaces?: boolean): string;
  _cleanConditionally(e: Element, tag: string): void;
}

const stock = Readability.prototype as unknown as ReadabilityInternals;

/**
 * Readability for a Markdown reader: the same article as stock `Readability`, for less work (the
 * unit tests check that the Markdown is the same as with the stock class, retries included).
 *
 * - Two passes that only shape the article's HTML are skipped, because the Markdown converter
 *   does their job or has no use for it: `_cleanStyles` strips presentational attributes (twelve
 *   `removeAttribute` calls on every element; Markdown keeps no attributes) and
 *   `_fixRelativeUris` makes links absolute with one `new URL()` each (the converter resolves
 *   them, most without the URL parser).
 * - Checks Readability runs on every element test their cheap conditions first: the byline and
 *   empty-element checks before building the element's `textContent` (and the empty check stops
 *   at the first text it finds), the visibility check reads `style` only when the element has a
 *   `style` attribute (each `node.style` creates a style object).
 * - The copy of the page Readability keeps for its retries is a clone of the nodes, not their
 *   HTML (the `_snapshotPage`/`_restorePage` hooks of build/readability-fast.ts).
 * - `_cleanConditionally` asks for the text of the same element up to six times, and for the
 *   text of every element below it again for each container above it: the texts are kept for
 *   the length of one call, and forgotten for every ancestor of a node it removes.
 * - The link density of every candidate container is worked out from text lengths kept per node
 *   while the document does not change (a MutationObserver says when it does), instead of
 *   building each container's whole text again.
 */
export class MarkdownReadability extends Readability<HTMLElement> {
  /** Normalized texts, kept while `_cleanConditionally` runs (see `_removeNodes`). */
  private texts: Map<Node, string> | null = null;
  /**
   * Watches the document from the moment Readability starts scoring candidates (when it does not
   * change the document) until the first change: the kept text lengths hold while it sees none.
   */
  private observer: MutationObserver | null = null;
  private observing = false;
  /** Text length summaries of the document's nodes, valid while `observing` and no change is seen. */
  private lengths = new Map<Node, TextShape>();

  override parse(): ReturnType<Readability<HTMLElement>['parse']> {
    const doc = (this as unknown as ReadabilityInternals)._doc;
    const Observer = globalThis.MutationObserver ?? (doc.defaultView as (Window & typeof globalThis) | null)?.MutationObserver;
    if (Observer) this.observer = new Observer(() => {});
    try {
      return super.parse();
    } finally {
      this.stopObserving();
      this.observer = null;
    }
  }

  private stopObserving(): void {
    if (this.observing) this.observer?.disconnect();
    this.observing = false;
    this.lengths.clear();
  }

  /** Called as Readability scores the paragraphs' ancestors, just before it asks for their link densities. */
  _initializeNode(node: Element): void {
    if (this.observer && !this.observing) {
      this.observer.observe((this as unknown as ReadabilityInternals)._doc, { childList: true, subtree: true, characterData: true });
      this.observing = true;
    }
    stock._initializeNode.call(this, node);
  }

  /**
   * As Readability's (share of the text that is in links, hash links counted at 0.3). While the
   * document is watched and unchanged, the lengths of the normalized texts are worked out from
   * the text nodes up and kept: Readability asks for every candidate container of the page in a
   * row, each an ancestor of others, and the stock method builds each one's whole text again.
   * The first change seen ends the watch until the next scoring.
   */
  _getLinkDensity(element: Element): number {
    if (this.observing && this.observer!.takeRecords().length) this.stopObserving();
    if (!this.observing || !element.isConnected) return stock._getLinkDensity.call(this, element);
    const textLength = normalizedLength(this.shape(element));
    if (textLength === 0) return 0;
    const hashUrl = (this as unknown as ReadabilityInternals).REGEXPS.hashUrl;
    let linkLength = 0;
    const links = element.getElementsByTagName('a');
    for (let i = 0; i < links.length; i++) {
      const href = links[i]!.getAttribute('href');
      const coefficient = href && hashUrl.test(href) ? 0.3 : 1;
      linkLength += normalizedLength(this.shape(links[i]!)) * coefficient;
    }
    return linkLength / textLength;
  }

  private shape(node: Node): TextShape {
    let shape = this.lengths.get(node);
    if (!shape) {
      if (node.nodeType === 3 || node.nodeType === 4) shape = textShape((node as CharacterData).data);
      else {
        shape = EMPTY;
        for (let child = node.firstChild; child; child = child.nextSibling) {
          if (child.nodeType === 1 || child.nodeType === 3 || child.nodeType === 4) shape = joinShapes(shape, this.shape(child));
        }
      }
      this.lengths.set(node, shape);
    }
    return shape;
  }

  _cleanStyles(): void {}
  _fixRelativeUris(): void {}

  /** As Readability's: an author link or byline-looking class/id, with 1–99 characters of text. */
  _isValidByline(node: Element, matchString: string): boolean {
    const rel = node.getAttribute('rel');
    const itemprop = node.getAttribute('itemprop');
    const looksLikeByline =
      rel === 'author' || Boolean(itemprop && itemprop.includes('author')) || (this as unknown as ReadabilityInternals).REGEXPS.byline.test(matchString);
    if (!looksLikeByline) return false;
    const length = (node.textContent ?? '').trim().length;
    return length > 0 && length < 100;
  }

  /** As Readability's: an element with no text whose children, if any, are all `<br>`/`<hr>`. */
  _isElementWithoutContent(node: Element): boolean {
    if (node.nodeType !== 1 || hasText(node)) return false;
    const children = node.children.length;
    return !children || children === node.getElementsByTagName('br').length + node.getElementsByTagName('hr').length;
  }

  /** As Readability's: not `display: none`/`visibility: hidden` inline, not `hidden`, not `aria-hidden` (but Wikipedia's math fallback images). */
  _isProbablyVisible(node: Element): boolean {
    if (node.hasAttribute('hidden')) return false;
    if (node.hasAttribute('style')) {
      const style = (node as HTMLElement).style as CSSStyleDeclaration | undefined;
      if (style && (style.display === 'none' || style.visibility === 'hidden')) return false;
    }
    if (node.getAttribute('aria-hidden') !== 'true') return true;
    const className = node.className as unknown;
    return typeof className === 'string' && className.includes('fallback-image');
  }

  _snapshotPage(page: Element): DocumentFragment {
    const copy = page.ownerDocument.createDocumentFragment();
    for (let child = page.firstChild; child; child = child.nextSibling) copy.appendChild(child.cloneNode(true));
    return copy;
  }

  _restorePage(page: Element, snapshot: DocumentFragment): void {
    page.replaceChildren(snapshot.cloneNode(true));
  }

  _getInnerText(e: Node, normalizeSpaces?: boolean): string {
    if (!this.texts || normalizeSpaces === false) return stock._getInnerText.call(this, e, normalizeSpaces);
    let text = this.texts.get(e);
    if (text === undefined) {
      text = stock._getInnerText.call(this, e, true);
      this.texts.set(e, text);
    }
    return text;
  }

  _cleanConditionally(e: Element, tag: string): void {
    const self = this as unknown as ReadabilityInternals;
    if (!self._flagIsActive(self.FLAG_CLEAN_CONDITIONALLY)) return;
    this.texts = new Map();
    try {
      stock._cleanConditionally.call(this, e, tag);
    } finally {
      this.texts = null;
    }
  }

  /** As Readability's; while texts are kept, those of the removed node's ancestors are forgotten. */
  _removeNodes(nodeList: ArrayLike<Element>, filterFn?: (this: this, node: Element, i: number, list: ArrayLike<Element>) => boolean): void {
    for (let i = nodeList.length - 1; i >= 0; i--) {
      const node = nodeList[i]!;
      const parent = node.parentNode;
      if (!parent || (filterFn && !filterFn.call(this, node, i, nodeList))) continue;
      if (this.texts) for (let a: Node | null = parent; a; a = a.parentNode) this.texts.delete(a);
      parent.removeChild(node);
    }
  }
}

/**
 * What `text.trim().replace(/\s{2,}/g, ' ').length` (Readability's normalized text length) needs
 * to know of a piece of text so that pieces can be joined without the text itself: its
 * non-whitespace characters, the runs of whitespace between them (each becomes one character),
 * and whether it starts or ends with whitespace. `kind`: 0 empty, 1 only whitespace, 2 has text.
 */
interface TextShape {
  kind: 0 | 1 | 2;
  chars: number;
  runs: number;
  lead: boolean;
  trail: boolean;
}

const EMPTY: TextShape = { kind: 0, chars: 0, runs: 0, lead: false, trail: false };
const BLANK: TextShape = { kind: 1, chars: 0, runs: 0, lead: true, trail: true };

/** JavaScript's `\s`: what `trim()` removes and the normalizing regular expression matches. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 5760 || (c >= 8192 && c <= 8202) || c === 8232 || c === 8233 || c === 8239 || c === 8287 || c === 12288 || c === 65279;
}

function textShape(text: string): TextShape {
  if (!text) return EMPTY;
  let chars = 0;
  let runs = 0;
  let inRun = false;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      inRun = true;
    } else {
      if (inRun && chars) runs++;
      inRun = false;
      chars++;
    }
  }
  if (!chars) return BLANK;
  return { kind: 2, chars, runs, lead: isSpace(text.charCodeAt(0)), trail: inRun };
}

function joinShapes(a: TextShape, b: TextShape): TextShape {
  if (a.kind === 0) return b;
  if (b.kind === 0) return a;
  if (a.kind === 1) return b.kind === 1 ? BLANK : b.lead ? b : { ...b, lead: true };
  if (b.kind === 1) return a.trail ? a : { ...a, trail: true };
  return { kind: 2, chars: a.chars + b.chars, runs: a.runs + b.runs + (a.trail || b.lead ? 1 : 0), lead: a.lead, trail: b.trail };
}

function normalizedLength(shape: TextShape): number {
  return shape.kind === 2 ? shape.chars + shape.runs : 0;
}

/** Whether `node.textContent.trim()` would be non-empty, reading only as far as the first text that is. */
function hasText(node: Node): boolean {
  let n: Node | null = node.firstChild;
  while (n && n !== node) {
    if (n.nodeType === 3 || n.nodeType === 4) {
      if (/\S/.test((n as Text).data)) return true;
    } else if (n.firstChild) {
      n = n.firstChild;
      continue;
    }
    while (n && n !== node && !n.nextSibling) n = n.parentNode;
    if (n && n !== node) n = n.nextSibling;
  }
  return false;
}

import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { createMarkdownConverter } from './markdown';

/**
 * Page → Markdown, one module for every reader: reading a rendered tab (`live`),
 * a document parsed from fetched HTML, the unit tests (saved pages) and
 * `bench/extract`. Everything takes the `Document` as a parameter.
 *
 * Without a selector: an article page goes through Readability (the main body; navigation,
 * sidebars, comments and the like removed); a page Readability would not call an article (an
 * app, a list, a form) is read from its `main` landmark, else its `body`, minus navigation,
 * banners, footers and complementary landmarks. The title is always the first line.
 */

export interface ExtractOptions {
  /**
   * The document is a rendered page: it is read without being changed (a copy is worked on) and
   * nodes the browser does not show (`display: none`, `visibility: hidden`) are left out.
   * Otherwise the document is the caller's own copy and is changed in place.
   */
  live?: boolean;
  /** Limits the reading to the first element this CSS selector matches. */
  selector?: string;
  /** Links and images are made absolute against this URL (default: the document's base URL). */
  baseUrl?: string;
  /**
   * A parsed (not live) document: gives a fresh copy of it, for when Readability, which changes
   * the document it reads, finds no article and the page has to be read another way.
   */
  reparse?: () => Document;
}

export type ExtractMethod = 'selector' | 'article' | 'landmark' | 'body';

export interface Extracted {
  title: string;
  markdown: string;
  /** What was read: the selector given, or a selector for the part chosen. */
  usedSelector: string;
  method: ExtractMethod;
}

/** Thrown for a selector that is not valid CSS or matches nothing; the message is for the model. */
export class SelectorError extends Error {
  override name = 'SelectorError';
}

const toMarkdown = createMarkdownConverter();

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

/** Never worth reading, removed before anything else looks at the page. */
const JUNK = 'script:not([type="application/ld+json"]), style, noscript, template, iframe, object, embed, canvas, svg, link, dialog:not([open])';
/** Hidden by markup (a parsed page has no layout to ask). */
const HIDDEN_BY_MARKUP =
  '[hidden], [aria-hidden="true"], [style*="display:none" i], [style*="display: none" i], [style*="visibility:hidden" i], [style*="visibility: hidden" i]';
/** Landmarks around the content, dropped when a page is read without Readability. */
const BOILERPLATE =
  'nav, aside, footer, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], body > header';
/** A readable article shorter than this falls back to the landmark or body. */
const MIN_ARTICLE_CHARS = 200;

/** Reads a document as Markdown. Throws `SelectorError` for a bad or unmatched selector. */
export function extractPage(doc: Document, options: ExtractOptions = {}): Extracted {
  // The page's own address, not that of the extension page that parsed it (the document is not
  // changed for it: a new <base> makes the browser revisit every link of the page).
  const baseUrl = !options.live && options.baseUrl ? documentBase(doc, options.baseUrl) : doc.baseURI;
  const title = pageTitle(doc);

  if (options.selector !== undefined) {
    const target = querySelectorOrThrow(doc, options.selector);
    const copy = options.live ? copyVisible(doc, target).root : target;
    if (!options.live) prune(copy);
    const markdown = withTitle(title, toMarkdown(copy, baseUrl), false);
    return { title, markdown, usedSelector: options.selector, method: 'selector' };
  }

  const work = options.live ? copyVisible(doc, doc.documentElement) : null;
  const workDoc = work ? work.root.ownerDocument : doc;
  if (!work) prune(workDoc.documentElement);

  if (isProbablyReaderable(workDoc)) {
    narrowToContent(workDoc);
    const article = new MarkdownReadability(workDoc, { keepClasses: true, serializer: (el) => el as HTMLElement }).parse();
    const content = article?.content;
    if (content && (article.textContent ?? '').trim().length >= MIN_ARTICLE_CHARS) {
      const articleTitle = (article.title ?? '').trim() || title;
      const usedSelector = work ? sourceSelector(content, work.origin) : 'article';
      return { title: articleTitle, markdown: withTitle(articleTitle, toMarkdown(content, baseUrl), true), usedSelector, method: 'article' };
    }
    // Readability changed the document: start again from a fresh copy for the fallback.
    return fallback(doc, options, baseUrl, title);
  }
  return fallbackFrom(workDoc, baseUrl, title, work?.origin);
}

function fallback(doc: Document, options: ExtractOptions, baseUrl: string, title: string): Extracted {
  if (options.live) {
    const work = copyVisible(doc, doc.documentElement);
    return fallbackFrom(work.root.ownerDocument, baseUrl, title, work.origin);
  }
  // Readability changed the parsed document; read a fresh one if the caller can give it.
  const fresh = options.reparse?.();
  if (fresh) {
    prune(fresh.documentElement);
    return fallbackFrom(fresh, baseUrl, title);
  }
  // Without one, what Readability left of the page is still better than nothing.
  return fallbackFrom(doc, baseUrl, title);
}

function fallbackFrom(doc: Document, baseUrl: string, title: string, origin?: Map<Element, Element>): Extracted {
  const landmark = doc.querySelector('main, [role="main"]');
  const useLandmark = landmark && (landmark.textContent ?? '').trim().length >= MIN_ARTICLE_CHARS;
  const root = (useLandmark ? landmark : doc.body) ?? doc.documentElement;
  for (const el of Array.from(root.querySelectorAll(BOILERPLATE))) el.remove();
  const markdown = withTitle(title, toMarkdown(root, baseUrl), false);
  const usedSelector = useLandmark ? (origin ? cssPath(origin.get(root) ?? root) : landmarkSelector(root)) : 'body';
  return { title, markdown, usedSelector, method: useLandmark ? 'landmark' : 'body' };
}

function landmarkSelector(el: Element): string {
  return el.localName === 'main' ? 'main' : '[role="main"]';
}

function querySelectorOrThrow(doc: Document, selector: string): Element {
  let found: Element | null;
  try {
    found = doc.querySelector(selector);
  } catch {
    throw new SelectorError(`"${selector}" is not a valid CSS selector. Give a CSS selector such as "main", "#content" or "article h2", or leave selector out to read the main content.`);
  }
  if (!found) {
    throw new SelectorError(`The selector "${selector}" matches nothing on this page. Leave selector out to read the main content, or try a broader one such as "main" or "body".`);
  }
  return found;
}

/** The page's title: its `<title>`, else its first `<h1>`, else ''. */
export function pageTitle(doc: Document): string {
  const title = (doc.title || doc.querySelector('h1')?.textContent || '').replace(/\s+/g, ' ').trim();
  return title;
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/**
 * Puts the title first as `# Title`, unless the Markdown already opens with a heading that says
 * the same (Readability keeps an article's own `<h1>` when it differs from the page title).
 */
function withTitle(title: string, markdown: string, _article: boolean): string {
  if (!title) return markdown;
  const first = /^#{1,6} +(.+)$/m.exec(markdown.slice(0, 600));
  if (first) {
    const heading = normalize(first[1]!);
    const wanted = normalize(title);
    const same = heading === wanted || heading.includes(wanted) || (wanted.includes(heading) && heading.length * 2 >= wanted.length);
    if (heading && wanted && same) return markdown;
  }
  return markdown ? `# ${title}\n\n${markdown}` : `# ${title}`;
}

/** The base URL of a page fetched from `url`: its own `<base>` resolved against `url`, else `url`. */
export function documentBase(doc: Document, url: string): string {
  const existing = doc.querySelector('base[href]');
  try {
    return new URL(existing?.getAttribute('href') ?? '', url).href;
  } catch {
    // A broken <base>: the page's own address it is.
    return url;
  }
}

/**
 * Makes the document's base URL `documentBase(doc, url)`, for code that reads URLs through the
 * DOM (`a.href`): the page's address, not the address of the extension page that parsed it.
 * (`extractPage` does not need it: give it `baseUrl`.)
 */
export function setBase(doc: Document, url: string): void {
  const href = documentBase(doc, url);
  for (const old of Array.from(doc.querySelectorAll('base'))) old.remove();
  const base = doc.createElement('base');
  base.setAttribute('href', href);
  (doc.head ?? doc.documentElement).prepend(base);
}

/** Paragraphs shorter than this do not count towards finding the content. */
const MIN_PARAGRAPH_CHARS = 40;
/** Below this much paragraph text the page is left whole. */
const MIN_REGION_CHARS = 1000;
/** The region holds this share of the paragraph text… */
const REGION_SHARE = 0.9;
/** …and at least this share of all the page's runs of text of 40 characters or more. */
const REGION_TEXT_SHARE = 0.5;
/** Levels kept above the region, so Readability still sees its neighbours (title, images). */
const REGION_MARGIN = 2;

/**
 * Speeds Readability up without changing what it finds: the deepest element that holds 90 % of
 * the page's paragraph text, plus two levels around it, is the region Readability could pick its
 * article from; everything beside the path from `<body>` to that region is marked `hidden`, which
 * Readability drops at once instead of scoring it. Hidden, not removed: Readability still reads
 * the page's headings for the title. A safety check keeps pages whole where the paragraphs are
 * not where the text is (an article set in `<div>`s between `<br>`s, with `<p>` comments below):
 * the region must also hold half the page's long runs of text. Measured on the corpus: the same
 * article text and title as Readability on the whole page, on all 98 pages.
 */
export function narrowToContent(doc: Document): void {
  const body = doc.body;
  if (!body) return;
  const held = new Map<Element, number>();
  let total = 0;
  const paragraphs = body.querySelectorAll('p, pre');
  for (let i = 0; i < paragraphs.length; i++) {
    const p = paragraphs[i]!;
    const length = (p.textContent ?? '').length;
    if (length < MIN_PARAGRAPH_CHARS) continue;
    total += length;
    for (let a = p.parentElement; a && a !== body; a = a.parentElement) held.set(a, (held.get(a) ?? 0) + length);
  }
  if (total < MIN_REGION_CHARS) return;
  let region: Element | null = null;
  let regionDepth = -1;
  for (const [el, length] of held) {
    if (length < REGION_SHARE * total) continue;
    let depth = 0;
    for (let a: Element | null = el; a; a = a.parentElement) depth++;
    if (depth > regionDepth) {
      region = el;
      regionDepth = depth;
    }
  }
  if (!region) return;
  for (let i = 0; i < REGION_MARGIN && region.parentElement && region.parentElement !== body; i++) region = region.parentElement;
  if (longTextShare(body, region) < REGION_TEXT_SHARE) return;
  for (let node: Element = region; node !== body && node.parentElement; node = node.parentElement) {
    for (const sibling of Array.from(node.parentElement.children)) {
      if (sibling !== node) sibling.setAttribute('hidden', '');
    }
  }
}

/** The share of the body's runs of text (40 characters or more in one text node) inside `region`. */
function longTextShare(body: Element, region: Element): number {
  let inside = 0;
  let all = 0;
  const walker = body.ownerDocument.createTreeWalker(body, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const length = (node as Text).data.length;
    if (length < MIN_PARAGRAPH_CHARS || !(node as Text).data.trim()) continue;
    if (node.parentElement?.closest('script, style, template')) continue; // JSON-LD kept for Readability
    all += length;
    if (region.contains(node)) inside += length;
  }
  return all ? inside / all : 1;
}

/** Removes what never carries content, and what the markup itself hides. */
function prune(root: Element): void {
  for (const el of Array.from(root.querySelectorAll(`${JUNK}, ${HIDDEN_BY_MARKUP}`))) {
    // Readability keeps Wikipedia's math fallback images: do the same.
    if (el.classList.contains('fallback-image') && !el.matches(JUNK)) continue;
    el.remove();
  }
}

interface VisibleCopy {
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

/** The live element Readability's article came from, as a CSS selector. */
function sourceSelector(article: Element, origin: Map<Element, Element>): string {
  const page = article.querySelector('#readability-page-1') ?? article;
  const sources: Element[] = [];
  for (const child of Array.from(page.children)) {
    const source = origin.get(child) ?? firstMapped(child, origin);
    if (source) sources.push(source);
    if (sources.length >= 8) break;
  }
  if (origin.get(page)) sources.unshift(origin.get(page)!);
  if (!sources.length) return 'article';
  const container = sources.length === 1 ? sources[0]! : commonAncestor(sources);
  return container ? cssPath(container) : 'article';
}

function firstMapped(el: Element, origin: Map<Element, Element>): Element | undefined {
  for (const d of Array.from(el.querySelectorAll('*'))) {
    const source = origin.get(d);
    if (source) return source.parentElement ?? source;
  }
  return undefined;
}

function commonAncestor(elements: Element[]): Element | null {
  let candidate: Element | null = elements[0]!.parentElement;
  while (candidate && !elements.every((el) => candidate!.contains(el))) candidate = candidate.parentElement;
  return candidate;
}

/** A short CSS selector that finds `el` in its document: an id, a unique tag, or a path. */
export function cssPath(el: Element): string {
  const doc = el.ownerDocument;
  const parts: string[] = [];
  let node: Element | null = el;
  while (node && node !== doc.documentElement) {
    if (node.id && /^[A-Za-z][\w-]*$/.test(node.id) && doc.querySelectorAll(`#${node.id}`).length === 1) {
      parts.unshift(`#${node.id}`);
      break;
    }
    const tag = node.localName;
    if (node === doc.body) {
      parts.unshift('body');
      break;
    }
    if (['main', 'article'].includes(tag) && doc.getElementsByTagName(tag).length === 1) {
      parts.unshift(tag);
      break;
    }
    const parent: Element | null = node.parentElement;
    const same = parent ? Array.from(parent.children).filter((c) => c.localName === tag) : [];
    parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(node) + 1})` : tag);
    node = parent;
  }
  return parts.join(' > ') || 'body';
}

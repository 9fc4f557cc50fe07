import { isProbablyReaderable } from '@mozilla/readability';
import { createMarkdownConverter } from './markdown';
import { narrowToContent } from './narrow';
import { MarkdownReadability } from './readability';
import { cssPath, landmarkSelector, querySelectorOrThrow, sourceSelector } from './selectors';
import { copyVisible, prune } from './visible';

/**
 * Page → Markdown, one module for every reader: reading a rendered tab (`live`),
 * a document parsed from fetched HTML, the unit tests (saved pages) and
 * `bench/extract`. Everything takes the `Document` as a parameter.
 *
 * Without a selector: an article page goes through Readability (the main body; navigation,
 * sidebars, comments and the like removed); a page Readability would not call an article (an
 * app, a list, a form) is read from its `main` landmark, else its `body`, minus navigation,
 * banners, footers and complementary landmarks. The title is always the first line.
 *
 * Its parts: readability.ts (Readability made cheaper for a Markdown reader), narrow.ts (the
 * region Readability may pick from), visible.ts (what is never read, copies of rendered pages
 * without what is not shown), selectors.ts (the caller's selector, and the one for what was read).
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

const toMarkdown = createMarkdownConverter();

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

/** CSS selectors in and out of the reader: the caller's (checked), and the one for the part read. */

/** Thrown for a selector that is not valid CSS or matches nothing; the message is for the model. */
export class SelectorError extends Error {
  override name = 'SelectorError';
}

/** The first element `selector` matches; a `SelectorError` the model can act on when none or invalid. */
export function querySelectorOrThrow(doc: Document, selector: string): Element {
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

/** The selector of a `main` landmark found in a parsed page (`main` or `[role="main"]`). */
export function landmarkSelector(el: Element): string {
  return el.localName === 'main' ? 'main' : '[role="main"]';
}

/** The live element Readability's article came from, as a CSS selector. */
export function sourceSelector(article: Element, origin: Map<Element, Element>): string {
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

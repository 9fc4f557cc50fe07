import TurndownService from 'turndown';
import { highlightedCodeBlock, strikethrough, taskListItems } from 'turndown-plugin-gfm';

/**
 * HTML → Markdown with Turndown, set up for a model to read: ATX headings, fenced code, GFM
 * tables and strikethrough, absolute links, no images without alt text, and as little escaping as
 * keeps the Markdown unambiguous (every backslash is a token the model pays for).
 */

/** Elements that never carry content worth reading. */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'canvas', 'svg', 'math', 'select', 'input', 'textarea', 'button', 'dialog', 'audio', 'video', 'map']);

/**
 * Escapes only a `#` that would turn a line of page text into a heading. A model reads the
 * Markdown as text: every other backslash Turndown would add is a token spent on nothing.
 */
function escapeText(text: string): string {
  return text.includes('#') ? text.replace(/^(\s*)(#{1,6})(?=\s)/gm, '$1\\$2') : text;
}

/** Position of each `<li>` in its list, computed once per list (Turndown's own is quadratic). */
const itemIndexes = new WeakMap<Element, Map<Element, number>>();

function itemIndex(list: Element, item: Element): number {
  let indexes = itemIndexes.get(list);
  if (!indexes) {
    indexes = new Map();
    let i = 0;
    for (const child of Array.from(list.children)) indexes.set(child, i++);
    itemIndexes.set(list, indexes);
  }
  return indexes.get(item) ?? 0;
}

/** A file name is not a description: `alt="IMG_2041.jpg"` says nothing. */
const FILE_NAME_ALT = /^[\w.-]+\.(?:jpe?g|png|gif|webp|avif|svg|bmp)$/i;

function cellText(content: string): string {
  return content.replace(/\n+/g, ' ').replace(/\|/g, '\\|').trim();
}

function isSafeHref(href: string): boolean {
  return /^(https?:|mailto:|tel:)/i.test(href);
}

/** A base URL taken apart once, so most links resolve without the (slow) URL parser. */
interface Base {
  href: string;
  protocol: string;
  origin: string;
}

function parseBase(baseUrl: string | undefined): Base | undefined {
  if (!baseUrl) return undefined;
  try {
    const url = new URL(baseUrl);
    return { href: url.href, protocol: url.protocol, origin: url.origin };
  } catch {
    return undefined;
  }
}

const ABSOLUTE_WEB = /^https?:\/\/[^\s"<>\\]+$/i;
const PLAIN_PATH = /^[^\s"<>\\]*$/;

/** Query parameters that only tell the linked site where the click came from. */
const TRACKING_PARAMETER = /^(?:utm_\w+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|mc_cid|mc_eid|_hsenc|_hsmi|mkt_tok|igshid)$/i;
const HAS_TRACKING = /[?&](?:utm_\w+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|mc_cid|mc_eid|_hsenc|_hsmi|mkt_tok|igshid)=/i;

/** `url` without its tracking parameters (`utm_source`, `fbclid`…); the other parameters untouched. */
export function withoutTracking(url: string): string {
  if (!HAS_TRACKING.test(url)) return url;
  const query = url.indexOf('?');
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const kept = url
    .slice(query + 1, end)
    .split('&')
    .filter((pair) => !TRACKING_PARAMETER.test(pair.split('=')[0]!));
  return url.slice(0, query) + (kept.length ? `?${kept.join('&')}` : '') + url.slice(end);
}

/**
 * Resolves `href` against the base, without tracking parameters; returns '' for links that lead
 * nowhere useful (in-page anchors, `javascript:`, `data:`…). Absolute, root-relative and
 * protocol-relative links, most of a page, skip the URL parser.
 */
export function absoluteUrl(href: string | null, base: string | Base | undefined): string {
  return withoutTracking(resolveUrl(href, base));
}

function resolveUrl(href: string | null, base: string | Base | undefined): string {
  if (!href) return '';
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('#')) return '';
  if (ABSOLUTE_WEB.test(trimmed)) return trimmed;
  const b = typeof base === 'string' ? parseBase(base) : base;
  if (b && /^https?:$/.test(b.protocol) && PLAIN_PATH.test(trimmed)) {
    if (trimmed.startsWith('//')) return `${b.protocol}${trimmed}`;
    if (trimmed.startsWith('/')) return `${b.origin}${trimmed}`;
  }
  try {
    const url = b ? new URL(trimmed, b.href) : new URL(trimmed);
    return isSafeHref(url.href) ? url.href : '';
  } catch {
    return '';
  }
}

/** A URL as a Markdown link target: what would end it or break it percent-encoded. */
function linkTarget(url: string): string {
  return url.replace(/[()\s]/g, encodeURIComponent);
}

/** Whether a link's text is its address (give or take the scheme and a final slash). */
function textIsUrl(text: string, url: string): boolean {
  const bare = (s: string) => s.replace(/^[a-z][a-z0-9+.-]*:(?:\/\/)?/i, '').replace(/\/$/, '');
  return !/\s/.test(text) && bare(text) === bare(url);
}

/** A link to a picture file: what a thumbnail links to (the same picture, bigger). */
const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg|bmp)(?:[?#]|$)/i;

interface TableShape {
  rows: HTMLTableRowElement[];
  columns: number;
}

const shapes = new WeakMap<HTMLTableElement, TableShape | null>();

/** A table worth writing as a GFM table: rows of cells and no nested tables. Cached per table. */
function tableShape(table: HTMLTableElement): TableShape | null {
  let shape = shapes.get(table);
  if (shape === undefined) {
    shape = measureTable(table);
    shapes.set(table, shape);
  }
  return shape;
}

function measureTable(table: HTMLTableElement): TableShape | null {
  const rows = Array.from(table.rows).filter((row) => row.closest('table') === table && row.cells.length > 0);
  if (rows.length === 0) return null;
  if (table.querySelector('table')) return null;
  let columns = 0;
  for (const row of rows) {
    let width = 0;
    for (const cell of Array.from(row.cells)) width += Math.max(1, Math.min(cell.colSpan || 1, 50));
    columns = Math.max(columns, width);
  }
  if (columns < 2 && rows.length < 2) return null;
  return { rows, columns };
}

/** Creates the converter. One instance can convert any number of documents. */
export function createMarkdownConverter(): (root: Node, baseUrl?: string) => string {
  let base: Base | undefined;
  /** Link targets already written in this conversion: a link to one of them again is its text. */
  let linked = new Set<string>();
  const service = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  service.escape = escapeText;
  service.use([highlightedCodeBlock, strikethrough, taskListItems]);
  service.remove((node) => DROPPED.has(node.nodeName.toLowerCase()));

  // Links: absolute targets, each written once. Written as their text: links that lead nowhere
  // useful, links to a target already written above, and links whose only content is images
  // (their alt text is the label) when they lead to a picture file. A link whose text is its
  // address is written as the address alone. A link made of images does not count as the
  // target's first mention: a text link to the same place further down keeps its target.
  service.addRule('link', {
    filter: (node) => node.nodeName === 'A' && node.hasAttribute('href'),
    replacement(content, node) {
      const text = content.trim();
      if (!text) return '';
      const href = absoluteUrl(node.getAttribute('href'), base);
      if (!href || linked.has(href)) return content;
      const label = text.replace(/\n{2,}/g, '\n');
      if (!(node.textContent ?? '').trim()) return IMAGE_FILE.test(href) ? content : `[${label}](${linkTarget(href)})`;
      linked.add(href);
      return textIsUrl(label, href) ? linkTarget(href) : `[${label}](${linkTarget(href)})`;
    },
  });

  service.addRule('image', {
    filter: 'img',
    replacement(_content, node) {
      const alt = (node.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim();
      if (!alt || FILE_NAME_ALT.test(alt)) return '';
      // An image that is a link: the link is what can be followed; its label is the alt text.
      if (node.closest('a[href]')) return alt;
      const src = absoluteUrl(node.getAttribute('src'), base);
      if (!src || src.length > 300) return alt;
      return `![${alt.replace(/[[\]]/g, '')}](${linkTarget(src)})`;
    },
  });

  // List items: "- " and "1. " with the continuation indented to match (Turndown's own uses
  // "-   ", three spaces a line that the model pays for).
  service.addRule('listItem', {
    filter: 'li',
    replacement(content, node) {
      const parent = node.parentNode as Element | null;
      let prefix = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start'));
        prefix = `${(Number.isFinite(start) && parent.hasAttribute('start') ? start : 1) + itemIndex(parent, node)}. `;
      }
      const isParagraph = /\n$/.test(content);
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '') + (isParagraph ? '\n' : '');
      return prefix + body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`) + (node.nextSibling ? '\n' : '');
    },
  });

  // Tables: GFM tables (the first row is the header when there is no heading row), cells on
  // one line. Layout tables (nested tables, one lonely cell) are unwrapped to their content.
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement(content, node) {
      const cell = node as HTMLTableCellElement;
      const table = cell.closest('table');
      if (!table || !tableShape(table)) return `\n\n${content}\n\n`;
      const text = cellText(content);
      const span = Math.max(1, Math.min(cell.colSpan || 1, 50));
      return `| ${text} ${'| '.repeat(span - 1)}`;
    },
  });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement(content, node) {
      const row = node as HTMLTableRowElement;
      const table = row.closest('table');
      const shape = table && tableShape(table);
      if (!shape) return `\n\n${content}\n\n`;
      const at = shape.rows.indexOf(row);
      if (at < 0) return '';
      let width = 0;
      for (const cell of Array.from(row.cells)) width += Math.max(1, Math.min(cell.colSpan || 1, 50));
      const closed = `${content.trim()} |${' |'.repeat(Math.max(0, shape.columns - width))}`;
      const separator = at === 0 ? `\n|${' --- |'.repeat(shape.columns)}` : '';
      return `\n${closed}${separator}`;
    },
  });
  service.addRule('tableSection', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  });
  service.addRule('table', {
    filter: 'table',
    replacement(content, node) {
      if (!tableShape(node as HTMLTableElement)) return `\n\n${content}\n\n`;
      const caption = (node as HTMLTableElement).caption?.textContent?.trim();
      return `\n\n${caption ? `${caption}\n\n` : ''}${content.replace(/\n{2,}/g, '\n').trim()}\n\n`;
    },
  });
  service.addRule('caption', { filter: 'caption', replacement: () => '' });

  return (root, baseUrl) => {
    base = parseBase(baseUrl);
    linked = new Set();
    try {
      return tidy(service.turndown(root as TurndownService.Node));
    } finally {
      base = undefined;
      linked = new Set();
    }
  };
}

/** Trailing spaces off, at most one blank line in a row. */
export function tidy(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

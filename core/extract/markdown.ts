/**
 * HTML → Markdown, set up for a model to read: ATX headings, fenced code, GFM tables and
 * strikethrough, absolute links, no images without alt text, and as little escaping as keeps the
 * Markdown unambiguous (every backslash is a token the model pays for).
 *
 * The conversion is Turndown's (7.2.5, with `turndown-plugin-gfm`'s strikethrough, task lists and
 * highlighted code blocks, and the rules below) done in one pass over the tree: the same
 * whitespace collapsing, the same rule for each element (in Turndown's order), the same handling
 * of blank elements and of the whitespace around inline elements, and the same joining of blocks,
 * so it gives the same Markdown. It is faster because it does not do what Turndown does for every
 * node whatever the result: clone the input, build each element's `textContent` to see whether
 * it is blank and what whitespace flanks it (here: read up to the first or last character that
 * answers), scan some twenty rules by filter, and convert the children of elements whose rule
 * never reads them (removed, blank, code blocks, images).
 */

/** Elements that never carry content worth reading (lower-case names). */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'canvas', 'svg', 'math', 'select', 'input', 'textarea', 'button', 'dialog', 'audio', 'video', 'map']);

/** Turndown's block elements: no whitespace flanks them, blank ones become a paragraph break. */
const BLOCK = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'AUDIO', 'BLOCKQUOTE', 'BODY', 'CANVAS', 'CENTER', 'DD', 'DIR', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'FRAMESET', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'HTML', 'ISINDEX', 'LI', 'MAIN', 'MENU', 'NAV', 'NOFRAMES', 'NOSCRIPT', 'OL', 'OUTPUT', 'P', 'PRE', 'SECTION', 'TABLE', 'TBODY', 'TD', 'TFOOT', 'TH', 'THEAD', 'TR', 'UL']);
const VOID = new Set(['AREA', 'BASE', 'BR', 'COL', 'COMMAND', 'EMBED', 'HR', 'IMG', 'INPUT', 'KEYGEN', 'LINK', 'META', 'PARAM', 'SOURCE', 'TRACK', 'WBR']);
const MEANINGFUL_WHEN_BLANK = new Set(['A', 'TABLE', 'THEAD', 'TBODY', 'TFOOT', 'TH', 'TD', 'IFRAME', 'SCRIPT', 'AUDIO', 'VIDEO']);
/** An element with one of these inside is never blank. */
const NOT_BLANK_INSIDE = new Set([...VOID, ...MEANINGFUL_WHEN_BLANK]);

const FENCE = '```';
const HIGHLIGHT = /highlight-(?:text|source)-([a-z0-9]+)/;

/**
 * Escapes only a `#` that would turn a line of page text into a heading. A model reads the
 * Markdown as text: every other backslash Turndown would add is a token spent on nothing.
 */
function escapeText(text: string): string {
  return text.includes('#') ? text.replace(/^(\s*)(#{1,6})(?=\s)/gm, '$1\\$2') : text;
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

interface TableShape {
  rows: HTMLTableRowElement[];
  columns: number;
}

/** A table worth writing as a GFM table: rows of cells and no nested tables. */
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

/** What one conversion knows beyond the tree: the base URL, and what it measured once. */
interface Conversion {
  base: Base | undefined;
  /** Each table's shape (null: not a GFM table, unwrapped). */
  shapes: Map<Element, TableShape | null>;
  /** Position of each `<li>` in its list, computed once per list. */
  items: Map<Element, Map<Element, number>>;
  /** Link targets already written: a link to one of them again is written as its text. */
  linked: Set<string>;
}

function tableShape(table: Element, c: Conversion): TableShape | null {
  let shape = c.shapes.get(table);
  if (shape === undefined) {
    shape = measureTable(table as HTMLTableElement);
    c.shapes.set(table, shape);
  }
  return shape;
}

function itemIndex(list: Element, item: Element, c: Conversion): number {
  let indexes = c.items.get(list);
  if (!indexes) {
    indexes = new Map();
    let i = 0;
    for (let child = list.firstElementChild; child; child = child.nextElementSibling) indexes.set(child, i++);
    c.items.set(list, indexes);
  }
  return indexes.get(item) ?? 0;
}

/** A rule: its replacement, and whether it reads the converted children (`content`). */
interface Rule {
  content: boolean;
  replace(content: string, node: Element, isBlock: boolean, c: Conversion): string;
}

const rule = (replace: Rule['replace']): Rule => ({ content: true, replace });
/** A rule whose replacement never reads the children's Markdown: they are not converted. */
const leaf = (replace: Rule['replace']): Rule => ({ content: false, replace });

function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 10) start++;
  while (end > start && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(start, end);
}

const BLANK = leaf((_c, _n, isBlock) => (isBlock ? '\n\n' : ''));
const REMOVE = leaf(() => '');
const DEFAULT = rule((content, _n, isBlock) => (isBlock ? `\n\n${content}\n\n` : content));
const PARAGRAPH = rule((content) => `\n\n${content}\n\n`);
const LINE_BREAK = leaf(() => '  \n');
const HEADING = rule((content, node) => `\n\n${'#'.repeat(Number(node.nodeName.charAt(1)))} ${content}\n\n`);
const BLOCKQUOTE = rule((content) => `\n\n${trimNewlines(content).replace(/^/gm, '> ')}\n\n`);
const LIST = rule((content, node) => {
  const parent = node.parentNode as Element | null;
  return parent?.nodeName === 'LI' && parent.lastElementChild === node ? `\n${content}` : `\n\n${content}\n\n`;
});
const HORIZONTAL_RULE = leaf(() => '\n\n---\n\n');
const EMPHASIS = rule((content) => (content.trim() ? `_${content}_` : ''));
const STRONG = rule((content) => (content.trim() ? `**${content}**` : ''));
const STRIKETHROUGH = rule((content) => `~${content}~`);
const TASK_CHECKBOX = leaf((_c, node) => `${(node as HTMLInputElement).checked ? '[x]' : '[ ]'} `);

const FENCED_CODE = leaf((_c, node) => {
  const code = node.firstChild as Element;
  const language = ((code.getAttribute('class') ?? '').match(/language-(\S+)/) ?? [null, ''])[1];
  const text = code.textContent ?? '';
  let fenceSize = 3;
  for (const match of text.matchAll(/^`{3,}/gm)) fenceSize = Math.max(fenceSize, match[0].length + 1);
  const fence = '`'.repeat(fenceSize);
  return `\n\n${fence}${language}\n${text.replace(/\n$/, '')}\n${fence}\n\n`;
});

const HIGHLIGHTED_CODE = leaf((_c, node) => {
  const language = (String(node.className || '').match(HIGHLIGHT) ?? [null, ''])[1];
  return `\n\n${FENCE}${language}\n${node.firstChild!.textContent ?? ''}\n${FENCE}\n\n`;
});

const INLINE_CODE = rule((content) => {
  if (!content) return '';
  const code = content.replace(/\r?\n|\r/g, ' ');
  const extraSpace = /^`|^ .*?[^ ].* $|`$/.test(code) ? ' ' : '';
  const runs: string[] = code.match(/`+/gm) ?? [];
  let delimiter = '`';
  while (runs.includes(delimiter)) delimiter += '`';
  return delimiter + extraSpace + code + extraSpace + delimiter;
});

/** A link to a picture file: what a thumbnail links to (the same picture, bigger). */
const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg|bmp)(?:[?#]|$)/i;

/**
 * Links: absolute targets, each written once. Written as their text: links that lead nowhere
 * useful, links to a target already written above, and links whose only content is images (the
 * alt text is their label) when they lead to a picture file. A link whose text is its address is
 * written as the address alone. A link made of images does not count as the target's first
 * mention: a text link to the same place further down keeps its target.
 */
const LINK = rule((content, node, _b, c) => {
  const text = content.trim();
  if (!text) return '';
  const href = absoluteUrl(node.getAttribute('href'), c.base);
  if (!href || c.linked.has(href)) return content;
  const label = text.replace(/\n{2,}/g, '\n');
  if (isWhitespaceOnly(node)) return IMAGE_FILE.test(href) ? content : `[${label}](${linkTarget(href)})`;
  c.linked.add(href);
  return textIsUrl(label, href) ? linkTarget(href) : `[${label}](${linkTarget(href)})`;
});

const IMAGE = leaf((_c, node, _b, c) => {
  const alt = (node.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim();
  if (!alt || FILE_NAME_ALT.test(alt)) return '';
  // An image that is a link: the link is what can be followed; its label is the alt text.
  if (node.closest('a[href]')) return alt;
  const src = absoluteUrl(node.getAttribute('src'), c.base);
  if (!src || src.length > 300) return alt;
  return `![${alt.replace(/[[\]]/g, '')}](${linkTarget(src)})`;
});

// List items: "- " and "1. " with the continuation indented to match (Turndown's own uses
// "-   ", three spaces a line that the model pays for).
const LIST_ITEM = rule((content, node, _b, c) => {
  const parent = node.parentNode as Element | null;
  let prefix = '- ';
  if (parent?.nodeName === 'OL') {
    const start = Number(parent.getAttribute('start'));
    prefix = `${(Number.isFinite(start) && parent.hasAttribute('start') ? start : 1) + itemIndex(parent, node, c)}. `;
  }
  const isParagraph = /\n$/.test(content);
  const body = content.replace(/^\n+/, '').replace(/\n+$/, '') + (isParagraph ? '\n' : '');
  return prefix + body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`) + (node.nextSibling ? '\n' : '');
});

// Tables: GFM tables (the first row is the header when there is no heading row), cells on
// one line. Layout tables (nested tables, one lonely cell) are unwrapped to their content.
const TABLE_CELL = rule((content, node, _b, c) => {
  const cell = node as HTMLTableCellElement;
  const table = cell.closest('table');
  if (!table || !tableShape(table, c)) return `\n\n${content}\n\n`;
  const span = Math.max(1, Math.min(cell.colSpan || 1, 50));
  return `| ${cellText(content)} ${'| '.repeat(span - 1)}`;
});
const TABLE_ROW = rule((content, node, _b, c) => {
  const row = node as HTMLTableRowElement;
  const table = row.closest('table');
  const shape = table && tableShape(table, c);
  if (!shape) return `\n\n${content}\n\n`;
  const at = shape.rows.indexOf(row);
  if (at < 0) return '';
  let width = 0;
  for (const cell of Array.from(row.cells)) width += Math.max(1, Math.min(cell.colSpan || 1, 50));
  const closed = `${content.trim()} |${' |'.repeat(Math.max(0, shape.columns - width))}`;
  const separator = at === 0 ? `\n|${' --- |'.repeat(shape.columns)}` : '';
  return `\n${closed}${separator}`;
});
const TABLE_SECTION = rule((content) => content);
const TABLE = rule((content, node, _b, c) => {
  if (!tableShape(node, c)) return `\n\n${content}\n\n`;
  const caption = (node as HTMLTableElement).caption?.textContent?.trim();
  return `\n\n${caption ? `${caption}\n\n` : ''}${content.replace(/\n{2,}/g, '\n').trim()}\n\n`;
});
const CAPTION = leaf(() => '');

/** The rule Turndown would pick for a non-blank element: its rules in its order, first match wins. */
function ruleFor(node: Element, name: string): Rule {
  const lower = name.toLowerCase();
  // Ours, added last, so checked first.
  switch (lower) {
    case 'caption':
      return CAPTION;
    case 'table':
      return TABLE;
    case 'thead':
    case 'tbody':
    case 'tfoot':
      return TABLE_SECTION;
    case 'tr':
      return TABLE_ROW;
    case 'th':
    case 'td':
      return TABLE_CELL;
    case 'li':
      return LIST_ITEM;
    case 'img':
      return IMAGE;
    case 'a':
      if (name === 'A' && node.hasAttribute('href')) return LINK;
      break;
  }
  // turndown-plugin-gfm's, then Turndown's own.
  if ((node.parentNode as Element | null)?.nodeName === 'LI' && (node as { type?: unknown }).type === 'checkbox') return TASK_CHECKBOX;
  switch (lower) {
    case 'del':
    case 's':
    case 'strike':
      return STRIKETHROUGH;
    case 'div':
      if (name === 'DIV' && HIGHLIGHT.test(node.className) && node.firstChild?.nodeName === 'PRE') return HIGHLIGHTED_CODE;
      break;
    case 'p':
      return PARAGRAPH;
    case 'br':
      return LINE_BREAK;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
      return HEADING;
    case 'blockquote':
      return BLOCKQUOTE;
    case 'ul':
    case 'ol':
      return LIST;
    case 'pre':
      if (name === 'PRE' && node.firstChild?.nodeName === 'CODE') return FENCED_CODE;
      break;
    case 'hr':
      return HORIZONTAL_RULE;
    case 'em':
    case 'i':
      return EMPHASIS;
    case 'strong':
    case 'b':
      return STRONG;
    case 'code':
      if (name === 'CODE' && !((node.parentNode as Element | null)?.nodeName === 'PRE' && !node.previousSibling && !node.nextSibling)) return INLINE_CODE;
      break;
  }
  return DROPPED.has(lower) ? REMOVE : DEFAULT;
}

// ——— Reading text without building textContent ———

function isText(node: Node): node is CharacterData {
  return node.nodeType === 3 || node.nodeType === 4;
}

/** The next node of `root`'s subtree in document order after `node`, or null. */
function following(node: Node, root: Node): Node | null {
  if (node.firstChild) return node.firstChild;
  for (let n: Node | null = node; n && n !== root; n = n.parentNode) {
    if (n.nextSibling) return n.nextSibling;
  }
  return null;
}

/** The next node of `root`'s subtree walking it backwards (last child first): text nodes come in reverse document order. */
function preceding(node: Node, root: Node): Node | null {
  if (node.lastChild) return node.lastChild;
  for (let n: Node | null = node; n && n !== root; n = n.parentNode) {
    if (n.previousSibling) return n.previousSibling;
  }
  return null;
}

/** `/^\s*$/.test(el.textContent)`, reading up to the first character that is not whitespace. */
function isWhitespaceOnly(el: Node): boolean {
  for (let n: Node | null = el.firstChild; n; n = following(n, el)) {
    if (isText(n) && /\S/.test(n.data)) return false;
  }
  return true;
}

function hasElementIn(el: Node, names: Set<string>): boolean {
  for (let n: Node | null = el.firstChild; n; n = following(n, el)) {
    if (n.nodeType === 1 && names.has(n.nodeName)) return true;
  }
  return false;
}

/** Turndown's blank element: no text but whitespace, and nothing inside that means something empty. */
function isBlank(el: Element, name: string): boolean {
  return !VOID.has(name) && !MEANINGFUL_WHEN_BLANK.has(name) && isWhitespaceOnly(el) && !hasElementIn(el, NOT_BLANK_INSIDE);
}

/** The first (or last) character of `el.textContent`, or ''. */
function edgeChar(el: Node, last: boolean): string {
  for (let n: Node | null = last ? el.lastChild : el.firstChild; n; n = last ? preceding(n, el) : following(n, el)) {
    if (isText(n) && n.data) return last ? n.data.charAt(n.data.length - 1) : n.data.charAt(0);
  }
  return '';
}

/** Turndown's isFlankedByWhitespace: the neighbour on that side ends (starts) with a space. */
function flankedByWhitespace(node: Element, left: boolean): boolean {
  const sibling = left ? node.previousSibling : node.nextSibling;
  if (!sibling) return false;
  if (sibling.nodeType === 3) return left ? (sibling as Text).data.endsWith(' ') : (sibling as Text).data.startsWith(' ');
  if (sibling.nodeType === 1 && !BLOCK.has(sibling.nodeName)) return edgeChar(sibling, left) === ' ';
  return false;
}

const NO_WHITESPACE = { leading: '', trailing: '' };

/**
 * The whitespace an inline element carries outside its Markdown (Turndown's flankingWhitespace):
 * the leading and trailing whitespace of its text, less the ASCII part where the neighbour
 * already has a space on that side. Reads only the ends of the text.
 */
function flankingWhitespace(el: Element): { leading: string; trailing: string } {
  let leading = '';
  let last: Node | null = null;
  for (let n: Node | null = el.firstChild; n; n = following(n, el)) {
    if (!isText(n)) continue;
    const at = n.data.search(/\S/);
    if (at < 0) {
      leading += n.data;
      continue;
    }
    leading += n.data.slice(0, at);
    last = n;
    break;
  }
  let trailing = '';
  if (last) {
    for (let n: Node | null = el.lastChild; n; n = preceding(n, el)) {
      if (!isText(n)) continue;
      const at = n.data.search(/\S\s*$/);
      if (at < 0) {
        trailing = n.data + trailing;
        continue;
      }
      trailing = n.data.slice(at + 1) + trailing;
      break;
    }
  }
  if (!leading && !trailing) return NO_WHITESPACE;
  const leadingAscii = /^[ \t\r\n]*/.exec(leading)![0];
  const trailingAscii = /[ \t\r\n]*$/.exec(trailing)![0];
  if (leadingAscii && flankedByWhitespace(el, true)) leading = leading.slice(leadingAscii.length);
  if (trailingAscii && flankedByWhitespace(el, false)) trailing = trailing.slice(0, trailing.length - trailingAscii.length);
  return { leading, trailing };
}

// ——— The conversion ———

/**
 * Turndown's join: appends `replacement` to the pieces with at most two newlines where they meet
 * (the larger run of either side). Only the last piece and the replacement are looked at, never
 * the text built so far (reading a character of a string built by `+` makes V8 copy it flat).
 */
function join(parts: string[], replacement: string): void {
  const tail = parts.pop() ?? '';
  let end = tail.length;
  while (end > 0 && tail.charCodeAt(end - 1) === 10) end--;
  let start = 0;
  while (start < replacement.length && replacement.charCodeAt(start) === 10) start++;
  const newlines = Math.min(2, Math.max(tail.length - end, start));
  if (end) parts.push(end === tail.length ? tail : tail.slice(0, end));
  if (newlines) parts.push(newlines === 2 ? '\n\n' : '\n');
  if (start < replacement.length) parts.push(start ? replacement.slice(start) : replacement);
}

function convertChildren(parent: Node, isCode: boolean, c: Conversion): string {
  const parts: string[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    let replacement = '';
    if (node.nodeType === 3) replacement = isCode ? (node as Text).data : escapeText((node as Text).data);
    else if (node.nodeType === 1) replacement = convertElement(node as Element, isCode, c);
    join(parts, replacement);
  }
  return parts.join('');
}

function convertElement(node: Element, parentIsCode: boolean, c: Conversion): string {
  const name = node.nodeName;
  const isBlock = BLOCK.has(name);
  const chosen = isBlank(node, name) ? BLANK : ruleFor(node, name);
  let content = chosen.content ? convertChildren(node, name === 'CODE' || parentIsCode, c) : '';
  const whitespace = isBlock ? NO_WHITESPACE : flankingWhitespace(node);
  if (whitespace.leading || whitespace.trailing) content = content.trim();
  return whitespace.leading + chosen.replace(content, node, isBlock, c) + whitespace.trailing;
}

/**
 * Turndown's collapseWhitespace (adapted by Turndown from collapse-whitespace, © 2014 Luc
 * Thevenard, MIT): runs of whitespace become one space, whitespace next to block edges goes,
 * `<pre>` is left alone; comments and other non-text nodes are removed. In place: the tree is the
 * converter's to change (an article Readability built, or a copy of the caller's).
 */
function collapseWhitespace(root: Node): void {
  if (!root.firstChild || root.nodeName === 'PRE') return;
  let prevText: CharacterData | null = null;
  let keepLeadingWs = false;
  let prev: Node | null = null;
  let node: Node | null = nextInCollapse(prev, root);
  while (node && node !== root) {
    if (isText(node)) {
      let text = node.data.replace(/[ \r\n\t]+/g, ' ');
      if ((!prevText || prevText.data.endsWith(' ')) && !keepLeadingWs && text.charAt(0) === ' ') text = text.slice(1);
      if (!text) {
        node = removeAndNext(node);
        continue;
      }
      if (node.data !== text) node.data = text;
      prevText = node;
    } else if (node.nodeType === 1) {
      const name = node.nodeName;
      if (BLOCK.has(name) || name === 'BR') {
        if (prevText && prevText.data.endsWith(' ')) prevText.data = prevText.data.slice(0, -1);
        prevText = null;
        keepLeadingWs = false;
      } else if (VOID.has(name) || name === 'PRE') {
        // Whitespace around non-block void elements and inline <pre> is kept.
        prevText = null;
        keepLeadingWs = true;
      } else if (prevText) {
        keepLeadingWs = false;
      }
    } else {
      node = removeAndNext(node);
      continue;
    }
    const next = nextInCollapse(prev, node);
    prev = node;
    node = next;
  }
  if (prevText) {
    if (prevText.data.endsWith(' ')) prevText.data = prevText.data.slice(0, -1);
    if (!prevText.data) removeAndNext(prevText);
  }
}

function removeAndNext(node: Node): Node | null {
  const next = node.nextSibling ?? node.parentNode;
  node.parentNode!.removeChild(node);
  return next;
}

function nextInCollapse(prev: Node | null, current: Node): Node | null {
  if ((prev && prev.parentNode === current) || current.nodeName === 'PRE') return current.nextSibling ?? current.parentNode;
  return current.firstChild ?? current.nextSibling ?? current.parentNode;
}

/**
 * Creates the converter: `(root, baseUrl) => markdown`. One instance converts any number of
 * trees. The tree's whitespace is collapsed in place (see `collapseWhitespace`).
 */
export function createMarkdownConverter(): (root: Node, baseUrl?: string) => string {
  return (root, baseUrl) => {
    const c: Conversion = { base: parseBase(baseUrl), shapes: new Map(), items: new Map(), linked: new Set() };
    collapseWhitespace(root);
    const markdown = convertChildren(root, false, c);
    return tidy(markdown.replace(/^[\t\r\n]+/, '').replace(/[\t\r\n\s]+$/, ''));
  };
}

/** Trailing spaces off, at most one blank line in a row. */
export function tidy(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

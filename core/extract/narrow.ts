/**
 * Narrowing a parsed page to the region that holds its text, before Readability scores it (see
 * `narrowToContent`).
 */

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

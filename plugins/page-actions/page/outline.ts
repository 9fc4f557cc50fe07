import type { ElementRefs } from '@/core/page/element-refs';
import { cursorOf, listenerTargets, weakClickable } from './clickable';
import { accessibleName, clean, cut, exactValue, MAX_TEXT, showsText, svgTitle } from './names';
import { isOwnUi } from './own-ui';
import { shortRef } from './refs';
import { BLOCK_TAGS, isActionable, NAME_FROM_CONTENT, roleOf, SKIPPED_TAGS, statesOf } from './roles';
import { childCursor, step, type Cursor } from './tree';
import { GONE, INVISIBLE, shownState } from './visible';

/**
 * The accessibility outline `read_page` returns, in Playwright MCP's aria-snapshot convention:
 * one node a line, two spaces of indent a level, `- role "name" [states] [ref=eN]`, `: text` for
 * a node's only text or its value, a trailing `:` when lines of its children follow, text runs as
 * `- text: …`. Generic wrappers are flattened; what a person cannot see is left out; open shadow
 * roots and same-origin iframes are read in place. One pass over the DOM, as a loop.
 */

/** Options of one outline. */
export interface OutlineOptions {
  /** Outline only these subtrees (in document order; the whole document without them). */
  roots?: Element[];
  /** Cut after this many characters, with a note on how to ask for more. */
  maxLength?: number;
  /** Only the lines containing this text (case-insensitive), with their ancestors' lines. */
  find?: string;
}

export interface Outline {
  text: string;
  nodes: number;
  truncated: boolean;
}

/** `read_page`'s default `max_length`. */
export const DEFAULT_MAX_LENGTH = 24_000;
/** Deepest indent level; deeper parts are printed at this level (a 10,000-level page stays readable). */
export const MAX_DEPTH = 40;
/** Options a native select lists before "… N more options". */
export const MAX_OPTIONS = 30;

/** The last line of a cut outline. */
export function cutNote(maxLength: number): string {
  return `… cut at ${maxLength} characters: call read_page again with a selector (e.g. "main", "form", "#id") or the ref of one part, or a larger max_length`;
}

interface Run {
  role?: undefined;
  text: string;
  /** `text` is cleaned and cut (set by `runText` when the run is printed). */
  done?: boolean;
}

interface Node_ {
  role: string;
  name: string;
  states: string;
  ref: string;
  value: string;
  note: string;
  kids: Array<Node_ | Run>;
  depth: number;
  /** The next text starts a new word (a block boundary was crossed). */
  brk: boolean;
  /** The next text starts a run of its own (a block boundary, or the changed subtree before it ended). */
  split?: boolean;
  /** Why a person could click it though its role does not say so (`clickable.ts`), if that is why it has a ref. */
  weak?: string;
  /** References in its kept subtree (below it), and the one when there is one (set by `render`). */
  below?: number;
  only?: Node_;
}

interface Frame {
  cursor: Cursor;
  out: Node_;
  /** Inside a node named from its content: its text is in the name, only actionable parts get lines. */
  fold: boolean;
  /** Text here is not shown (visibility: hidden). */
  quiet: boolean;
  /** A flattened block element: leaving it breaks the text. */
  block: boolean;
  /** One of `options.roots`: the text after it is no part of its text. */
  root?: boolean;
  /** The parent's computed cursor is `pointer` (cursor is inherited: a pointer starts where the parent's is not). */
  pointer?: boolean;
  /** Inside a drawing that has clickable parts: only those parts get lines. */
  svg?: boolean;
}

const TEXT_FIELDS = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider']);
/** Roles whose line says something even when they have no name, ref or children. */
const ALWAYS_SHOWN = new Set(['separator']);
/** Raw text one run keeps (it is cut to MAX_TEXT when printed). */
const RUN_KEEP = MAX_TEXT + 1;
/** How much outline `find` reads before it picks its lines (the lines it returns are cut at maxLength). */
const FIND_BUDGET = 1_000_000;
const SVG_NS = 'http://www.w3.org/2000/svg';
/** After the reference of a line made clickable by its cursor (Playwright MCP's mark). */
const CURSOR_MARK = ' [cursor=pointer]';

function node(role: string, depth: number): Node_ {
  return { role, name: '', states: '', ref: '', value: '', note: '', kids: [], depth, brk: false };
}

/** The value a field shows after its line's `:` (never a password's). */
function valueOf(element: Element, role: string): string {
  const tag = element.tagName;
  if (tag === 'INPUT') {
    const input = element as HTMLInputElement;
    if (input.type === 'password') return input.value ? '••••' : '';
    if (!TEXT_FIELDS.has(role)) return '';
    return input.value;
  }
  if (tag === 'TEXTAREA') return (element as HTMLTextAreaElement).value;
  if (tag === 'SELECT') {
    const select = element as HTMLSelectElement;
    if (select.multiple) return '';
    const option = select.selectedIndex >= 0 ? select.options[select.selectedIndex] : undefined;
    return option ? option.label || option.text : '';
  }
  if (tag === 'PROGRESS' || tag === 'METER') return String((element as HTMLProgressElement).value);
  const now = element.getAttribute('aria-valuetext') ?? element.getAttribute('aria-valuenow');
  return now && (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter' || role === 'scrollbar') ? now : '';
}

/** A field's value after its line's `:`: as typed (quoted when its spaces or breaks matter), cut at MAX_TEXT. */
function fieldValue(raw: string): string {
  const value = raw.length > MAX_TEXT ? cut(raw, MAX_TEXT) : raw;
  return exactValue(value) ?? valueText(value);
}

/** Text after a line's `:`, quoted when it could read as outline syntax (Playwright's YAML rule). */
function valueText(text: string): string {
  if (/^[-&*\],?!>|@"'#%{}`[]/.test(text) || /:(\s|$)/.test(text) || /\s#/.test(text)) return JSON.stringify(text);
  return text;
}

/**
 * The outline of `doc` (or of `options.roots`), registering a reference in `refs` for every element
 * one can act on. Cut at `maxLength` characters (default 24,000) at a line boundary, with a last
 * line saying how to ask for more.
 */
export function buildOutline(doc: Document, refs: ElementRefs, options: OutlineOptions = {}): Outline {
  const maxLength = Math.max(200, Math.floor(options.maxLength ?? DEFAULT_MAX_LENGTH));
  const top = node('', -1);
  const order: Node_[] = [];
  // The walk stops once the lines it made surely pass maxLength (empty nodes are dropped later).
  const find = typeof options.find === 'string' && options.find.trim() ? options.find.trim().toLowerCase().slice(0, 1_000) : '';
  const budget = find ? FIND_BUDGET : maxLength * 2 + 2_000;
  // Elements with a click-like listener (the MAIN-world tracker), and the drawings holding some.
  const listeners = listenerTargets(doc);
  const svgWithTargets = new Set<Element>();
  const noteSvgTargets = () => {
    for (const element of listeners) {
      if (element.namespaceURI !== SVG_NS) continue;
      for (let up = element.parentElement; up && up.namespaceURI === SVG_NS && !svgWithTargets.has(up); up = up.parentElement) svgWithTargets.add(up);
    }
  };
  noteSvgTargets();
  let estimate = 0;
  let walkCut = false;

  const stack: Frame[] = [];
  const roots = options.roots?.length ? options.roots : [doc.body ?? doc.documentElement].filter(Boolean);
  for (let i = roots.length - 1; i >= 0; i--) {
    stack.push({ cursor: { next: null, list: [roots[i]!], index: 0 }, out: top, fold: false, quiet: false, block: false, root: true });
  }

  const addText = (out: Node_, text: string) => {
    const last = out.kids[out.kids.length - 1];
    if (last && last.role === undefined && !out.split) {
      if (last.text.length < RUN_KEEP) {
        const more = out.brk ? ` ${text}` : text;
        last.text += more;
        estimate += Math.min(more.length, MAX_TEXT);
      }
    } else {
      if (!/\S/.test(text)) return;
      out.kids.push({ text: text.length > RUN_KEEP ? text.slice(0, RUN_KEEP) : text });
      estimate += out.depth * 2 + 12 + Math.min(text.length, MAX_TEXT);
    }
    out.brk = false;
    out.split = false;
  };

  const add = (out: Node_, made: Node_) => {
    out.kids.push(made);
    order.push(made);
    estimate += made.depth * 2 + made.role.length + made.name.length + made.value.length + made.states.length + (made.ref ? 10 : 0) + 6;
  };

  while (stack.length) {
    if (estimate > budget) {
      walkCut = true;
      break;
    }
    const frame = stack[stack.length - 1]!;
    const current = step(frame.cursor);
    if (!current) {
      stack.pop();
      // Neighbouring blocks' texts go on lines of their own: a label is not run into the next field's.
      if (frame.block || frame.root) frame.out.split = true;
      continue;
    }
    const { out } = frame;
    if (current.nodeType === 3) {
      if (!frame.fold && !frame.quiet && !frame.svg) addText(out, current.nodeValue ?? '');
      continue;
    }
    if (current.nodeType !== 1) continue;
    const element = current as Element;
    const tag = element.tagName;
    if (SKIPPED_TAGS.has(tag) || isOwnUi(element)) continue;
    const shown = shownState(element, frame.quiet);
    if (shown === GONE) continue;
    const quiet = shown === INVISIBLE;
    const depth = out.depth + 1;

    if (tag === 'IFRAME' || tag === 'FRAME') {
      if (quiet) continue;
      const made = node('iframe', depth);
      made.name = accessibleName(element, 'iframe');
      let inner: Document | null = null;
      try {
        inner = (element as HTMLIFrameElement).contentDocument;
      } catch {
        inner = null;
      }
      const body = inner ? inner.body ?? inner.documentElement : null;
      if (!inner) made.note = ' (other site: not read)';
      else {
        listenerTargets(inner, listeners);
        noteSvgTargets();
      }
      add(out, made);
      if (body) stack.push({ cursor: { next: null, list: [body], index: 0 }, out: depth > MAX_DEPTH ? out : made, fold: false, quiet: false, block: true });
      continue;
    }

    if (element.namespaceURI === SVG_NS || element.namespaceURI === 'http://www.w3.org/1998/Math/MathML') {
      // Drawings are one image at most, unless parts of them are clickable: then those parts get lines.
      if (quiet || frame.fold) continue;
      const svgLink = element.namespaceURI === SVG_NS && element.localName === 'a' && (element.hasAttribute('href') || element.hasAttribute('xlink:href'));
      let label = clean(element.getAttribute('aria-label') || svgTitle(element) || element.getAttribute('alttext') || '');
      if (!label && svgLink) label = clean(element.textContent ?? '');
      let role = roleOf(element);
      if (svgLink && !role) role = 'link';
      const pointer = Boolean(frame.pointer) || (element.namespaceURI === SVG_NS && cursorOf(element) === 'pointer');
      const weak = svgLink ? '' : weakClickable(element, listeners, pointer && !frame.pointer && element.localName !== 'svg');
      const actionable = svgLink || isActionable(element, role) || Boolean(weak);
      const into = element.namespaceURI === SVG_NS && !actionable && (svgWithTargets.has(element) || (element.localName === 'svg' && element.querySelector('a') !== null));
      if (!label && !actionable && !into) continue;
      const made = node(role && role !== 'group' ? role : 'img', depth);
      made.name = cut(label);
      if (actionable) {
        made.ref = shortRef(refs, element);
        if (weak) made.weak = weak;
        if (weak === 'pointer') made.note = CURSOR_MARK;
      }
      add(out, made);
      if (into) stack.push({ cursor: childCursor(element), out: depth > MAX_DEPTH ? out : made, fold: false, quiet: false, block: false, pointer, svg: true });
      continue;
    }
    if (frame.svg) continue;

    let role = roleOf(element);
    let actionable = isActionable(element, role);
    // Where a pointer cursor starts. Computed styles only where they can matter: not inside a node
    // named from its content (its text is its name), not under a pointer already (no start there),
    // not for a link, button… (one can act on it already, and what is inside it is folded into its name).
    const pointer = frame.fold || quiet || frame.pointer || (actionable && NAME_FROM_CONTENT.has(role)) ? Boolean(frame.pointer) : cursorOf(element) === 'pointer';
    let weak = '';
    if (!actionable && !frame.fold && !quiet && tag !== 'BODY' && tag !== 'HTML') {
      weak = weakClickable(element, listeners, pointer && !frame.pointer);
      actionable = Boolean(weak);
    }
    if (!role && actionable) role = 'generic';
    const flatten = quiet || (!actionable && (!role || frame.fold || (depth > MAX_DEPTH && !NAME_FROM_CONTENT.has(role))));
    if (flatten) {
      const block = BLOCK_TAGS.has(tag);
      if (block) out.split = true;
      if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'IMG') continue;
      stack.push({ cursor: childCursor(element), out, fold: frame.fold, quiet, block, pointer });
      continue;
    }

    const made = node(role, Math.min(depth, MAX_DEPTH + 1));
    // Inside a node named from its content, an actionable part's own text is its name.
    made.name = accessibleName(element, role, NAME_FROM_CONTENT.has(role) || frame.fold);
    if (tag === 'IMG' && !made.name && !actionable) continue;
    made.states = statesOf(element, role);
    if (actionable) made.ref = shortRef(refs, element);
    if (weak) {
      made.weak = weak;
      if (weak === 'pointer') made.note = CURSOR_MARK;
    }
    made.value = valueOf(element, role);
    if (made.value.length > MAX_TEXT) made.value = made.value.slice(0, MAX_TEXT + 1);
    add(out, made);
    // Deeper than MAX_DEPTH, what is inside goes on the same level.
    const into = depth > MAX_DEPTH ? out : made;
    if (tag === 'SELECT') {
      listOptions(element as HTMLSelectElement, into, order);
      continue;
    }
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'IMG') continue;
    stack.push({ cursor: childCursor(element), out: into, fold: frame.fold || (NAME_FROM_CONTENT.has(role) && Boolean(made.name)), quiet, block: true, pointer });
  }

  return render(top, order, maxLength, walkCut, find);
}

/** A native select's options as child lines (no references: select_option picks them by label). */
function listOptions(select: HTMLSelectElement, out: Node_, order: Node_[]): void {
  const options = select.options;
  let listed = 0;
  for (let i = 0; i < options.length; i++) {
    const option = options[i]!;
    if (listed >= MAX_OPTIONS && !option.selected) continue;
    const made = node('option', out.depth + 1);
    made.name = cut(clean(option.label || option.text), MAX_TEXT);
    made.states = statesOf(option, 'option');
    out.kids.push(made);
    order.push(made);
    listed++;
  }
  if (options.length > listed) out.kids.push({ text: `… ${options.length - listed} more options` });
}

/** A text run as printed: cleaned and cut at MAX_TEXT (once: the run keeps the printed form). */
function runText(run: Run): string {
  if (!run.done) {
    run.text = cut(clean(run.text), MAX_TEXT);
    run.done = true;
  }
  return run.text;
}

/** A generic node that lost its reference to the one clickable part inside or around it. */
function isBare(n: Node_): boolean {
  return n.role === 'generic' && !n.ref && !n.name && !n.value && !n.note && !n.states;
}

/**
 * Drops empty nodes bottom-up, lifts single-child list items, folds a clickable wrapper and its
 * only clickable part into one reference, prints the lines (only those matching `find` and their
 * ancestors' when given) and cuts them.
 */
function render(top: Node_, order: Node_[], maxLength: number, walkCut: boolean, find = ''): Outline {
  // `order` is the nodes in the order they were made: children after their parent. Backwards, every
  // node's kids are final before the node itself is looked at.
  const kept = new WeakSet<Node_>();
  const prune = (n: Node_) => {
    const kids: Array<Node_ | Run> = [];
    let below = 0;
    let only: Node_ | undefined;
    for (const kid of n.kids) {
      if (kid.role === undefined) {
        // Kept raw: only the runs printed are cleaned (`runText`); a truncated page's walk reads
        // about twice what it prints, and cleaning every run of it was most of the extra cost of
        // keeping 2,000 characters a run.
        if (showsText(kid.text)) kids.push(kid);
      } else if (kept.has(kid)) {
        below += (kid.below ?? 0) + (kid.ref ? 1 : 0);
        only = kid.ref ? kid : kid.only;
        // A list item around one node says nothing the node does not: the node takes its place.
        if (kid.role === 'listitem' && !kid.name && !kid.ref && kid.kids.length === 1 && kid.kids[0]!.role !== undefined) kids.push(kid.kids[0]!);
        else kids.push(kid);
      }
    }
    n.kids = kids;
    // A clickable wrapper around one clickable part is one thing to click: one reference. A weak
    // wrapper (a listener, a pointer cursor) gives way to a part with a role or focus of its own; a
    // weak part gives way to a weak wrapper or to a generic focusable one (a list, a grid keep theirs).
    if (n.ref && below === 1 && only) {
      if (n.weak && !only.weak) {
        n.ref = '';
        n.note = '';
      } else if (only.weak && (n.weak || n.role === 'generic')) {
        only.ref = '';
        only.note = '';
        below = 0;
        // The part, now a generic wrapper without a reference, says nothing: its content takes its place.
        if (isBare(only)) n.kids = n.kids.flatMap((kid) => (kid === only ? only.kids : [kid]));
      }
    }
    n.below = below;
    n.only = below === 1 ? only : undefined;
    // An `<a>` without href or a `tabindex="-1"` element that shows nothing is an anchor or a focus target, not a control.
    if (n.ref && (n.weak === 'anchor' || n.weak === 'tabindex') && !n.name && !kids.length && !n.value) return;
    if (n.name || n.ref || n.value || n.note || kids.length || ALWAYS_SHOWN.has(n.role)) kept.add(n);
  };
  for (let i = order.length - 1; i >= 0; i--) prune(order[i]!);
  prune(top);

  const note = cutNote(maxLength);
  const limit = maxLength - note.length - 1;
  const lines: string[] = [];
  let length = 0;
  let truncated = walkCut;
  // With `find`: the matching lines and, before each, its ancestors' lines not printed yet.
  const ancestors: Array<{ line: string; shown: boolean }> = [];
  let matched = 0;
  const emit = (line: string): boolean => {
    if (length + line.length + 1 > limit) {
      truncated = true;
      return false;
    }
    lines.push(line);
    length += line.length + 1;
    return true;
  };
  const stack: Array<{ item: Node_ | Run; indent: number }> = [];
  for (let i = top.kids.length - 1; i >= 0; i--) stack.push({ item: top.kids[i]!, indent: 0 });
  walk: while (stack.length) {
    const { item, indent } = stack.pop()!;
    // A generic wrapper that lost its reference to its only clickable part says nothing: its lines move up.
    if (item.role !== undefined && isBare(item)) {
      for (let i = item.kids.length - 1; i >= 0; i--) stack.push({ item: item.kids[i]!, indent });
      continue;
    }
    const pad = '  '.repeat(Math.min(indent, MAX_DEPTH + 1));
    let line: string;
    let kids: Array<Node_ | Run> = [];
    if (item.role === undefined) {
      line = `${pad}- text: ${valueText(runText(item))}`;
    } else {
      line = `${pad}- ${item.role}${item.name ? ` ${JSON.stringify(item.name)}` : ''}${item.states}${item.ref ? ` [ref=${item.ref}]` : ''}${item.note}`;
      kids = item.kids;
      const only = kids.length === 1 ? kids[0]! : undefined;
      // A field's value; a select's options follow it as child lines.
      if (item.value) line += `: ${fieldValue(item.value)}`;
      else if (only && only.role === undefined) {
        line += `: ${valueText(runText(only))}`;
        kids = [];
      } else if (kids.length) line += ':';
    }
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ item: kids[i]!, indent: indent + 1 });
    if (!find) {
      if (!emit(line)) break;
      continue;
    }
    const level = Math.min(indent, MAX_DEPTH + 1);
    ancestors.length = Math.min(ancestors.length, level);
    const hit = line.toLowerCase().includes(find);
    ancestors.push({ line, shown: hit });
    if (!hit) continue;
    matched++;
    for (const up of ancestors) {
      if (up.shown && up !== ancestors[ancestors.length - 1]) continue;
      up.shown = true;
      if (!emit(up.line)) break walk;
    }
  }
  const nodes = lines.length;
  if (find && !matched) lines.push(`(no line of the outline contains ${JSON.stringify(find)}${walkCut ? ' in the part read' : ''})`);
  if (truncated) lines.push(note);
  return { text: lines.join('\n'), nodes, truncated };
}

/**
 * An element's role and accessible name as the outline prints them ('generic' for an element
 * without a role; the name read from the content when nothing else names it), for the approval
 * card's words and the page agent's `describe`.
 */
export function roleAndName(element: Element): { role: string; name: string } {
  let role = roleOf(element);
  if (element.namespaceURI === 'http://www.w3.org/2000/svg') role = role || 'img';
  if (!role) role = 'generic';
  let name = accessibleName(element, role);
  if (!name) name = accessibleName(element, role, true);
  return { role, name };
}

import type { ElementRefs } from '@/core/page/element-refs';
import { buildOutline, roleAndName } from './outline';
import { isOwnUi } from './own-ui';
import { parentAcrossShadow } from './input';
import { composedContains } from './actionable';

/**
 * "What changed": mutations are watched from just before an action until the page settles, then
 * the changed parts are outlined, so the model rarely needs a second read_page.
 *
 * Settling is one macrotask and two animation frames (what React's scheduler, Vue's and Lit's
 * microtask updates, Svelte and Angular's change detection need to render an event's result),
 * cut at `SETTLE_CAP_MS` because a background tab may not run animation frames at all.
 */
export const SETTLE_CAP_MS = 150;
/** How many changed subtrees are outlined at most (closer ones are merged into their ancestors past it). */
export const MAX_ROOTS = 5;
/** The changed outline's size cap. */
export const CHANGED_MAX_LENGTH = 4000;
/** When only <html>/<body> attributes changed (a theme, "menu-open"): too wide to outline, not nothing. */
export const PAGE_WIDE_NOTE = '(the page changed an attribute of <body> or <html>, which may show or hide parts of it: call read_page to see them)';

export interface ChangeWatch {
  /** Waits for the page to settle and outlines what changed ('' when nothing visible did). */
  finish(): Promise<string>;
  /** Stops watching without a result. */
  cancel(): void;
}

/** Waits for a macrotask and two animation frames, at most `cap` ms. */
export function settle(win: Window, cap = SETTLE_CAP_MS): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(end, cap);
    const frame = typeof win.requestAnimationFrame === 'function' ? (fn: () => void) => win.requestAnimationFrame(fn) : (fn: () => void) => setTimeout(fn, 16);
    setTimeout(() => frame(() => frame(end)), 0);
  });
}

/** What a control holds that no attribute shows (a typed value, a ticked box). */
function stateOf(element: Element | null): string {
  if (!element) return '';
  const field = element as HTMLInputElement & HTMLSelectElement;
  return JSON.stringify([field.value, field.checked, field.indeterminate, field.selectedIndex, element.isConnected]);
}

/** How many shadow roots are watched at most (components rendering into their own roots: Lit, Stencil, Shoelace). */
export const MAX_SHADOW_ROOTS = 300;
/** How many elements the search for shadow roots looks at, at most (a huge page stays cheap). */
const MAX_SCANNED = 100_000;

/**
 * The open shadow roots of `doc`, nested ones too (roots inside roots), found by one iterative walk
 * of the composed tree: at most `MAX_SHADOW_ROOTS`. A MutationObserver on the document does not see
 * into shadow roots, and a component's update often happens only in its own root (a new item in a
 * list component, a counter in a footer component), off the acted element's chain of roots.
 */
export function openShadowRoots(doc: Document, max = MAX_SHADOW_ROOTS): ShadowRoot[] {
  const found: ShadowRoot[] = [];
  const queue: Array<Document | ShadowRoot> = [doc];
  let scanned = 0;
  for (let i = 0; i < queue.length && found.length < max && scanned < MAX_SCANNED; i++) {
    const elements = queue[i]!.querySelectorAll('*');
    for (let j = 0; j < elements.length && scanned < MAX_SCANNED; j++, scanned++) {
      const shadow = elements[j]!.shadowRoot;
      if (!shadow || isOwnUi(elements[j]!)) continue;
      found.push(shadow);
      queue.push(shadow);
      if (found.length >= max) break;
    }
  }
  return found;
}

/**
 * Starts watching `doc`, its open shadow roots (`openShadowRoots`), every open shadow root
 * `element` is inside, and the frame documents it is in, for changes made by the action that follows.
 */
export function watchChanges(doc: Document, refs: ElementRefs, element: Element | null): ChangeWatch {
  const records: MutationRecord[] = [];
  const Observer = doc.defaultView?.MutationObserver ?? MutationObserver;
  const observer = new Observer((list) => records.push(...list));
  const options: MutationObserverInit = { subtree: true, childList: true, attributes: true, characterData: true };
  const targets = new Set<Node>([doc]);
  for (let node: Node | null = element; node; ) {
    const root = node.getRootNode();
    if (root === node) break;
    targets.add(root);
    node = (root as ShadowRoot).host ?? (root as Document).defaultView?.frameElement ?? null;
  }
  for (const root of openShadowRoots(doc)) targets.add(root);
  for (const target of targets) observer.observe(target, options);
  const before = stateOf(element);
  let stopped = false;

  return {
    cancel() {
      if (!stopped) observer.disconnect();
      stopped = true;
    },
    async finish() {
      const win = doc.defaultView;
      if (win) await settle(win);
      records.push(...observer.takeRecords());
      observer.disconnect();
      stopped = true;
      try {
        const { roots, removed, pageWide } = changedRoots(records);
        if (element && element.isConnected && stateOf(element) !== before && !roots.some((root) => composedContains(root, element))) roots.push(element);
        const text = outlineOf(doc, refs, mergeRoots(roots), removed);
        return text || (pageWide ? PAGE_WIDE_NOTE : '');
      } catch {
        // The action is done whatever happens here: a summary that fails must not turn it into an error.
        return records.length ? '(the page changed; call read_page to see it)' : '';
      }
    },
  };
}

function insideOwnUi(node: Node | null): boolean {
  for (let current: Node | null = node; current; current = current.parentNode ?? (current as ShadowRoot).host ?? null) {
    if (isOwnUi(current)) return true;
  }
  return false;
}

function elementOf(node: Node): Element | null {
  if (node.nodeType === 1) return node as Element;
  if (node.nodeType === 9) return (node as Document).documentElement;
  if (node.nodeType === 11) return (node as ShadowRoot).host ?? null;
  return node.parentElement ?? ((node.parentNode as ShadowRoot | null)?.host ?? null);
}

const BIG = new Set(['html', 'body']);

/** The elements the records touched: added elements themselves, else the changed element or parent. */
function changedRoots(records: MutationRecord[]): { roots: Element[]; removed: Element[]; pageWide: boolean } {
  const roots: Element[] = [];
  const removed: Element[] = [];
  let pageWide = false;
  for (const record of records) {
    if (insideOwnUi(record.target)) continue;
    // The head (title, styles, scripts) shows nothing to outline: the reply's title says a new title.
    if (elementOf(record.target)?.closest('head')) continue;
    // A class on <body> or <html> ("modal-open") would make the whole page the change: what it
    // shows or hides is in the other records.
    if (record.type === 'attributes' && BIG.has(elementOf(record.target)?.localName ?? '')) {
      pageWide = true;
      continue;
    }
    if (record.type === 'childList') {
      const added = [...record.addedNodes].filter((node) => !isOwnUi(node));
      const gone = [...record.removedNodes].filter((node) => !isOwnUi(node));
      if (added.length === 0 && gone.length === 0) continue;
      const parent = elementOf(record.target);
      for (const node of gone) if (node.nodeType === 1) removed.push(node as Element);
      if (gone.length === 0 || (parent && BIG.has(parent.localName))) {
        for (const node of added) {
          const element = node.nodeType === 1 ? (node as Element) : elementOf(record.target);
          if (element) roots.push(element);
        }
        if (gone.some((node) => node.nodeType !== 1) && parent) roots.push(parent);
        continue;
      }
      if (parent) roots.push(parent);
      continue;
    }
    const element = elementOf(record.target);
    if (element) roots.push(element);
  }
  return { roots, removed, pageWide };
}

/** Drops the roots inside others and lifts them to their parents until at most `MAX_ROOTS` remain. */
export function mergeRoots(candidates: Element[]): Element[] {
  let roots = outermost(candidates.filter((root) => root.isConnected));
  for (let i = 0; roots.length > MAX_ROOTS && i < 64; i++) {
    roots = outermost(roots.map((root) => {
      const parent = parentAcrossShadow(root);
      return parent && !BIG.has(parent.localName) ? parent : root;
    }));
    if (roots.every((root) => BIG.has(parentAcrossShadow(root)?.localName ?? 'html'))) break;
  }
  return roots.slice(0, MAX_ROOTS);
}

function outermost(list: Element[]): Element[] {
  const unique = [...new Set(list)];
  return unique.filter((root) => !unique.some((other) => other !== root && composedContains(other, root)));
}

function outlineOf(doc: Document, refs: ElementRefs, roots: Element[], removed: Element[]): string {
  let text = '';
  if (roots.length) {
    const outline = buildOutline(doc, refs, { roots: inDocumentOrder(roots), maxLength: CHANGED_MAX_LENGTH });
    text = outline.text.trim();
  }
  const gone = [...new Set(removed)].filter((element) => !element.isConnected).slice(0, 3).map((element) => {
    try {
      const { role, name } = roleAndName(element);
      if (!role || role === 'none' || role === 'generic' || role === 'presentation') return '';
      return `- (removed) ${role}${name ? ` ${quoteName(name)}` : ''}`;
    } catch {
      return '';
    }
  }).filter(Boolean);
  return [text, ...new Set(gone)].filter(Boolean).join('\n');
}

function inDocumentOrder(roots: Element[]): Element[] {
  return [...roots].sort((a, b) => {
    if (a.getRootNode() !== b.getRootNode()) return 0;
    return a.compareDocumentPosition(b) & 4 /* FOLLOWING */ ? -1 : 1;
  });
}

/**
 * A page-given name, made safe to quote in one line of a note: whitespace squashed, cut, quotes
 * escaped, and anything written like a reference defused, so a page cannot forge lines or refs.
 */
export function quoteName(name: string, max = 80): string {
  let text = String(name).replace(/\s+/g, ' ').trim();
  if (text.length > max) text = `${text.slice(0, max - 1)}…`;
  text = text.replace(/\[\s*ref\s*=/gi, '(ref=').replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return `"${text}"`;
}

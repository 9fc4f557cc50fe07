import { hiddenReason } from './actionable';

/**
 * wait_for on the page side: until a text shows, a text is gone, or an element is visible. It
 * checks at once, on page changes (a MutationObserver, at most every `CHECK_GAP_MS`) and on a
 * timer (changes inside shadow roots or frames are not observed), and ends at the timeout with an
 * error that says what it saw.
 */
export const CHECK_GAP_MS = 50;
export const POLL_MS = 250;

export interface WaitGoal {
  text?: string;
  textGone?: string;
  element?: Element;
  /** How the element is named in messages. */
  elementName?: string;
  timeoutMs: number;
}

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head']);

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The text a person sees: the body's rendered text, open shadow roots and same-origin frames included. */
export function visibleText(doc: Document, depth = 0): string {
  const parts: string[] = [];
  const body = doc.body ?? doc.documentElement;
  if (!body) return '';
  parts.push(renderedText(body));
  const hosts: Element[] = [];
  collectHosts(body, hosts, 0);
  for (const host of hosts) {
    if (hiddenReason(host)) continue;
    for (const child of host.shadowRoot!.children) if (!SKIP.has(child.localName)) parts.push(renderedText(child));
  }
  if (depth < 3) {
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      let inner: Document | null = null;
      try {
        inner = (frame as HTMLIFrameElement).contentDocument;
      } catch {
        inner = null;
      }
      if (inner && !hiddenReason(frame)) parts.push(visibleText(inner, depth + 1));
    }
  }
  return parts.filter(Boolean).join('\n');
}

function collectHosts(root: Element | ShadowRoot, out: Element[], depth: number): void {
  for (const element of root.querySelectorAll('*')) {
    if (!element.shadowRoot) continue;
    out.push(element);
    if (depth < 16) collectHosts(element.shadowRoot, out, depth + 1);
  }
}

/** `innerText` where the engine lays out; else the text of nodes not hidden by attribute or style (jsdom). */
function renderedText(element: Element): string {
  const inner = (element as HTMLElement).innerText;
  if (typeof inner === 'string') return inner;
  const view = element.ownerDocument.defaultView;
  const out: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      out.push(node.nodeValue ?? '');
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    if (SKIP.has(el.localName) || el.hasAttribute('hidden')) return;
    const style = view?.getComputedStyle(el);
    if (style && (style.display === 'none' || style.visibility === 'hidden')) return;
    for (const child of el.childNodes) walk(child);
  };
  walk(element);
  return out.join(' ');
}

function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Resolves with a note when the goal is met; rejects at the timeout with what it saw. */
export function waitFor(doc: Document, goal: WaitGoal): Promise<string> {
  const started = Date.now();
  const view = doc.defaultView;
  const Observer = view?.MutationObserver ?? MutationObserver;
  return new Promise<string>((resolve, reject) => {
    let finished = false;
    let scheduled: ReturnType<typeof setTimeout> | undefined;
    const observer = new Observer(() => {
      if (scheduled === undefined) scheduled = setTimeout(() => ((scheduled = undefined), check()), CHECK_GAP_MS);
    });
    const end = (error: Error | null, note?: string) => {
      if (finished) return;
      finished = true;
      observer.disconnect();
      clearInterval(poll);
      clearTimeout(deadline);
      if (scheduled !== undefined) clearTimeout(scheduled);
      if (error) reject(error);
      else resolve(note!);
    };
    const check = () => {
      if (finished) return;
      try {
        const met = evaluate(doc, goal);
        if (met.done) end(null, `${met.what} (after ${Date.now() - started} ms).`);
        else if (met.failNow) end(new Error(met.failNow));
      } catch (error) {
        end(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const timeout = () => {
      const seen = evaluate(doc, goal);
      if (seen.done) end(null, `${seen.what} (after ${Date.now() - started} ms).`);
      else end(new Error(`Waited ${goal.timeoutMs} ms: ${seen.what}. ${seen.hint}`));
    };
    observer.observe(doc, { subtree: true, childList: true, characterData: true, attributes: true });
    const poll = setInterval(check, POLL_MS);
    const deadline = setTimeout(timeout, goal.timeoutMs);
    check();
  });
}

interface Evaluation {
  done: boolean;
  /** What was seen (met or not), in words. */
  what: string;
  hint: string;
  /** The goal cannot be met any more (the element was removed). */
  failNow?: string;
}

function evaluate(doc: Document, goal: WaitGoal): Evaluation {
  if (goal.element) {
    const name = goal.elementName ?? 'the element';
    if (!goal.element.isConnected) {
      return { done: false, what: `${name} was removed from the page`, hint: '', failNow: `${name} was removed from the page while waiting for it: call read_page again for fresh references.` };
    }
    const hidden = hiddenReason(goal.element);
    if (hidden) return { done: false, what: `${name} is still not visible (${hidden})`, hint: 'It may need an action first (open a menu, scroll), or a longer timeout_ms.' };
    return { done: true, what: `${name} is visible`, hint: '' };
  }
  const text = visibleText(doc);
  const flat = normalise(text);
  if (goal.text !== undefined) {
    if (flat.includes(normalise(goal.text))) return { done: true, what: `"${excerpt(goal.text, 100)}" shows on the page`, hint: '' };
    return {
      done: false,
      what: `"${excerpt(goal.text, 100)}" did not show`,
      hint: `The page shows: "${excerpt(text)}". Check the wording, act first, or wait longer.`,
    };
  }
  if (goal.textGone !== undefined) {
    if (!flat.includes(normalise(goal.textGone))) return { done: true, what: `"${excerpt(goal.textGone, 100)}" is gone from the page`, hint: '' };
    return { done: false, what: `"${excerpt(goal.textGone, 100)}" still shows`, hint: 'It may need an action to go away (close, dismiss), or a longer timeout_ms.' };
  }
  return { done: true, what: 'Nothing to wait for', hint: '' };
}

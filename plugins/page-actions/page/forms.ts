import { ActionError, ensureActionable } from './actionable';
import { highlight } from './bar';
import { quoteName } from './changes';
import { deepActiveElement, fire, fireInputAndChange, focusElement, insertText, isContentEditable, isTextControl, makeEvent, viewOf, type Point } from './input';
import type { ActContext } from './act';
import { DROP_DONE_EVENT, DROP_REQUEST_EVENT, PASTE_DONE_EVENT, PASTE_REQUEST_EVENT } from './clipboard-main';

/**
 * The hands issue 41 added for text and files: selecting text (`selectText`), the page's own
 * clipboard events (`copySelection`, `pasteText`) and choosing a file for a file input or a drop
 * zone (`uploadFile`). Like the other actions they run in the isolated world with the natives of
 * `input.ts`. None of them touches the user's real clipboard: copy and cut hand the page a fresh
 * `DataTransfer` and read back what the page put in it (or the selected text); paste hands it the
 * model's text. `document.execCommand('copy' | 'cut' | 'paste')`, which would reach the system
 * clipboard, is never called, and neither is `navigator.clipboard`.
 */

function show(element: Element, label: string): void {
  try {
    highlight(element, label);
  } catch {
    // The highlight is for the user's eyes only.
  }
}

/** One mouse event (no pointer type needed for a selection gesture). */
function mouseAt(element: Element, type: string, point: Point, buttons: number): void {
  const view = viewOf(element);
  const init: MouseEventInit & { view?: Window | null } = { bubbles: true, cancelable: true, composed: true, view: view as Window, clientX: point.x, clientY: point.y, button: 0, buttons, detail: 1 };
  const Pointer = (globalThis as { PointerEvent?: typeof PointerEvent }).PointerEvent;
  if (type.startsWith('pointer') && Pointer) fire(element, makeEvent(Pointer, type, { ...init, pointerId: 1, pointerType: 'mouse', isPrimary: true }));
  else fire(element, makeEvent(MouseEvent, type, init));
}

/** The text nodes under `root` in document order, with where each starts in their joined text. */
function textRuns(root: Element): { node: Text; start: number }[] {
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  const runs: { node: Text; start: number }[] = [];
  let at = 0;
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const parent = node.parentElement;
    if (parent && /^(script|style|template|noscript)$/.test(parent.localName)) continue;
    runs.push({ node, start: at });
    at += node.data.length;
  }
  return runs;
}

/** The node and offset of character `index` of the joined text (the end of the last run for its length). */
function positionOf(runs: { node: Text; start: number }[], index: number, isEnd: boolean): { node: Text; offset: number } {
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    const end = run.start + run.node.data.length;
    // An end on a boundary stays in the run it closes; a start on a boundary begins the next run.
    if (isEnd ? index <= end : index < end) return { node: run.node, offset: Math.max(0, index - run.start) };
  }
  const last = runs.at(-1)!;
  return { node: last.node, offset: last.node.data.length };
}

/** Where `text` (or `start`–`end`) is in `full`, checked; throws in words for the model. */
function span(ctx: ActContext, element: Element, full: string, text?: string, start?: number, end?: number): [number, number] {
  if (text !== undefined) {
    if (!text) throw new ActionError('select_text needs a non-empty `text`, or `start` and `end`.');
    const at = full.indexOf(text);
    // Whitespace in the page (new lines, runs of spaces) need not match the model's exactly.
    if (at < 0) {
      const loose = new RegExp(text.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'));
      const found = loose.exec(full);
      if (found) return [found.index, found.index + found[0].length];
    }
    if (at < 0) throw new ActionError(`${ctx.describe(element)} does not contain the text ${quoteName(text, 80)}. It holds: ${quoteName(full, 300)}.`);
    return [at, at + text.length];
  }
  const from = Math.max(0, Math.floor(start ?? 0));
  const to = Math.min(full.length, Math.floor(end ?? full.length));
  if (to < from) throw new ActionError(`\`end\` (${end}) comes before \`start\` (${start}).`);
  if (from > full.length) throw new ActionError(`\`start\` (${start}) is past the end of the text of ${ctx.describe(element)} (${full.length} characters).`);
  return [from, to];
}

/**
 * Selects `text` (its first occurrence) or the characters `start`–`end` inside `element`: in a
 * text field through `setSelectionRange` (the browser fires `select` and `selectionchange`), in
 * any other element through a DOM Range in the document's selection, with the mouse's press and
 * release around it as a person's drag would give (editors such as Quill wait for the release).
 */
export function selectText(ctx: ActContext, element: Element, text?: string, start?: number, end?: number): string {
  const point = ensureActionable(element, ctx.describe, { enabled: false, hitTarget: false });
  show(element, ctx.label('select'));
  const doc = element.ownerDocument;
  if (isTextControl(element)) {
    const field = element as HTMLInputElement;
    const [from, to] = span(ctx, element, field.value, text, start, end);
    mouseAt(element, 'pointerdown', point, 1);
    mouseAt(element, 'mousedown', point, 1);
    if (deepActiveElement(doc) !== element) focusElement(element);
    try {
      field.setSelectionRange(from, to, 'forward');
    } catch {
      throw new ActionError(`${ctx.describe(element)} (type ${field.type}) does not let anyone select its text.`);
    }
    mouseAt(element, 'pointerup', point, 0);
    mouseAt(element, 'mouseup', point, 0);
    return `Selected ${quoteName(field.value.slice(from, to), 200)} (characters ${from}–${to}) in ${ctx.name(element)}.`;
  }
  const runs = textRuns(element);
  const full = runs.map((r) => r.node.data).join('');
  if (!runs.length) throw new ActionError(`${ctx.describe(element)} has no text to select.`);
  const [from, to] = span(ctx, element, full, text, start, end);
  const selection = doc.defaultView?.getSelection();
  if (!selection) throw new ActionError('This page has no selection to set.');
  mouseAt(element, 'pointerdown', point, 1);
  mouseAt(element, 'mousedown', point, 1);
  // In an editor, the editing host takes the focus first (focusing later could move the caret).
  const host = isContentEditable(element) ? (element.closest('[contenteditable]:not([contenteditable="false"])') ?? element) : null;
  if (host && deepActiveElement(doc) !== host) focusElement(host);
  const range = doc.createRange();
  const a = positionOf(runs, from, false);
  const b = positionOf(runs, to, true);
  range.setStart(a.node, a.offset);
  range.setEnd(b.node, b.offset);
  selection.removeAllRanges();
  selection.addRange(range);
  mouseAt(element, 'pointerup', point, 0);
  mouseAt(element, 'mouseup', point, 0);
  const got = selection.toString();
  return `Selected ${quoteName(got, 200)} (characters ${from}–${to} of its text) in ${ctx.name(element)}.`;
}

/** What is selected in the document now, and the element a clipboard event goes to. */
function currentSelection(doc: Document, element?: Element): { text: string; target: Element; editable: boolean } {
  const active = element && isTextControl(element) ? element : deepActiveElement(doc);
  if (active && isTextControl(active)) {
    const field = active as HTMLInputElement;
    const from = field.selectionStart ?? 0;
    const to = field.selectionEnd ?? 0;
    return { text: field.value.slice(from, to), target: active, editable: !field.readOnly && !field.disabled };
  }
  const selection = doc.defaultView?.getSelection();
  const text = selection?.toString() ?? '';
  const anchor = selection?.anchorNode;
  const fromSelection = anchor ? (anchor.nodeType === 1 ? (anchor as Element) : anchor.parentElement) : null;
  const target = (active && active !== doc.body && (!fromSelection || active.contains(fromSelection)) ? active : fromSelection) ?? doc.body ?? doc.documentElement;
  return { text, target, editable: isContentEditable(target) };
}

/** The longest text the result gives back from a copy (the reply's own cap comes after). */
const CLIP_CHARS = 20_000;

/**
 * Copy or cut, as the browser's own would begin: a `copy`/`cut` ClipboardEvent at the focused
 * element (or where the selection is), carrying a fresh `DataTransfer`. A page that handles it
 * (`setData` + `preventDefault`) gives what it put there; otherwise the selected text is what a
 * person would have copied, and a cut in an editable field deletes it as typing would. The system
 * clipboard is never read or written.
 */
export function copySelection(ctx: ActContext, cut: boolean, element?: Element): { note: string; clipboard: string } {
  const { text, target, editable } = currentSelection(ctx.doc, element);
  const given = new DataTransfer();
  const event = makeEvent(ClipboardEvent, cut ? 'cut' : 'copy', { bubbles: true, cancelable: true, composed: true, clipboardData: given });
  const notPrevented = fire(target, event);
  // Firefox gives the event a DataTransfer of its own (it ignores `clipboardData` in the init).
  const data = event.clipboardData ?? given;
  let clip: string;
  let how: string;
  if (!notPrevented) {
    const types = [...data.types];
    clip = data.getData('text/plain') || data.getData('text') || '';
    if (!clip && data.getData('text/html')) clip = data.getData('text/html');
    how = types.length ? `the page's ${cut ? 'cut' : 'copy'} handler put ${types.map((t) => quoteName(t, 40)).join(', ')} on the clipboard` : `the page cancelled the ${cut ? 'cut' : 'copy'} and put nothing on the clipboard`;
  } else {
    clip = text;
    how = text ? `the selected text` : 'nothing (no text is selected; use select_text first)';
    if (cut && text && editable) {
      insertText(target, '', false);
      how += ', deleted from the field';
    }
  }
  const word = cut ? 'Cut' : 'Copied';
  const note = `${word} ${clip ? `${[...clip].length} characters` : 'nothing'}: ${how}. The copy stays with the agent (the system clipboard is not touched).`;
  return { note, clipboard: clip.slice(0, CLIP_CHARS) };
}

/**
 * Paste `text` into `element` as a person's paste begins: focus it, fire `paste` with a
 * `DataTransfer` holding text/plain; if the page does not take it over (`preventDefault`, as
 * editors like Quill do), insert the text at the selection as typing would.
 */
export function pasteText(ctx: ActContext, element: Element, text: string): string {
  ensureActionable(element, ctx.describe, { hitTarget: false });
  show(element, ctx.label('fill'));
  const doc = element.ownerDocument;
  const host = isContentEditable(element) ? (element.closest('[contenteditable]:not([contenteditable="false"])') ?? element) : element;
  if (deepActiveElement(doc) !== host && !host.contains(deepActiveElement(doc))) focusElement(host);
  const target = deepActiveElement(doc) ?? host;
  const count = [...text].length;
  if (pasteEvent(target, text) === 'cancelled') return `Pasted ${count} characters into ${ctx.name(element)}: the page's paste handler took them.`;
  if (!isTextControl(target) && !isContentEditable(target)) return `Offered ${count} characters as a paste to ${ctx.name(element)}; it is not editable and its page did not take them.`;
  const how = insertText(target, text, false);
  if (how === 'prevented') throw new ActionError(`${ctx.describe(element)} refused the pasted text (the page cancelled the input).`);
  if (isTextControl(target)) fireInputAndChange(target);
  return `Pasted ${count} characters into ${ctx.name(element)}.`;
}

/**
 * Fires the page's `paste` at `target` with `text` as text/plain: through the MAIN-world bridge
 * (`clipboard-main.ts`: Firefox hides an extension's DataTransfer entries from the page), else,
 * where the bridge is missing, from here. Says whether the page cancelled it (took it over).
 */
function pasteEvent(target: Element, text: string): 'cancelled' | 'not cancelled' {
  const win = target.ownerDocument.defaultView;
  let answer: boolean | undefined;
  const onDone = (event: Event) => {
    try {
      answer = (JSON.parse(String((event as CustomEvent).detail)) as { cancelled?: unknown }).cancelled === true;
    } catch {
      // A reply that is not one: ignored.
    }
  };
  if (win) {
    win.addEventListener(PASTE_DONE_EVENT, onDone, true);
    try {
      fire(target, new CustomEvent(PASTE_REQUEST_EVENT, { bubbles: true, composed: true, detail: JSON.stringify({ text }) }));
    } finally {
      win.removeEventListener(PASTE_DONE_EVENT, onDone, true);
    }
  }
  if (answer !== undefined) return answer ? 'cancelled' : 'not cancelled';
  const data = new DataTransfer();
  data.setData('text/plain', text);
  const event = makeEvent(ClipboardEvent, 'paste', { bubbles: true, cancelable: true, composed: true, clipboardData: data, dataType: 'text/plain', data: text } as ClipboardEventInit);
  return fire(target, event) ? 'not cancelled' : 'cancelled';
}

/** A file as the background read it from the workspace. */
export interface UploadFile {
  name: string;
  type: string;
  /** The bytes, base64 (what crosses `executeScript`). */
  base64: string;
  lastModified?: number;
}

function fileFrom(upload: UploadFile): File {
  const binary = atob(upload.base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new File([bytes], upload.name, { type: upload.type, lastModified: upload.lastModified ?? Date.now() });
}

/** The file input `element` stands for: itself, a label's control, or the one file input inside it. */
function fileInputFor(element: Element): HTMLInputElement | null {
  const isFile = (el: Element | null | undefined): el is HTMLInputElement => el?.localName === 'input' && (el as HTMLInputElement).type === 'file';
  if (isFile(element)) return element;
  const control = element.localName === 'label' ? (element as HTMLLabelElement).control : null;
  if (isFile(control)) return control;
  const inside = element.querySelectorAll('input[type="file"]');
  return inside.length === 1 && isFile(inside[0]) ? inside[0] : null;
}

/**
 * Puts the file on a file input (`input.files = dataTransfer.files`, then `input` and `change`,
 * as a choice in the browser's file picker fires them) or, for any other element, drops it there
 * (dragenter, dragover, drop with the file in the `DataTransfer`), as drop zones expect.
 */
export function uploadFile(ctx: ActContext, element: Element, upload: UploadFile): string {
  const file = fileFrom(upload);
  const data = new DataTransfer();
  data.items.add(file);
  const input = fileInputFor(element);
  const size = `${file.size} bytes`;
  if (input) {
    // File inputs are often hidden behind a styled button: only a disabled one refuses.
    if (input.disabled) throw new ActionError(`${ctx.describe(input)} is disabled: the page does not take a file now.`);
    show(input.getClientRects().length ? input : element, ctx.label('fill'));
    input.files = data.files;
    fireInputAndChange(input);
    const accept = input.accept?.trim();
    const warn = accept && !accepts(accept, file) ? ` Note: the field asks for ${quoteName(accept, 80)}; the page may refuse this file.` : '';
    return `Chose the file ${quoteName(file.name, 120)} (${size}) in ${ctx.name(input)}.${warn}`;
  }
  const point = ensureActionable(element, ctx.describe);
  show(element, ctx.label('fill'));
  if (dropThroughPage(element, upload, point) === 'refused') throw new ActionError(`${ctx.describe(element)} is neither a file input nor a drop zone (it did not accept a dragged file). Use upload_file on the page's file input (input type=file), from read_page.`);
  return `Dropped the file ${quoteName(file.name, 120)} (${size}) on ${ctx.name(element)}.`;
}

/**
 * Drags the file onto `element` (dragenter, dragover, and drop when the zone cancelled dragover, as
 * a drop zone does): made in the page's MAIN world (`clipboard-main.ts`: Firefox hides an
 * extension's DataTransfer from the page), else from here when the bridge is missing.
 */
function dropThroughPage(element: Element, upload: UploadFile, point: Point): 'dropped' | 'refused' {
  const win = element.ownerDocument.defaultView;
  let accepted: boolean | undefined;
  const onDone = (event: Event) => {
    try {
      accepted = (JSON.parse(String((event as CustomEvent).detail)) as { accepted?: unknown }).accepted === true;
    } catch {
      // Not a reply.
    }
  };
  if (win) {
    win.addEventListener(DROP_DONE_EVENT, onDone, true);
    try {
      fire(element, new CustomEvent(DROP_REQUEST_EVENT, { bubbles: true, composed: true, detail: JSON.stringify({ ...upload, x: point.x, y: point.y }) }));
    } finally {
      win.removeEventListener(DROP_DONE_EVENT, onDone, true);
    }
  }
  if (accepted !== undefined) return accepted ? 'dropped' : 'refused';
  const data = new DataTransfer();
  data.items.add(fileFrom(upload));
  const view = viewOf(element);
  const drag = (type: string) => fire(element, makeEvent(DragEvent, type, { bubbles: true, cancelable: true, composed: true, view: view as Window, clientX: point.x, clientY: point.y, dataTransfer: data }));
  drag('dragenter');
  if (drag('dragover')) return 'refused';
  drag('drop');
  return 'dropped';
}

/** Whether a file input's `accept` list takes `file` (extensions, exact types, `type/*`). */
function accepts(accept: string, file: File): boolean {
  const name = file.name.toLowerCase();
  const type = file.type.toLowerCase();
  return accept.split(',').map((a) => a.trim().toLowerCase()).filter(Boolean).some((a) => (a.startsWith('.') ? name.endsWith(a) : a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) : type === a));
}

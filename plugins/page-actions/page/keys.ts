import { parseKey, type Key } from '../key-spec';
import { hiddenReason, disabledReason } from './actionable';
import {
  deepActiveElement,
  execCommand,
  fire,
  fireChange,
  focusElement,
  insertText,
  isContentEditable,
  isTextControl,
  makeEvent,
  nativeClick,
  nativeRequestSubmit,
  selectAllIn,
  setNativeValue,
  viewOf,
  type Modifiers,
} from './input';

/**
 * Key presses as a keyboard makes them: keydown, keypress (for keys that type), the default
 * action the browser would take — which synthetic events never get, so it is emulated here:
 * typing the character into a field, Backspace/Delete, Enter (a new line in a textarea, a click
 * on a button or link, the form's implicit submission in a field), Space on a button or box,
 * Control+A, arrows in a <select>, and Tab/Shift+Tab moving focus — then keyup.
 */

/** What one press did, for the note. */
export interface PressResult {
  /** The element that ended with focus or got the key. */
  target: Element;
  /** Anything beyond the key events: "the form was submitted", "focus moved to …". */
  effect?: string;
}

/** Types the printable text a key makes and its editing defaults. */
function isEditable(element: Element): boolean {
  if (isTextControl(element)) return !(element as HTMLInputElement).readOnly && !(element as HTMLInputElement).disabled;
  return isContentEditable(element);
}

/** Presses `spec` ("Enter", "Control+a", "Shift+Tab") on `target` (the focused element when absent). */
export function pressKey(doc: Document, spec: string, target?: Element | null, options: { typed?: boolean } = {}): PressResult {
  const { key, mods } = parseKey(spec);
  const start = target ?? deepActiveElement(doc) ?? doc.body ?? doc.documentElement;
  const held = heldModifiers(mods);
  const downMods: Modifiers = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
  for (const [name, flag] of held) {
    downMods[flag] = true;
    keyEvent(start, 'keydown', parseKey(name).key, downMods);
  }
  let result: PressResult;
  if (key.key === 'Tab') result = pressTab(doc, start, mods);
  else result = pressOther(start, key, mods, options);
  for (const [name, flag] of [...held].reverse()) {
    downMods[flag] = false;
    keyEvent(result.target, 'keyup', parseKey(name).key, downMods);
  }
  return result;
}

function heldModifiers(mods: Modifiers): Array<[string, keyof Modifiers]> {
  const list: Array<[string, keyof Modifiers]> = [];
  if (mods.ctrlKey) list.push(['Control', 'ctrlKey']);
  if (mods.altKey) list.push(['Alt', 'altKey']);
  if (mods.metaKey) list.push(['Meta', 'metaKey']);
  if (mods.shiftKey) list.push(['Shift', 'shiftKey']);
  return list;
}

function pressOther(target: Element, key: Key, mods: Modifiers, options: { typed?: boolean }): PressResult {
  const result: PressResult = { target };
  const shortcut = mods.ctrlKey || mods.metaKey || mods.altKey;
  const down = keyEvent(target, 'keydown', key, mods);
  let pressed = false;
  if (down) {
    // keypress comes for keys that type something (and Enter); a cancelled one stops the typing.
    const types = !shortcut && key.text !== '';
    pressed = types ? keyEvent(target, 'keypress', key, mods) : true;
    if (pressed) result.effect = defaultAction(target, key, mods, options);
  }
  keyEvent(target, 'keyup', key, mods);
  if (pressed && key.key === ' ' && !shortcut && !isEditable(target) && activatesOnSpace(target) && !disabledReason(target)) {
    // Space activates a button or box on keyup.
    nativeClick(target);
    result.effect = 'it was activated';
  }
  return result;
}

function activatesOnSpace(element: Element): boolean {
  if (element.localName === 'button' || element.localName === 'summary') return true;
  if (element.localName === 'input') return /^(checkbox|radio|button|submit|reset|image)$/i.test((element as HTMLInputElement).type);
  return false;
}

function defaultAction(target: Element, key: Key, mods: Modifiers, options: { typed?: boolean }): string | undefined {
  const editable = isEditable(target);
  const shortcut = mods.ctrlKey || mods.metaKey || mods.altKey;
  if ((mods.ctrlKey || mods.metaKey) && key.key.toLowerCase() === 'a') {
    if (editable) selectAllIn(target);
    else target.ownerDocument.defaultView?.getSelection()?.selectAllChildren(target.ownerDocument.body);
    return 'everything was selected';
  }
  if (shortcut) return undefined;
  if (key.key === 'Enter') return pressEnterDefault(target, options);
  if (editable && key.text && key.text !== '\r') {
    insertText(target, key.text, false);
    return undefined;
  }
  if (editable && (key.key === 'Backspace' || key.key === 'Delete')) {
    deleteOne(target, key.key === 'Backspace');
    return undefined;
  }
  if (target.localName === 'select' && (key.key === 'ArrowDown' || key.key === 'ArrowUp')) {
    const select = target as HTMLSelectElement;
    const step = key.key === 'ArrowDown' ? 1 : -1;
    let index = select.selectedIndex + step;
    while (select.options[index]?.disabled) index += step;
    const option = select.options[index];
    if (option) {
      select.selectedIndex = index;
      fire(select, new Event('input', { bubbles: true, composed: true }));
      fireChange(select);
      return `the select now shows "${option.label.slice(0, 80)}"`;
    }
  }
  return undefined;
}

function deleteOne(target: Element, backward: boolean): void {
  if (execCommand(target.ownerDocument, backward ? 'delete' : 'forwardDelete')) return;
  if (!isTextControl(target)) return;
  const field = target as HTMLInputElement;
  const value = field.value;
  let start = field.selectionStart ?? value.length;
  let end = field.selectionEnd ?? value.length;
  if (start === end) {
    if (backward) start = Math.max(0, start - 1);
    else end = Math.min(value.length, end + 1);
  }
  const inputType = backward ? 'deleteContentBackward' : 'deleteContentForward';
  if (!fire(field, new InputEvent('beforeinput', { bubbles: true, cancelable: true, composed: true, inputType }))) return;
  setNativeValue(field, value.slice(0, start) + value.slice(end));
  fire(field, new InputEvent('input', { bubbles: true, composed: true, inputType }));
}

/** Enter's default action in `target`; returns what it did, for the note. */
function pressEnterDefault(target: Element, options: { typed?: boolean }): string | undefined {
  if (target.localName === 'textarea' || (isContentEditable(target) && !isTextControl(target))) {
    if (!isEditable(target)) return undefined;
    if (!execCommand(target.ownerDocument, target.localName === 'textarea' ? 'insertLineBreak' : 'insertParagraph')) insertText(target, '\n', false);
    return 'a new line was started';
  }
  if (target.localName === 'a' && target.hasAttribute('href')) {
    nativeClick(target);
    return 'the link was followed';
  }
  if (target.localName === 'button' || (target.localName === 'input' && /^(button|submit|reset|image)$/i.test((target as HTMLInputElement).type))) {
    if (disabledReason(target)) return undefined;
    nativeClick(target);
    return 'it was activated';
  }
  if (target.localName === 'input') {
    // A committed text field fires change before the form goes (as browsers do on Enter).
    if (options.typed) fireChange(target);
    return implicitSubmission(target as HTMLInputElement);
  }
  return undefined;
}

const BLOCKS_IMPLICIT = /^(text|search|url|tel|email|password|date|month|week|time|datetime-local|number)$/i;

/**
 * The form's implicit submission (HTML's rule): a click on its default button when it has one
 * (so the page's click handlers run and the browser submits with that submitter, validating
 * first), else a `requestSubmit()` when at most one field would take Enter.
 */
export function implicitSubmission(field: HTMLInputElement): string | undefined {
  const form = field.form;
  if (!form) return undefined;
  const controls = [...form.elements];
  const button = controls.find((control) => isSubmitButton(control)) as HTMLElement | undefined;
  if (button) {
    if ((button as HTMLButtonElement).disabled) return 'the form was not submitted: its submit button is disabled';
    nativeClick(button);
    return 'the form was submitted';
  }
  const blocking = controls.filter((control) => control.localName === 'input' && BLOCKS_IMPLICIT.test((control as HTMLInputElement).type || 'text'));
  if (blocking.length > 1) return 'the form was not submitted: it has no submit button and several fields (click its button instead)';
  nativeRequestSubmit(form);
  return 'the form was submitted';
}

function isSubmitButton(control: Element): boolean {
  if (control.localName === 'button') return ((control.getAttribute('type') ?? 'submit').toLowerCase() || 'submit') === 'submit';
  return control.localName === 'input' && /^(submit|image)$/i.test((control as HTMLInputElement).type);
}

// ---------------------------------------------------------------------------------------------
// Tab

const FOCUSABLE = 'a[href], area[href], button, input:not([type="hidden"]), select, textarea, iframe, summary, [tabindex], [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]';

/** The elements Tab visits, in order: positive tabindex first, then the rest in tree order (open shadow roots at their hosts). */
export function tabbables(doc: Document): Element[] {
  const found: Element[] = [];
  const visit = (root: Document | ShadowRoot | Element, depth: number) => {
    const walker = doc.createTreeWalker(root, 1 /* SHOW_ELEMENT */);
    for (let node = walker.nextNode() as Element | null; node; node = walker.nextNode() as Element | null) {
      if (node.matches(FOCUSABLE)) found.push(node);
      if (node.shadowRoot && depth < 16) visit(node.shadowRoot, depth + 1);
    }
  };
  visit(doc.body ?? doc.documentElement, 0);
  const usable = found.filter((element) => {
    const index = (element as HTMLElement).tabIndex;
    if (typeof index === 'number' && index < 0) return false;
    if ((element as HTMLButtonElement).disabled || element.closest('[inert]')) return false;
    if (element.localName === 'input' && (element as HTMLInputElement).type === 'radio' && !radioTabStop(element as HTMLInputElement)) return false;
    return !hiddenReason(element);
  });
  const positive = usable.filter((element) => (element as HTMLElement).tabIndex > 0).sort((a, b) => (a as HTMLElement).tabIndex - (b as HTMLElement).tabIndex);
  return [...positive, ...usable.filter((element) => !((element as HTMLElement).tabIndex > 0))];
}

/** In a radio group only the checked radio (or the first, when none is) is a tab stop. */
function radioTabStop(radio: HTMLInputElement): boolean {
  if (!radio.name) return true;
  const scope = radio.form ?? radio.getRootNode();
  const group = [...(scope as ParentNode).querySelectorAll('input[type="radio"]')].filter((other) => (other as HTMLInputElement).name === radio.name && (other as HTMLInputElement).form === radio.form) as HTMLInputElement[];
  const checked = group.find((other) => other.checked);
  return checked ? checked === radio : group[0] === radio;
}

function pressTab(doc: Document, start: Element, mods: Modifiers): PressResult {
  const key = parseKey('Tab').key;
  if (!keyEvent(start, 'keydown', key, mods)) {
    keyEvent(start, 'keyup', key, mods);
    return { target: start, effect: 'the page kept the focus (it handled Tab itself)' };
  }
  const list = tabbables(doc);
  if (list.length === 0) {
    keyEvent(start, 'keyup', key, mods);
    return { target: start, effect: 'nothing on the page takes focus' };
  }
  const index = list.indexOf(start);
  const step = mods.shiftKey ? -1 : 1;
  const next = (index < 0 ? (step > 0 ? firstAfter(list, start) : lastBefore(list, start)) : list[(index + step + list.length) % list.length]) ?? start;
  focusElement(next);
  if (isTextControl(next)) selectAllIn(next);
  keyEvent(next, 'keyup', key, mods);
  return { target: next, effect: 'focus moved' };
}

function firstAfter(list: Element[], start: Element): Element {
  return list.find((element) => start.compareDocumentPosition(element) & 4 /* FOLLOWING */) ?? list[0] ?? start;
}

function lastBefore(list: Element[], start: Element): Element {
  return [...list].reverse().find((element) => start.compareDocumentPosition(element) & 2 /* PRECEDING */) ?? list[list.length - 1] ?? start;
}

// ---------------------------------------------------------------------------------------------
// Keyboard events (key names: ../key-spec.ts, shared with the background's approval card)

/** Fires one keyboard event at `target`; false when a listener cancelled it. */
export function keyEvent(target: Element, type: 'keydown' | 'keypress' | 'keyup', key: Key, mods: Modifiers): boolean {
  const charCode = type === 'keypress' ? (key.text === '\r' ? 13 : key.text.charCodeAt(0) || 0) : 0;
  const keyCode = type === 'keypress' ? charCode : key.keyCode;
  const init: KeyboardEventInit & { keyCode: number; which: number; charCode: number } = {
    key: key.key,
    code: key.code,
    keyCode,
    which: keyCode,
    charCode,
    bubbles: true,
    cancelable: true,
    composed: true,
    view: viewOf(target) as Window,
    ...mods,
  };
  return fire(target, makeEvent(KeyboardEvent, type, init));
}


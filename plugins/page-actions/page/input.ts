/**
 * Synthetic input that web apps accept: pointer and mouse sequences with coordinates, keyboard
 * events with the legacy `keyCode`/`which` that older apps still read, and typing through
 * `document.execCommand('insertText')` (which the browser turns into real `beforeinput`/`input`
 * events) or, where that does nothing, the element prototype's native value setter plus the
 * events a framework listens to.
 *
 * This runs in the tab's isolated world, whose prototypes the page cannot touch. As a second line
 * (and so that a test sharing one world with a hostile page can check it) the natives are taken
 * once, when this module loads, and always called through `Reflect.apply`: a page that later
 * replaces `dispatchEvent`, `focus`, `click` or a value setter, or defines its own `value` on an
 * element (React's value tracker does), changes nothing here. Event details go through the
 * events' init dictionaries only: a property defined on an event object in this world would not
 * be seen by the page (Chrome's worlds keep separate wrappers; Firefox's Xrays hide expandos).
 */

const apply = Reflect.apply;
const describeOwn = Object.getOwnPropertyDescriptor;

function setterOf(proto: object | undefined, name: string): ((v: unknown) => void) | undefined {
  return proto ? (describeOwn(proto, name)?.set as ((v: unknown) => void) | undefined) : undefined;
}

const natives = {
  dispatch: EventTarget.prototype.dispatchEvent,
  listen: EventTarget.prototype.addEventListener,
  unlisten: EventTarget.prototype.removeEventListener,
  focus: HTMLElement.prototype.focus,
  blur: HTMLElement.prototype.blur,
  click: HTMLElement.prototype.click,
  requestSubmit: typeof HTMLFormElement !== 'undefined' ? HTMLFormElement.prototype.requestSubmit : undefined,
  execCommand: (Document.prototype as { execCommand?: Document['execCommand'] }).execCommand,
  inputValue: setterOf(globalThis.HTMLInputElement?.prototype, 'value'),
  textareaValue: setterOf(globalThis.HTMLTextAreaElement?.prototype, 'value'),
  selectValue: setterOf(globalThis.HTMLSelectElement?.prototype, 'value'),
  optionSelected: setterOf(globalThis.HTMLOptionElement?.prototype, 'selected'),
  checked: setterOf(globalThis.HTMLInputElement?.prototype, 'checked'),
};

/**
 * Builds an event, with the init's `view` when the engine takes it: where the element's window is
 * not a Window of this realm (jsdom under a test runner), this world's window, else no view.
 */
export function makeEvent<T extends Event, I extends EventInit & { view?: Window | null }>(Ctor: new (type: string, init: I) => T, type: string, init: I): T {
  try {
    return new Ctor(type, init);
  } catch (error) {
    if (!init.view) throw error;
    const own = (globalThis as { window?: Window }).window;
    if (own && own !== init.view && own.document === init.view.document) {
      try {
        return new Ctor(type, { ...init, view: own });
      } catch {
        // Fall through: no view at all.
      }
    }
    return new Ctor(type, { ...init, view: null });
  }
}

/** Dispatches `event` at `target` with the native method; false when a listener cancelled it. */
export function fire(target: EventTarget, event: Event): boolean {
  return apply(natives.dispatch, target, [event]) as boolean;
}

function nativeFocus(element: Element): void {
  try {
    apply(natives.focus, element, [{ preventScroll: true }]);
  } catch {
    (element as HTMLElement).focus?.({ preventScroll: true });
  }
}

function nativeBlur(element: Element): void {
  try {
    apply(natives.blur, element, []);
  } catch {
    (element as HTMLElement).blur?.();
  }
}

function documentHasFocus(doc: Document): boolean {
  try {
    return doc.hasFocus();
  } catch {
    return true;
  }
}

/** Runs `run` and says which of `types` reached `element` meanwhile (listened to at the target itself). */
function watchEvents(element: Element, types: readonly string[], run: () => void): Set<string> {
  const seen = new Set<string>();
  const mark = (event: Event) => {
    if (event.target === element) seen.add(event.type);
  };
  for (const type of types) apply(natives.listen, element, [type, mark, true]);
  try {
    run();
  } finally {
    for (const type of types) apply(natives.unlisten, element, [type, mark, true]);
  }
  return seen;
}

function focusEvent(type: 'focus' | 'blur' | 'focusin' | 'focusout', related: Element | null): FocusEvent {
  const bubbles = type === 'focusin' || type === 'focusout';
  return new FocusEvent(type, { bubbles, cancelable: false, composed: true, relatedTarget: related });
}

/**
 * Focuses `element` without scrolling (the native focus of its kind; SVG and MathML have their own).
 *
 * A page whose document does not have the focus (the person's keyboard is in the sidebar, or in
 * another window) still moves `activeElement`, but Firefox then fires no focus events at all, and
 * focus-driven widgets (a date picker that opens on focus, "when the field is focused…") do nothing.
 * When the document has no focus and the native call moved the focus without its events, they are
 * fired here, once, in the browser's order: blur and focusout on what lost it, then focus and
 * focusin on `element`, each with the other as `relatedTarget`.
 */
export function focusElement(element: Element): void {
  const doc = element.ownerDocument;
  const before = deepActiveElement(doc);
  const hadFocus = documentHasFocus(doc);
  const seen = watchEvents(element, ['focus'], () => nativeFocus(element));
  if (hadFocus || seen.has('focus') || deepActiveElement(doc) !== element || before === element) return;
  const lost = before && before !== doc.body && before !== doc.documentElement && before.isConnected ? before : null;
  if (lost) {
    fire(lost, focusEvent('blur', element));
    fire(lost, focusEvent('focusout', element));
  }
  // A blur handler may have moved the focus elsewhere: then the focus is not ours to announce.
  if (deepActiveElement(doc) !== element) return;
  fire(element, focusEvent('focus', lost));
  fire(element, focusEvent('focusin', lost));
}

/** Takes the focus from `element`; in a document without focus, with the blur events the browser left out (as `focusElement`). */
export function blurElement(element: Element): void {
  const doc = element.ownerDocument;
  const wasActive = deepActiveElement(doc) === element;
  const hadFocus = documentHasFocus(doc);
  const seen = watchEvents(element, ['blur'], () => nativeBlur(element));
  if (hadFocus || !wasActive || seen.has('blur') || deepActiveElement(doc) === element) return;
  fire(element, focusEvent('blur', null));
  fire(element, focusEvent('focusout', null));
}

/** The element's native `click()` (activation behaviour, one click event). */
export function nativeClick(element: Element): void {
  apply(natives.click, element, []);
}

export function nativeRequestSubmit(form: HTMLFormElement, submitter?: HTMLElement | null): void {
  if (natives.requestSubmit) apply(natives.requestSubmit, form, submitter ? [submitter] : []);
  else fire(form, new Event('submit', { bubbles: true, cancelable: true }));
}

/** Sets `value` through the setter of the element's own kind, past any setter the page defined on it. */
export function setNativeValue(element: Element, value: string): void {
  const tag = element.localName;
  const setter = tag === 'textarea' ? natives.textareaValue : tag === 'select' ? natives.selectValue : natives.inputValue;
  if (setter) apply(setter, element, [value]);
  else (element as HTMLInputElement).value = value;
}

export function setNativeSelected(option: HTMLOptionElement, selected: boolean): void {
  if (natives.optionSelected) apply(natives.optionSelected, option, [selected]);
  else option.selected = selected;
}

/** `document.execCommand`, false where the browser (or jsdom) has none. */
export function execCommand(doc: Document, command: string, value?: string): boolean {
  if (!natives.execCommand) return false;
  try {
    return apply(natives.execCommand, doc, [command, false, value]) as boolean;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Pointer and mouse

export type Button = 'left' | 'right' | 'middle';
export interface Modifiers {
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}
export const NO_MODIFIERS: Modifiers = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };

/** A point in the viewport of the element's own document (its frame's viewport). */
export interface Point {
  x: number;
  y: number;
}

export const BUTTON_NUMBER: Record<Button, number> = { left: 0, middle: 1, right: 2 };
export const BUTTON_MASK: Record<Button, number> = { left: 1, middle: 4, right: 2 };

export function modifiersFrom(names: readonly string[] | undefined): Modifiers {
  const set = new Set((names ?? []).map((n) => n.toLowerCase()));
  return {
    ctrlKey: set.has('control') || set.has('ctrl'),
    shiftKey: set.has('shift'),
    altKey: set.has('alt'),
    metaKey: set.has('meta'),
  };
}

export function viewOf(element: Element): Window | null {
  return element.ownerDocument?.defaultView ?? null;
}

function mouseInit(element: Element, point: Point, mods: Modifiers, extra: MouseEventInit): MouseEventInit {
  const view = viewOf(element);
  const screenX = Math.round(point.x + (view?.screenX ?? 0));
  const screenY = Math.round(point.y + (view?.screenY ?? 0) + Math.max(0, (view?.outerHeight ?? 0) - (view?.innerHeight ?? 0)));
  return {
    bubbles: true,
    cancelable: true,
    composed: true,
    view: view as Window,
    detail: 0,
    clientX: point.x,
    clientY: point.y,
    screenX,
    screenY,
    button: 0,
    buttons: 0,
    ...mods,
    ...extra,
  };
}

const NOT_BUBBLING = new Set(['pointerenter', 'pointerleave', 'mouseenter', 'mouseleave']);

/** Fires one pointer or mouse event; pointer events fall back to MouseEvent where PointerEvent is missing. */
export function mouse(element: Element, type: string, point: Point, mods: Modifiers, extra: MouseEventInit = {}): boolean {
  const init = mouseInit(element, point, mods, extra);
  if (NOT_BUBBLING.has(type)) {
    init.bubbles = false;
    init.cancelable = false;
  }
  if (type === 'mousemove' || type === 'pointermove' || type.endsWith('over') || type.endsWith('out')) init.detail = 0;
  if (type.startsWith('pointer')) {
    const pointerInit: PointerEventInit = {
      ...init,
      pointerId: 1,
      pointerType: 'mouse',
      isPrimary: true,
      width: 1,
      height: 1,
      pressure: type === 'pointerdown' || ((init.buttons ?? 0) !== 0 && type === 'pointermove') ? 0.5 : 0,
    };
    const Ctor = (globalThis as { PointerEvent?: typeof PointerEvent }).PointerEvent;
    return fire(element, Ctor ? makeEvent(Ctor, type, pointerInit) : makeEvent(MouseEvent, type, init));
  }
  return fire(element, makeEvent(MouseEvent, type, init));
}

/** pointerover, pointerenter, mouseover, mouseenter, pointermove, mousemove: what moving the mouse onto it fires. */
export function hoverSequence(element: Element, point: Point, mods: Modifiers = NO_MODIFIERS, previous?: Element | null): void {
  if (previous && previous !== element && previous.isConnected) {
    for (const type of ['pointerout', 'pointerleave', 'mouseout', 'mouseleave']) mouse(previous, type, point, mods, { relatedTarget: element });
  }
  const related = previous && previous !== element && previous.isConnected ? previous : null;
  for (const type of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter']) mouse(element, type, point, mods, { relatedTarget: related });
  mouse(element, 'pointermove', point, mods);
  mouse(element, 'mousemove', point, mods);
}

const NATIVELY_FOCUSABLE = 'a[href], area[href], button, input, select, textarea, iframe, summary, [tabindex], [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]';

/** The element a mouse press on `element` focuses: itself or its closest focusable ancestor (through shadow roots). */
export function focusTargetOf(element: Element): Element | null {
  for (let node: Element | null = element; node; node = parentAcrossShadow(node)) {
    if (node.matches(NATIVELY_FOCUSABLE) && !(node as HTMLButtonElement).disabled) return node;
  }
  return null;
}

export function parentAcrossShadow(node: Node): Element | null {
  if (node.parentElement) return node.parentElement;
  const root = node.parentNode;
  return root && (root as ShadowRoot).host ? (root as ShadowRoot).host : null;
}

/** The focused element, looking into open shadow roots and same-origin frames. */
export function deepActiveElement(doc: Document): Element | null {
  let active: Element | null = doc.activeElement;
  for (let i = 0; active && i < 32; i++) {
    const inner = active.shadowRoot?.activeElement ?? frameDocument(active)?.activeElement ?? null;
    if (!inner || inner === active) break;
    if (frameDocument(active) && inner === frameDocument(active)?.body) break;
    active = inner;
  }
  return active;
}

function frameDocument(element: Element): Document | null {
  if (element.localName !== 'iframe' && element.localName !== 'frame') return null;
  try {
    return (element as HTMLIFrameElement).contentDocument;
  } catch {
    return null;
  }
}

/** What a press of the mouse on `element` does to the focus (its default action): focus its focusable ancestor, or blur the focused element. */
export function focusByPress(element: Element): void {
  const target = focusTargetOf(element);
  const doc = element.ownerDocument;
  if (target) {
    if (deepActiveElement(doc) !== target) focusElement(target);
  } else {
    const active = deepActiveElement(doc);
    if (active && active !== doc.body) blurElement(active);
  }
}

export interface ClickOptions {
  button?: Button;
  double?: boolean;
  mods?: Modifiers;
  previous?: Element | null;
}

/**
 * A click as a mouse makes it: over/enter/move, then down, focus (the press's default action,
 * unless a listener prevented it), up, and `click` — whose default action toggles a checkbox or
 * radio, follows a label to its control, submits with a submit button, follows a link (once: the
 * browser's activation behaviour does it, nothing here toggles anything). A double click repeats
 * down/up/click with detail 2 and adds `dblclick`; the right button ends in `contextmenu`, the
 * middle one in `auxclick`.
 */
export function clickSequence(element: Element, point: Point, options: ClickOptions = {}): void {
  const button = options.button ?? 'left';
  const mods = options.mods ?? NO_MODIFIERS;
  hoverSequence(element, point, mods, options.previous);
  const clicks = options.double ? 2 : 1;
  for (let detail = 1; detail <= clicks; detail++) {
    const down = { button: BUTTON_NUMBER[button], buttons: BUTTON_MASK[button], detail };
    const up = { button: BUTTON_NUMBER[button], buttons: 0, detail };
    mouse(element, 'pointerdown', point, mods, down);
    const notPrevented = mouse(element, 'mousedown', point, mods, down);
    if (notPrevented && detail === 1) focusByPress(element);
    mouse(element, 'pointerup', point, mods, up);
    mouse(element, 'mouseup', point, mods, up);
    if (button === 'left') mouse(element, 'click', point, mods, up);
    else if (button === 'middle') mouse(element, 'auxclick', point, mods, up);
    else if (detail === clicks) mouse(element, 'contextmenu', point, mods, up);
  }
  if (options.double && button === 'left') mouse(element, 'dblclick', point, mods, { button: 0, buttons: 0, detail: 2 });
}

// ---------------------------------------------------------------------------------------------
// Typing

export function isTextControl(element: Element): element is HTMLInputElement | HTMLTextAreaElement {
  if (element.localName === 'textarea') return true;
  if (element.localName !== 'input') return false;
  return TEXT_TYPES.has(((element as HTMLInputElement).type || 'text').toLowerCase());
}

export const TEXT_TYPES = new Set(['text', 'search', 'url', 'tel', 'email', 'password', 'number', '']);

export function isContentEditable(element: Element): boolean {
  const flag = (element as HTMLElement).isContentEditable;
  if (typeof flag === 'boolean') return flag;
  // Engines without isContentEditable (jsdom): the closest contenteditable attribute decides.
  const host = element.closest('[contenteditable]');
  return Boolean(host && /^(|true|plaintext-only)$/i.test(host.getAttribute('contenteditable') ?? ''));
}

/** Selects everything in a text field or an editable element, so typing replaces it. */
export function selectAllIn(element: Element): void {
  if (isTextControl(element)) {
    try {
      (element as HTMLInputElement).select();
    } catch {
      // Some input types have no selection: typing goes through the value setter instead.
    }
    return;
  }
  const doc = element.ownerDocument;
  // In a focused editing host, the editor's own Select All stays inside it (and works in shadow
  // roots, where a document range may not reach).
  const active = deepActiveElement(doc);
  if (active && (active === element || element.contains(active)) && execCommand(doc, 'selectAll')) return;
  const selection = doc.defaultView?.getSelection();
  if (!selection) return;
  const range = doc.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
}

/**
 * Types `text` into the focused `element` in place of its selection: through `insertText` when the
 * browser does it (real `beforeinput`/`input`, caret, undo — in Chromium and Firefox, for inputs,
 * textareas and contenteditable), else with the native setter and synthetic `beforeinput`/`input`.
 * Returns how it went in, for the tests and the notes.
 */
export function insertText(element: Element, text: string, replaceAll: boolean): 'execCommand' | 'setter' | 'prevented' {
  const doc = element.ownerDocument;
  let sawInput = false;
  const watch = () => (sawInput = true);
  apply(natives.listen, element, ['input', watch, true]);
  try {
    const done = text === '' ? execCommand(doc, 'delete') : execCommand(doc, 'insertText', text);
    if (done && sawInput) return 'execCommand';
  } finally {
    apply(natives.unlisten, element, ['input', watch, true]);
  }
  const inputType = text === '' ? 'deleteContentBackward' : 'insertText';
  const data = text === '' ? null : text;
  const before = new InputEvent('beforeinput', { bubbles: true, cancelable: true, composed: true, inputType, data });
  if (!fire(element, before)) return 'prevented';
  if (isTextControl(element) || element.localName === 'input') {
    const field = element as HTMLInputElement;
    let next = text;
    if (!replaceAll) {
      const start = field.selectionStart ?? field.value.length;
      const end = field.selectionEnd ?? field.value.length;
      next = field.value.slice(0, start) + text + field.value.slice(end);
    }
    setNativeValue(element, next);
  } else if (replaceAll) {
    element.textContent = text;
  } else {
    const selection = doc.defaultView?.getSelection();
    const range = selection && selection.rangeCount ? selection.getRangeAt(0) : null;
    if (range && element.contains(range.commonAncestorContainer)) {
      range.deleteContents();
      if (text) range.insertNode(doc.createTextNode(text));
      range.collapse(false);
    } else {
      element.append(text);
    }
  }
  fire(element, new InputEvent('input', { bubbles: true, cancelable: false, composed: true, inputType, data }));
  return 'setter';
}

/** Fires `change` (what a commit or a blur fires after typing). */
export function fireChange(element: Element): void {
  fire(element, new Event('change', { bubbles: true, cancelable: false }));
}

/** Fires `input` then `change` (a select or a checkbox changed by script, as a user change would). */
export function fireInputAndChange(element: Element): void {
  fire(element, new Event('input', { bubbles: true, cancelable: false, composed: true }));
  fireChange(element);
}

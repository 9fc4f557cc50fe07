import { ActionError, disabledReason, ensureActionable, hiddenReason, topViewportPoint } from './actionable';
import { highlight } from './bar';
import { quoteName, settle } from './changes';
import {
  clickSequence,
  deepActiveElement,
  fireChange,
  fireInputAndChange,
  focusElement,
  hoverSequence,
  insertText,
  isContentEditable,
  modifiersFrom,
  selectAllIn,
  setNativeSelected,
  type Button,
} from './input';
import { pressKey } from './keys';
import { deliver, modifierNames, type TrustedSender } from './trusted';

/**
 * The actions on one element: click, fill, select an option, hover, scroll. Each checks the
 * element first (`actionable.ts`), outlines it for a moment with a label naming the action
 * (`bar.ts`), acts with the event sequences of `input.ts`, and returns one line for the model.
 */
export interface ActContext {
  doc: Document;
  /** 'button "Add" (e4)': how errors name an element (with a reference the model can use). */
  describe(element: Element): string;
  /** 'button "Add"': how notes name an element. */
  name(element: Element): string;
  /** The element the last hover or click left the mouse on (for mouseout/leave). */
  pointer: { last: Element | null };
  /** The highlight's label for an action, in the user's language ("Click", "Type"). */
  label(action: ActionWord): string;
  /** Trusted input is on for this action (Chrome's debugger delivers it: `trusted.ts`). */
  trusted?: TrustedSender;
}

export type ActionWord = 'click' | 'fill' | 'select' | 'press' | 'hover' | 'scroll' | 'drag';

/** The labels when the locale has none. */
export const ENGLISH_LABELS: Record<ActionWord, string> = { click: 'Click', fill: 'Type', select: 'Choose', press: 'Press', hover: 'Hover', scroll: 'Scroll', drag: 'Drag' };

const BUTTON_WORD: Record<Button, string> = { left: 'Clicked', right: 'Right-clicked', middle: 'Middle-clicked' };

export function show(element: Element, label: string): void {
  try {
    highlight(element, label);
  } catch {
    // The highlight is for the user's eyes only: acting goes on without it.
  }
}

/** A checkbox's or radio's state after a click, for the note. */
function stateWord(element: Element): string {
  const box = (element.localName === 'label' ? (element as HTMLLabelElement).control : element) as HTMLInputElement | null;
  if (box && box.localName === 'input' && /^(checkbox|radio)$/i.test(box.type)) return box.checked ? ': now checked' : ': now unchecked';
  const aria = element.getAttribute('aria-checked') ?? element.getAttribute('aria-pressed') ?? element.getAttribute('aria-expanded');
  if (aria === 'true' || aria === 'false') {
    const attr = element.hasAttribute('aria-checked') ? 'checked' : element.hasAttribute('aria-pressed') ? 'pressed' : 'expanded';
    return aria === 'true' ? `: now ${attr}` : `: now not ${attr}`;
  }
  return '';
}

export function click(ctx: ActContext, element: Element, options: { button?: Button; double?: boolean; modifiers?: string[] } = {}): string | Promise<string> {
  const list = element.localName === 'option' ? element.closest('select') : null;
  if (list && (options.button ?? 'left') === 'left' && !options.double) {
    // A click on an option of a <select> does nothing in a browser: choose it as a person would.
    return selectNative(ctx, list, (element as HTMLOptionElement).value, (element as HTMLOptionElement).label);
  }
  const point = ensureActionable(element, ctx.describe);
  const button = options.button ?? 'left';
  show(element, ctx.label('click'));
  const mods = modifiersFrom(options.modifiers);
  // The events go to what is on top at the point (a person's finger lands there), which reaches `element`.
  const receiver = point.hit ?? element;
  const held = (options.modifiers ?? []).filter(Boolean);
  const word = options.double ? 'Double-clicked' : BUTTON_WORD[button];
  const done = () => {
    ctx.pointer.last = receiver;
    // Read the state after the events ran (a checkbox toggled by the click's default action).
    return `${word} ${ctx.name(element)}${held.length ? ` with ${held.join('+')} held` : ''}${element.isConnected ? stateWord(element) : ''}.`;
  };
  if (ctx.trusted) {
    const at = topViewportPoint(receiver.ownerDocument, point);
    return deliver(ctx, { kind: 'click', ...at, button, clicks: options.double ? 2 : 1, modifiers: modifierNames(mods) }).then(done);
  }
  clickSequence(receiver, point, { button, double: options.double, mods, previous: ctx.pointer.last });
  return done();
}

export function hover(ctx: ActContext, element: Element): string | Promise<string> {
  const point = ensureActionable(element, ctx.describe, { enabled: false });
  show(element, ctx.label('hover'));
  // Only the hover part of a click: over/enter/move (and out/leave on what the mouse left).
  const receiver = point.hit ?? element;
  const done = () => {
    ctx.pointer.last = receiver;
    return `Hovered over ${ctx.name(element)}.`;
  };
  if (ctx.trusted) return deliver(ctx, { kind: 'hover', ...topViewportPoint(receiver.ownerDocument, point) }).then(done);
  hoverSequence(receiver, point, undefined, ctx.pointer.last);
  return done();
}

// ---------------------------------------------------------------------------------------------
// fill

const NOT_TEXT: Record<string, string> = {
  checkbox: 'a checkbox: use click to tick it',
  radio: 'a radio button: use click to choose it',
  file: 'a file picker: files cannot be chosen by the agent; hand_over to the user',
  submit: 'a button: use click',
  button: 'a button: use click',
  reset: 'a button: use click',
  image: 'a button: use click',
  range: '',
  color: '',
};

/** The field `element` stands for: itself, the control of a label, or the one field inside it. */
export function fieldFor(element: Element): Element {
  if (element.localName === 'label' && (element as HTMLLabelElement).control) return (element as HTMLLabelElement).control!;
  if (element.localName === 'input' || element.localName === 'textarea' || element.localName === 'select' || isContentEditable(element)) return element;
  const inside = [...element.querySelectorAll('input:not([type="hidden"]), textarea, [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]')];
  const inShadow = element.shadowRoot ? [...element.shadowRoot.querySelectorAll('input:not([type="hidden"]), textarea, [contenteditable=""], [contenteditable="true"]')] : [];
  const shown = [...inside, ...inShadow].filter((field) => !hiddenReason(field));
  return shown.length === 1 && shown[0] ? shown[0] : element;
}

function fieldValue(field: Element): string {
  if (field.localName === 'input' || field.localName === 'textarea') return (field as HTMLInputElement).value;
  return (field as HTMLElement).innerText ?? field.textContent ?? '';
}

export function fill(ctx: ActContext, element: Element, text: string, submit = false): string | Promise<string> {
  const field = fieldFor(element);
  if (field.localName === 'select') throw new ActionError(`${ctx.describe(field)} is a list of options: use select_option.`);
  if (field.localName === 'input') {
    const type = ((field as HTMLInputElement).type || 'text').toLowerCase();
    const why = NOT_TEXT[type];
    if (why) throw new ActionError(`${ctx.describe(field)} is ${why}.`);
  } else if (field.localName !== 'textarea' && !isContentEditable(field)) {
    throw new ActionError(`${ctx.describe(field)} is not a text field: fill works on text boxes, text areas and editable areas (use click, or select_option for lists).`);
  }
  if ((field as HTMLInputElement).readOnly === true || field.getAttribute('aria-readonly') === 'true') {
    throw new ActionError(`${ctx.describe(field)} is read-only: the page does not let anyone type in it.`);
  }
  ensureActionable(field, ctx.describe);
  show(field, ctx.label('fill'));
  if (deepActiveElement(field.ownerDocument) !== field) focusElement(field);
  selectAllIn(field);
  if (ctx.trusted) return fillTrusted(ctx, field, text, submit);
  const how = insertText(field, text, true);
  if (how === 'prevented') throw new ActionError(`${ctx.describe(field)} refused the text (the page cancelled the input).`);
  const got = fieldValue(field);
  const effect = submit ? (pressKey(field.ownerDocument, 'Enter', field, { typed: true }).effect ?? '') : undefined;
  return finishFill(ctx, field, text, got, effect);
}

/** Trusted typing: the text at the caret over the selection (`Input.insertText`), or Delete to clear; Enter as a key. */
async function fillTrusted(ctx: ActContext, field: Element, text: string, submit: boolean): Promise<string> {
  await deliver(ctx, text ? { kind: 'text', text } : { kind: 'key', key: 'Delete' });
  const got = fieldValue(field);
  if (submit) await deliver(ctx, { kind: 'key', key: 'Enter' });
  return finishFill(ctx, field, text, got, submit ? '' : undefined);
}

/** After the typing: the commit a blur would make (without Enter), and the note; `enter`: undefined when Enter was not pressed, else its effect ("" for none seen). */
function finishFill(ctx: ActContext, field: Element, text: string, got: string, enter: string | undefined): string {
  const count = [...text].length;
  let note = count === 0 ? `Cleared ${ctx.name(field)}` : `Typed ${count} character${count === 1 ? '' : 's'} into ${ctx.name(field)}`;
  if (enter !== undefined) {
    note += ` and pressed Enter${enter ? ` (${enter})` : ''}`;
  } else if (field.localName === 'input' || field.localName === 'textarea') {
    // The commit a blur would make: Vue's v-model.lazy, Angular's updateOn 'blur' and plain pages read change.
    fireChange(field);
  }
  if (enter === undefined && got.replace(/\r\n/g, '\n') !== text && !(isContentEditable(field) && got.trim() === text.trim())) {
    note += `; the field now holds ${quoteName(got, 120)} (the page or the field's rules changed what was typed)`;
  }
  return `${note}.`;
}

// ---------------------------------------------------------------------------------------------
// select

interface Choice {
  element: Element;
  label: string;
  value: string;
  disabled: boolean;
}

function optionList(choices: Choice[]): string {
  const shown = choices.slice(0, 30).map((choice) => `${quoteName(choice.label, 60)}${choice.value && choice.value !== choice.label ? ` (value ${quoteName(choice.value, 40)})` : ''}${choice.disabled ? ' [disabled]' : ''}`);
  return `${shown.join(', ')}${choices.length > 30 ? `, … and ${choices.length - 30} more` : ''}`;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function pick(choices: Choice[], value?: string, label?: string): Choice | undefined {
  const exact = (want: string, of: (c: Choice) => string) => choices.find((c) => of(c) === want);
  const loose = (want: string, of: (c: Choice) => string) => choices.find((c) => squash(of(c)).toLowerCase() === squash(want).toLowerCase());
  if (value !== undefined) {
    const found = exact(value, (c) => c.value) ?? exact(value, (c) => squash(c.label));
    if (found) return found;
  }
  if (label !== undefined) {
    const found = exact(squash(label), (c) => squash(c.label)) ?? loose(label, (c) => c.label) ?? exact(label, (c) => c.value);
    if (found) return found;
  }
  const either = value ?? label;
  return either === undefined ? undefined : loose(either, (c) => c.label) ?? loose(either, (c) => c.value);
}

function wanted(value?: string, label?: string): string {
  return [value !== undefined ? `the value ${quoteName(value)}` : '', label !== undefined ? `the label ${quoteName(label)}` : ''].filter(Boolean).join(' or ');
}

export async function selectOption(ctx: ActContext, element: Element, value?: string, label?: string, values?: string[]): Promise<string> {
  const target = element.localName === 'label' && (element as HTMLLabelElement).control ? (element as HTMLLabelElement).control! : element;
  if (values !== undefined) return selectSeveral(ctx, target, values);
  if (value === undefined && label === undefined) throw new ActionError('Say which option: pass `value` or `label`.');
  if (target.localName === 'select') return selectNative(ctx, target as HTMLSelectElement, value, label);
  const role = target.getAttribute('role') ?? '';
  if (/^(listbox|combobox)$/.test(role) || target.getAttribute('aria-haspopup') === 'listbox') return selectAria(ctx, target, value, label);
  throw new ActionError(`${ctx.describe(target)} is not a list of options: select_option works on <select>, listbox and combobox elements (use click for other controls).`);
}

function selectNative(ctx: ActContext, select: HTMLSelectElement, value?: string, label?: string): string {
  const choices: Choice[] = [...select.options].map((option) => ({ element: option, label: option.label || option.text, value: option.value, disabled: option.disabled || Boolean(option.closest('optgroup[disabled]')) }));
  const choice = pick(choices, value, label);
  if (!choice) throw new ActionError(`${ctx.describe(select)} has no option with ${wanted(value, label)}. Its options: ${optionList(choices)}.`);
  if (choice.disabled) throw new ActionError(`The option ${quoteName(choice.label)} of ${ctx.describe(select)} is disabled: choose another.`);
  ensureActionable(select, ctx.describe);
  show(select, ctx.label('select'));
  const option = choice.element as HTMLOptionElement;
  if (deepActiveElement(select.ownerDocument) !== select) focusElement(select);
  const already = option.selected && (!select.multiple || [...select.selectedOptions].length === 1);
  if (already) return `${quoteName(choice.label)} was already chosen in ${ctx.name(select)}; nothing changed.`;
  if (select.multiple) for (const other of select.options) setNativeSelected(other, other === option);
  else setNativeSelected(option, true);
  fireInputAndChange(select);
  return `Chose ${quoteName(choice.label)} in ${ctx.name(select)}.`;
}

// ---------------------------------------------------------------------------------------------
// several options (issue 41): a <select multiple> or a listbox with aria-multiselectable

/** The options `wantedValues` name (each by value or label), or an error listing those not found. */
function pickSeveral(ctx: ActContext, host: Element, choices: Choice[], wantedValues: string[]): Choice[] {
  const picked: Choice[] = [];
  const missing: string[] = [];
  for (const want of wantedValues) {
    const choice = pick(choices, want, want);
    if (!choice) missing.push(want);
    else if (choice.disabled) throw new ActionError(`The option ${quoteName(choice.label)} of ${ctx.describe(host)} is disabled: choose others.`);
    else if (!picked.includes(choice)) picked.push(choice);
  }
  if (missing.length) throw new ActionError(`${ctx.describe(host)} has no option ${missing.map((m) => quoteName(m, 60)).join(', ')}. Its options: ${optionList(choices)}.`);
  return picked;
}

function labels(choices: Choice[]): string {
  return choices.length ? choices.map((c) => quoteName(c.label, 60)).join(', ') : 'nothing';
}

/** Makes exactly the options named by `wantedValues` (values or labels) chosen in a multi-select. */
async function selectSeveral(ctx: ActContext, host: Element, wantedValues: string[]): Promise<string> {
  if (host.localName === 'select') {
    const select = host as HTMLSelectElement;
    const choices: Choice[] = [...select.options].map((option) => ({ element: option, label: option.label || option.text, value: option.value, disabled: option.disabled || Boolean(option.closest('optgroup[disabled]')) }));
    if (!select.multiple) {
      if (wantedValues.length === 1) return selectNative(ctx, select, wantedValues[0], undefined);
      throw new ActionError(`${ctx.describe(select)} takes one option only (it is not a multi-select): pass one value.`);
    }
    const picked = pickSeveral(ctx, select, choices, wantedValues);
    ensureActionable(select, ctx.describe);
    show(select, ctx.label('select'));
    if (deepActiveElement(select.ownerDocument) !== select) focusElement(select);
    const before = [...select.options].map((o) => o.selected);
    for (const option of select.options) setNativeSelected(option, picked.some((c) => c.element === option));
    if ([...select.options].every((o, i) => o.selected === before[i])) return `${labels(picked)} ${picked.length === 1 ? 'was' : 'were'} already exactly what is chosen in ${ctx.name(select)}; nothing changed.`;
    fireInputAndChange(select);
    return `Chose ${labels(picked)} in ${ctx.name(select)} (and nothing else).`;
  }
  const role = host.getAttribute('role') ?? '';
  if (role !== 'listbox' && role !== 'combobox' && host.getAttribute('aria-haspopup') !== 'listbox') {
    throw new ActionError(`${ctx.describe(host)} is not a list of options: select_option works on <select>, listbox and combobox elements.`);
  }
  if (wantedValues.length === 1) return selectAria(ctx, host, wantedValues[0], undefined);
  const listbox = role === 'listbox' ? host : (ariaChoices(host)[0]?.element.closest('[role="listbox"]') ?? null);
  if (listbox?.getAttribute('aria-multiselectable') !== 'true') {
    throw new ActionError(`${ctx.describe(host)} takes one option only (no aria-multiselectable): pass one value, or click the options yourself.`);
  }
  const choices = ariaChoices(host).filter((choice) => !hiddenReason(choice.element));
  const picked = pickSeveral(ctx, host, choices, wantedValues);
  const isSelected = (c: Choice) => c.element.getAttribute('aria-selected') === 'true' || c.element.getAttribute('aria-checked') === 'true';
  // Each option whose state differs gets a person's click (a multi-select listbox toggles on click).
  for (const choice of choices) {
    if (isSelected(choice) === picked.includes(choice)) continue;
    const point = ensureActionable(choice.element, ctx.describe);
    show(choice.element, ctx.label('select'));
    clickSequence(choice.element, point, { previous: ctx.pointer.last });
    ctx.pointer.last = choice.element;
    const view = host.ownerDocument.defaultView;
    if (view) await settle(view);
  }
  const now = ariaChoices(host).filter(isSelected);
  const exact = now.length === picked.length && picked.every((p) => now.some((n) => n.element === p.element));
  return exact ? `Chose ${labels(picked)} in ${ctx.name(host)} (clicked the options).` : `Clicked the options of ${ctx.name(host)}; it now shows as chosen: ${labels(now)} (wanted ${labels(picked)}: the list may need Control held, or another way).`;
}

const OPTION_SELECTOR = '[role="option"]';

function ariaChoices(host: Element): Choice[] {
  const doc = host.ownerDocument;
  const scopes: ParentNode[] = [host];
  if (host.shadowRoot) scopes.push(host.shadowRoot);
  const root = host.getRootNode() as Document | ShadowRoot;
  for (const attr of ['aria-controls', 'aria-owns']) {
    for (const id of (host.getAttribute(attr) ?? '').split(/\s+/).filter(Boolean)) {
      const found = root.getElementById?.(id) ?? doc.getElementById(id);
      if (found) scopes.push(found);
    }
  }
  let options = scopes.flatMap((scope) => [...scope.querySelectorAll(OPTION_SELECTOR)]);
  // Popup lists are often rendered elsewhere in the page (a portal): take the visible options there.
  if (options.length === 0) options = [...doc.querySelectorAll(OPTION_SELECTOR)].filter((option) => !hiddenReason(option));
  return [...new Set(options)].map((option) => ({
    element: option,
    label: squash((option as HTMLElement).innerText ?? option.textContent ?? '') || option.getAttribute('aria-label') || '',
    value: option.getAttribute('data-value') ?? option.getAttribute('value') ?? '',
    disabled: option.getAttribute('aria-disabled') === 'true' || Boolean(disabledReason(option)),
  }));
}

async function selectAria(ctx: ActContext, host: Element, value?: string, label?: string): Promise<string> {
  let choices = ariaChoices(host).filter((choice) => !hiddenReason(choice.element));
  let opened = false;
  if (choices.length === 0 || host.getAttribute('aria-expanded') === 'false') {
    // A collapsed combobox: open it as a person would, then look at its options.
    await click(ctx, host);
    opened = true;
    const view = host.ownerDocument.defaultView;
    if (view) await settle(view);
    choices = ariaChoices(host).filter((choice) => !hiddenReason(choice.element));
  }
  const choice = pick(choices, value, label);
  if (!choice) {
    const all = choices.length ? `Its options: ${optionList(choices)}.` : 'It shows no options (role=option) even after a click: use click on the option itself after read_page.';
    throw new ActionError(`${ctx.describe(host)} has no option with ${wanted(value, label)}. ${all}`);
  }
  if (choice.disabled) throw new ActionError(`The option ${quoteName(choice.label)} of ${ctx.describe(host)} is disabled: choose another.`);
  const point = ensureActionable(choice.element, ctx.describe);
  show(choice.element, ctx.label('select'));
  const receiver = point.hit ?? choice.element;
  clickSequence(receiver, point, { previous: ctx.pointer.last });
  ctx.pointer.last = receiver;
  return `Chose ${quoteName(choice.label)} in ${ctx.name(host)} (${opened ? 'opened it and ' : ''}clicked the option).`;
}

// ---------------------------------------------------------------------------------------------
// press

export function press(ctx: ActContext, spec: string, element?: Element): string | Promise<string> {
  let target: Element | undefined;
  if (element) {
    ensureActionable(element, ctx.describe, { hitTarget: false });
    if (deepActiveElement(element.ownerDocument) !== element) focusElement(element);
    target = element;
  }
  const focused = target ?? deepActiveElement(ctx.doc) ?? ctx.doc.body;
  if (focused && focused !== ctx.doc.body) show(focused, `${ctx.label('press')} ${spec.slice(0, 30)}`);
  if (ctx.trusted) return pressTrusted(ctx, spec, focused);
  const result = pressKey(ctx.doc, spec, target);
  const where = result.target && result.target !== ctx.doc.body && result.target !== ctx.doc.documentElement ? ` in ${ctx.name(focused ?? result.target)}` : '';
  let note = `Pressed ${spec.slice(0, 60)}${where}`;
  if (result.effect === 'focus moved') note += `: focus moved to ${ctx.describe(result.target)}`;
  else if (result.effect) note += ` (${result.effect})`;
  return `${note}.`;
}

/** A trusted key press goes where the browser sends keys: the focused element. The note says where focus went. */
async function pressTrusted(ctx: ActContext, spec: string, focused: Element | null | undefined): Promise<string> {
  await deliver(ctx, { kind: 'key', key: spec });
  const now = deepActiveElement(ctx.doc);
  let note = `Pressed ${spec.slice(0, 60)}${focused && focused !== ctx.doc.body && focused !== ctx.doc.documentElement ? ` in ${ctx.name(focused)}` : ''}`;
  if (now && now !== focused && now !== ctx.doc.body) note += `: focus moved to ${ctx.describe(now)}`;
  return `${note}.`;
}

// ---------------------------------------------------------------------------------------------
// scroll

function scrollableAncestor(element: Element): Element | null {
  for (let node: Element | null = element; node; node = node.parentElement) {
    const style = node.ownerDocument.defaultView?.getComputedStyle(node);
    const y = style && /(auto|scroll|overlay)/.test(style.overflowY) && node.scrollHeight > node.clientHeight;
    const x = style && /(auto|scroll|overlay)/.test(style.overflowX) && node.scrollWidth > node.clientWidth;
    if (y || x) return node;
  }
  return null;
}

function scrollBy(target: Element | Window, left: number, top: number): void {
  const options = { left, top, behavior: 'instant' as ScrollBehavior };
  if (typeof (target as Element).scrollBy === 'function') {
    try {
      (target as Element).scrollBy(options);
      return;
    } catch {
      // An engine without scrollBy options (jsdom): set the offsets directly.
    }
  }
  if ('scrollTop' in target) {
    target.scrollTop += top;
    target.scrollLeft += left;
  }
}

export function scroll(ctx: ActContext, element: Element | undefined, direction?: 'up' | 'down' | 'left' | 'right', amount = 1): string {
  const doc = ctx.doc;
  const view = doc.defaultView!;
  if (element && !direction) {
    const hidden = hiddenReason(element);
    if (hidden) throw new ActionError(`${ctx.describe(element)} cannot be scrolled to: ${hidden}.`);
    show(element, ctx.label('scroll'));
    element.scrollIntoView?.({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
    return `Scrolled ${ctx.name(element)} into view.`;
  }
  const dir = direction ?? 'down';
  const vertical = dir === 'up' || dir === 'down';
  const sign = dir === 'up' || dir === 'left' ? -1 : 1;
  const scroller = element ? scrollableAncestor(element) : null;
  const page = doc.scrollingElement ?? doc.documentElement;
  const box = scroller ?? page;
  const size = scroller ? (vertical ? scroller.clientHeight : scroller.clientWidth) : vertical ? view.innerHeight : view.innerWidth;
  const distance = Math.round(sign * Math.max(1, size) * 0.9 * Math.min(Math.max(amount, 0.05), 20));
  if (element) show(element, ctx.label('scroll'));
  const before = vertical ? box.scrollTop : box.scrollLeft;
  scrollBy(scroller ?? view, vertical ? 0 : distance, vertical ? distance : 0);
  const after = vertical ? box.scrollTop : box.scrollLeft;
  const what = scroller ? ctx.name(scroller) : 'the page';
  if (Math.round(after) === Math.round(before)) {
    const end = sign > 0 ? (vertical ? 'bottom' : 'right end') : vertical ? 'top' : 'left end';
    return `Did not scroll ${what} ${dir}: it is already at the ${end}${element && !scroller ? ` (${ctx.name(element)} does not scroll by itself, and the page did not move)` : ''}.`;
  }
  const total = vertical ? box.scrollHeight : box.scrollWidth;
  const seen = vertical ? (scroller ? scroller.clientHeight : view.innerHeight) : scroller ? scroller.clientWidth : view.innerWidth;
  return `Scrolled ${what} ${dir} by ${Math.abs(Math.round(after - before))} px (now showing ${Math.round(after)}–${Math.round(after + seen)} of ${Math.round(total)} px).`;
}

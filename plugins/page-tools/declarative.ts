/**
 * Declarative WebMCP (webmachinelearning/webmcp, declarative-api-explainer.md): a
 * `<form toolname tooldescription [toolautosubmit]>` is a tool. Its input schema is synthesized
 * from the form's controls; a call fills the fields as a user would (input and change events),
 * then submits (with `toolautosubmit`) or waits for the user's own submit. The submit event carries
 * `agentInvoked: true` and `respondWith(valueOrPromise)`; what the page gives there is the result.
 *
 * Page side (MAIN world): functions take the window and the page's intrinsics (taken at document
 * start; `main-world/intrinsics.ts`) so tests run them on happy-dom and a page that patches its
 * built-ins later changes nothing here. `I` defaults to this realm's built-ins (tests). Imports:
 * the import-free intrinsics only.
 */
import { captureIntrinsics, type Intrinsics, type PageWindow } from './main-world/intrinsics';

const here = (): Intrinsics => captureIntrinsics(globalThis as PageWindow);

type Schema = Record<string, unknown>;

/** A form tool as discovery finds it. */
export interface FormToolInfo {
  name: string;
  description: string;
  autosubmit: boolean;
  schema: Schema;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const SKIPPED_TYPES = ['submit', 'reset', 'button', 'image', 'file', 'hidden'];

/** What `\s` and `trim` call white space (no regular expression: its `exec` is the page's to patch). */
function isSpace(code: number): boolean {
  return (code >= 9 && code <= 13) || code === 32 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** Runs of white space become one space; the ends are trimmed. */
function squash(I: Intrinsics, text: string | null | undefined): string {
  const source = text ?? '';
  let out = '';
  let space = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (isSpace(I.charCodeAt(source, i))) {
      space = true;
      continue;
    }
    if (space && out) out += ' ';
    space = false;
    out += char;
  }
  return out;
}

/** The texts of a list of labels, joined by spaces. */
function labelsText(I: Intrinsics, labels: NodeListOf<HTMLLabelElement> | null): string {
  if (!labels || !labels.length) return '';
  const texts: Array<string | null> = [];
  for (let i = 0; i < labels.length; i++) I.push(texts, labels[i]!.textContent);
  return I.join(texts, ' ');
}

/** The controls of a form that a tool call may fill, by name, in document order. */
export function formControls(form: HTMLFormElement, I: Intrinsics = here()): Map<string, Control[]> {
  const byName = new I.Map<string, Control[]>();
  const elements = form.elements;
  for (let i = 0; i < elements.length; i++) {
    const control = elements[i] as Control;
    const tag = control.tagName ? I.toLowerCase(control.tagName) : undefined;
    if (tag !== 'input' && tag !== 'select' && tag !== 'textarea') continue;
    const name = control.name;
    if (!name || control.disabled) continue;
    if (tag === 'input' && I.includes(SKIPPED_TYPES, (control as HTMLInputElement).type)) continue;
    const list = byName.get(name) ?? [];
    I.push(list, control);
    byName.set(name, list);
  }
  return byName;
}

/** What a person would read as the control's name: toolparamdescription, its label, aria-label, placeholder. */
function describeControl(I: Intrinsics, control: Control, group: Control[]): string {
  for (let i = 0; i < group.length; i++) {
    const own = group[i]!.getAttribute('toolparamdescription');
    if (own && I.trim(own)) return I.strSlice(squash(I, own), 0, 1000);
  }
  if (group.length > 1 || (control as HTMLInputElement).type === 'radio') {
    const legend = control.closest('fieldset')?.querySelector('legend');
    if (legend) return I.strSlice(squash(I, legend.textContent), 0, 300);
  }
  const labels = labelsText(I, control.labels);
  const text = squash(I, labels) || squash(I, control.getAttribute('aria-label')) || squash(I, control.getAttribute('placeholder')) || squash(I, control.getAttribute('title'));
  return I.strSlice(text, 0, 300);
}

function optionLabel(I: Intrinsics, control: HTMLInputElement): string {
  return squash(I, labelsText(I, control.labels));
}

function num(I: Intrinsics, text: string | null): number | undefined {
  if (text === null || I.trim(text) === '') return undefined;
  const n = I.Number(text);
  return I.isFinite(n) ? n : undefined;
}

/** `"value": label` for each box or radio of a group that has a label. */
function choiceLabels(I: Intrinsics, group: Control[]): string[] {
  const labelled = I.map(group, (c) => `${I.stringify((c as HTMLInputElement).value)}: ${optionLabel(I, c as HTMLInputElement)}`);
  return I.filter(labelled, (l) => !I.endsWith(l, ': '));
}

/** The non-empty parts, joined by a space. */
function words(I: Intrinsics, parts: string[]): string {
  return I.join(I.filter(parts, (p) => !!p), ' ');
}

/** The JSON Schema of one named control (or group of same-named checkboxes/radios). */
function controlSchema(I: Intrinsics, group: Control[]): { schema: Schema; required: boolean } {
  const first = group[0]!;
  const tag = I.toLowerCase(first.tagName);
  const required = I.some(group, (c) => c.required);
  const description = describeControl(I, first, group);
  const withDescription = (schema: Schema): Schema => (description ? { ...schema, description } : schema);
  if (tag === 'select') {
    const select = first as HTMLSelectElement;
    const options: HTMLOptionElement[] = [];
    for (let i = 0; i < select.options.length; i++) if (!select.options[i]!.disabled) I.push(options, select.options[i]!);
    // A placeholder option ("Choose…", value "") is no answer for a required select.
    const all = I.map(options, (o) => o.value);
    const values = I.filter(all, (v, i) => I.indexOf(all, v) === i && !(select.required && v === ''));
    const labelled = I.filter(options, (o) => !!squash(I, o.text) && squash(I, o.text) !== o.value);
    const labels = I.map(labelled, (o) => `${I.stringify(o.value)}: ${squash(I, o.text)}`);
    const note = labels.length ? `${description ? `${description} ` : ''}(${I.join(I.slice(labels, 0, 40), '; ')})` : description;
    const item: Schema = { type: 'string', enum: values };
    if (select.multiple) return { schema: { type: 'array', items: item, uniqueItems: true, ...(note ? { description: note } : {}) }, required };
    return { schema: { ...item, ...(note ? { description: note } : {}) }, required };
  }
  if (tag === 'textarea') {
    const area = first as HTMLTextAreaElement;
    const schema: Schema = { type: 'string' };
    if (area.minLength > 0) schema.minLength = area.minLength;
    if (area.maxLength >= 0 && area.hasAttribute('maxlength')) schema.maxLength = area.maxLength;
    return { schema: withDescription(schema), required };
  }
  const input = first as HTMLInputElement;
  const type = input.type;
  if (type === 'checkbox') {
    if (group.length === 1) return { schema: withDescription({ type: 'boolean' }), required };
    const values = I.map(group, (c) => (c as HTMLInputElement).value);
    const labels = choiceLabels(I, group);
    const note = words(I, [description, labels.length ? `(${I.join(labels, '; ')})` : '']);
    return { schema: { type: 'array', items: { type: 'string', enum: values }, uniqueItems: true, ...(note ? { description: note } : {}) }, required };
  }
  if (type === 'radio') {
    const values = I.map(group, (c) => (c as HTMLInputElement).value);
    const labels = choiceLabels(I, group);
    const note = words(I, [description, labels.length ? `(${I.join(labels, '; ')})` : '']);
    return { schema: { type: 'string', enum: values, ...(note ? { description: note } : {}) }, required };
  }
  if (type === 'number' || type === 'range') {
    const stepAttr = input.getAttribute('step');
    const step = stepAttr === 'any' ? undefined : (num(I, stepAttr) ?? 1);
    const min = num(I, input.getAttribute('min'));
    const max = num(I, input.getAttribute('max'));
    const integer = step !== undefined && I.isInteger(step) && (min === undefined || I.isInteger(min));
    const schema: Schema = { type: integer ? 'integer' : 'number' };
    if (min !== undefined) schema.minimum = min;
    else if (type === 'range') schema.minimum = 0;
    if (max !== undefined) schema.maximum = max;
    else if (type === 'range') schema.maximum = 100;
    return { schema: withDescription(schema), required };
  }
  const schema: Schema = { type: 'string' };
  const formats: Record<string, Schema> = {
    email: { format: 'email' },
    url: { format: 'uri' },
    date: { format: 'date' },
    time: { pattern: '^\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?$' },
    'datetime-local': { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?$' },
    month: { pattern: '^\\d{4}-\\d{2}$' },
    week: { pattern: '^\\d{4}-W\\d{2}$' },
    color: { pattern: '^#[0-9a-fA-F]{6}$' },
  };
  I.assign(schema, I.hasOwn(formats, type) ? formats[type]! : {});
  if (input.minLength > 0) schema.minLength = input.minLength;
  if (input.hasAttribute('maxlength') && input.maxLength >= 0) schema.maxLength = input.maxLength;
  const pattern = input.getAttribute('pattern');
  // HTML anchors a pattern to the whole value.
  if (pattern && !schema.pattern) schema.pattern = `^(?:${pattern})$`;
  if (type === 'date') {
    const min = input.getAttribute('min');
    const max = input.getAttribute('max');
    if (min || max) schema.description = words(I, [description, `(${words(I, [min ? `from ${min}` : '', max ? `until ${max}` : ''])})`]);
  }
  return { schema: schema.description ? schema : withDescription(schema), required };
}

/** The input schema of a form tool, from its controls (names, types, constraints, labels). */
export function synthesizeFormSchema(form: HTMLFormElement, I: Intrinsics = here()): Schema {
  const properties: Schema = {};
  const required: string[] = [];
  formControls(form, I).forEach((group, name) => {
    const { schema, required: isRequired } = controlSchema(I, group);
    properties[name] = schema;
    if (isRequired) I.push(required, name);
  });
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** The tool a form declares, or a sentence saying why it is not one. */
export function formToolInfo(form: HTMLFormElement, validName: RegExp, I: Intrinsics = here()): FormToolInfo | string {
  const name = I.trim(form.getAttribute('toolname') ?? '');
  const description = squash(I, form.getAttribute('tooldescription'));
  if (!I.test(validName, name)) return `Invalid form tool "${I.strSlice(name, 0, 60)}": "toolname" must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and ".".`;
  if (!description) return `Invalid form tool "${name}": it needs a non-empty "tooldescription".`;
  return { name, description, autosubmit: form.hasAttribute('toolautosubmit'), schema: synthesizeFormSchema(form, I) };
}

function setValue(I: Intrinsics, win: PageWindow, control: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  // The prototype's setter, as typing does: frameworks that track the value (React) see a change.
  const proto = I.toLowerCase(control.tagName) === 'textarea' ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
  const setter = I.getOwnPropertyDescriptor(proto, 'value')?.set;
  if (setter) I.apply(setter, control, [value]);
  else control.value = value;
}

function fire(I: Intrinsics, control: Element, type: 'input' | 'change'): void {
  const EventCtor = type === 'input' && I.InputEvent ? I.InputEvent : I.Event;
  // On the page's own control, as `click()` is: the page's DOM is its own to patch.
  control.dispatchEvent(new EventCtor(type, { bubbles: true, composed: type === 'input' }));
}

/** The wanted values as strings: one value, or each of a list. */
function wantedOf(I: Intrinsics, value: unknown): string[] {
  return I.isArray(value) ? I.map(value, (v) => I.String(v)) : [I.String(value)];
}

/**
 * Fills the form with the call's input as a user would: values typed (input, then change events),
 * boxes and radios clicked, options chosen. Fields the input leaves out keep what they have.
 * Throws, worded for the model, when a value does not fit its control.
 */
export function fillForm(win: PageWindow, form: HTMLFormElement, input: Record<string, unknown>, I: Intrinsics = here()): void {
  const controls = formControls(form, I);
  const names = I.keys(input);
  for (let n = 0; n < names.length; n++) {
    const name = names[n]!;
    const value = input[name];
    const group = controls.get(name);
    if (!group) throw new I.Error(`The form has no field "${name}".`);
    if (value === undefined || value === null) continue;
    const first = group[0]!;
    const tag = I.toLowerCase(first.tagName);
    if (tag === 'select') {
      const select = first as HTMLSelectElement;
      const wanted = wantedOf(I, value);
      const known: string[] = [];
      for (let i = 0; i < select.options.length; i++) I.push(known, select.options[i]!.value);
      for (let i = 0; i < wanted.length; i++) if (!I.includes(known, wanted[i])) throw new I.Error(`"${wanted[i]}" is not an option of the field "${name}".`);
      select.focus?.();
      for (let i = 0; i < select.options.length; i++) select.options[i]!.selected = I.includes(wanted, select.options[i]!.value);
      fire(I, select, 'input');
      fire(I, select, 'change');
      continue;
    }
    const type = (first as HTMLInputElement).type;
    if (tag === 'input' && (type === 'checkbox' || type === 'radio')) {
      const boxes = group as HTMLInputElement[];
      let wanted: string[];
      if (type === 'checkbox' && boxes.length === 1 && typeof value === 'boolean') wanted = value ? [boxes[0]!.value] : [];
      else wanted = wantedOf(I, value);
      for (let i = 0; i < wanted.length; i++) {
        const w = wanted[i];
        if (!I.some(boxes, (b) => b.value === w)) throw new I.Error(`"${w}" is not a choice of the field "${name}".`);
      }
      for (let i = 0; i < boxes.length; i++) {
        const box = boxes[i]!;
        const on = I.includes(wanted, box.value);
        // A click, as a person would: the browser fires input and change, and frameworks follow.
        if (box.checked !== on && (type === 'checkbox' || on)) box.click();
      }
      continue;
    }
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? I.String(value) : I.stringify(value)!;
    const control = first as HTMLInputElement | HTMLTextAreaElement;
    control.focus?.();
    setValue(I, win, control, text);
    fire(I, control, 'input');
    fire(I, control, 'change');
  }
}

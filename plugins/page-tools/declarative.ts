/**
 * Declarative WebMCP (webmachinelearning/webmcp, declarative-api-explainer.md): a
 * `<form toolname tooldescription [toolautosubmit]>` is a tool. Its input schema is synthesized
 * from the form's controls; a call fills the fields as a user would (input and change events),
 * then submits (with `toolautosubmit`) or waits for the user's own submit. The submit event carries
 * `agentInvoked: true` and `respondWith(valueOrPromise)`; what the page gives there is the result.
 *
 * Page side (MAIN world); functions take the window so tests run them on happy-dom. Imports: none
 * but types.
 */

type Schema = Record<string, unknown>;

/** A form tool as discovery finds it. */
export interface FormToolInfo {
  name: string;
  description: string;
  autosubmit: boolean;
  schema: Schema;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const SKIPPED_TYPES = new Set(['submit', 'reset', 'button', 'image', 'file', 'hidden']);

function squash(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** The controls of a form that a tool call may fill, by name, in document order. */
export function formControls(form: HTMLFormElement): Map<string, Control[]> {
  const byName = new Map<string, Control[]>();
  for (const element of Array.from(form.elements)) {
    const control = element as Control;
    const tag = control.tagName?.toLowerCase();
    if (tag !== 'input' && tag !== 'select' && tag !== 'textarea') continue;
    const name = control.name;
    if (!name || control.disabled) continue;
    if (tag === 'input' && SKIPPED_TYPES.has((control as HTMLInputElement).type)) continue;
    const list = byName.get(name) ?? [];
    list.push(control);
    byName.set(name, list);
  }
  return byName;
}

/** What a person would read as the control's name: toolparamdescription, its label, aria-label, placeholder. */
function describeControl(control: Control, group: Control[]): string {
  const own = group.map((c) => c.getAttribute('toolparamdescription')).find((d) => d && d.trim());
  if (own) return squash(own).slice(0, 1000);
  if (group.length > 1 || (control as HTMLInputElement).type === 'radio') {
    const legend = control.closest('fieldset')?.querySelector('legend');
    if (legend) return squash(legend.textContent).slice(0, 300);
  }
  const labels = control.labels && control.labels.length ? [...control.labels].map((l) => l.textContent).join(' ') : '';
  const text = squash(labels) || squash(control.getAttribute('aria-label')) || squash(control.getAttribute('placeholder')) || squash(control.getAttribute('title'));
  return text.slice(0, 300);
}

function optionLabel(control: HTMLInputElement): string {
  return squash(control.labels && control.labels.length ? [...control.labels].map((l) => l.textContent).join(' ') : '');
}

function num(text: string | null): number | undefined {
  if (text === null || text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** The JSON Schema of one named control (or group of same-named checkboxes/radios). */
function controlSchema(group: Control[]): { schema: Schema; required: boolean } {
  const first = group[0]!;
  const tag = first.tagName.toLowerCase();
  const required = group.some((c) => c.required);
  const description = describeControl(first, group);
  const withDescription = (schema: Schema): Schema => (description ? { ...schema, description } : schema);
  if (tag === 'select') {
    const select = first as HTMLSelectElement;
    const options = Array.from(select.options).filter((o) => !o.disabled);
    // A placeholder option ("Choose…", value "") is no answer for a required select.
    const values = options.map((o) => o.value).filter((v, i, all) => all.indexOf(v) === i && !(select.required && v === ''));
    const labels = options.filter((o) => squash(o.text) && squash(o.text) !== o.value).map((o) => `${JSON.stringify(o.value)}: ${squash(o.text)}`);
    const note = labels.length ? `${description ? `${description} ` : ''}(${labels.slice(0, 40).join('; ')})` : description;
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
    const values = group.map((c) => (c as HTMLInputElement).value);
    const labels = group.map((c) => `${JSON.stringify((c as HTMLInputElement).value)}: ${optionLabel(c as HTMLInputElement)}`).filter((l) => !l.endsWith(': '));
    const note = [description, labels.length ? `(${labels.join('; ')})` : ''].filter(Boolean).join(' ');
    return { schema: { type: 'array', items: { type: 'string', enum: values }, uniqueItems: true, ...(note ? { description: note } : {}) }, required };
  }
  if (type === 'radio') {
    const values = group.map((c) => (c as HTMLInputElement).value);
    const labels = group.map((c) => `${JSON.stringify((c as HTMLInputElement).value)}: ${optionLabel(c as HTMLInputElement)}`).filter((l) => !l.endsWith(': '));
    const note = [description, labels.length ? `(${labels.join('; ')})` : ''].filter(Boolean).join(' ');
    return { schema: { type: 'string', enum: values, ...(note ? { description: note } : {}) }, required };
  }
  if (type === 'number' || type === 'range') {
    const stepAttr = input.getAttribute('step');
    const step = stepAttr === 'any' ? undefined : (num(stepAttr) ?? 1);
    const min = num(input.getAttribute('min'));
    const max = num(input.getAttribute('max'));
    const integer = step !== undefined && Number.isInteger(step) && (min === undefined || Number.isInteger(min));
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
  Object.assign(schema, formats[type] ?? {});
  if (input.minLength > 0) schema.minLength = input.minLength;
  if (input.hasAttribute('maxlength') && input.maxLength >= 0) schema.maxLength = input.maxLength;
  const pattern = input.getAttribute('pattern');
  // HTML anchors a pattern to the whole value.
  if (pattern && !schema.pattern) schema.pattern = `^(?:${pattern})$`;
  if (type === 'date') {
    const min = input.getAttribute('min');
    const max = input.getAttribute('max');
    if (min || max) schema.description = [description, `(${[min ? `from ${min}` : '', max ? `until ${max}` : ''].filter(Boolean).join(' ')})`].filter(Boolean).join(' ');
  }
  return { schema: schema.description ? schema : withDescription(schema), required };
}

/** The input schema of a form tool, from its controls (names, types, constraints, labels). */
export function synthesizeFormSchema(form: HTMLFormElement): Schema {
  const properties: Schema = {};
  const required: string[] = [];
  for (const [name, group] of formControls(form)) {
    const { schema, required: isRequired } = controlSchema(group);
    properties[name] = schema;
    if (isRequired) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** The tool a form declares, or a sentence saying why it is not one. */
export function formToolInfo(form: HTMLFormElement, validName: RegExp): FormToolInfo | string {
  const name = (form.getAttribute('toolname') ?? '').trim();
  const description = squash(form.getAttribute('tooldescription'));
  if (!validName.test(name)) return `Invalid form tool "${name.slice(0, 60)}": "toolname" must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and ".".`;
  if (!description) return `Invalid form tool "${name}": it needs a non-empty "tooldescription".`;
  return { name, description, autosubmit: form.hasAttribute('toolautosubmit'), schema: synthesizeFormSchema(form) };
}

function setValue(win: Window & typeof globalThis, control: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  // The prototype's setter, as typing does: frameworks that track the value (React) see a change.
  const proto = control.tagName.toLowerCase() === 'textarea' ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  if (setter) setter.call(control, value);
  else control.value = value;
}

function fire(win: Window & typeof globalThis, control: Element, type: 'input' | 'change'): void {
  const EventCtor = type === 'input' && typeof win.InputEvent === 'function' ? win.InputEvent : win.Event;
  control.dispatchEvent(new EventCtor(type, { bubbles: true, composed: type === 'input' }));
}

/**
 * Fills the form with the call's input as a user would: values typed (input, then change events),
 * boxes and radios clicked, options chosen. Fields the input leaves out keep what they have.
 * Throws, worded for the model, when a value does not fit its control.
 */
export function fillForm(win: Window & typeof globalThis, form: HTMLFormElement, input: Record<string, unknown>): void {
  const controls = formControls(form);
  for (const [name, value] of Object.entries(input)) {
    const group = controls.get(name);
    if (!group) throw new Error(`The form has no field "${name}".`);
    if (value === undefined || value === null) continue;
    const first = group[0]!;
    const tag = first.tagName.toLowerCase();
    if (tag === 'select') {
      const select = first as HTMLSelectElement;
      const wanted = new Set((Array.isArray(value) ? value : [value]).map(String));
      const known = new Set(Array.from(select.options).map((o) => o.value));
      for (const w of wanted) if (!known.has(w)) throw new Error(`"${w}" is not an option of the field "${name}".`);
      select.focus?.();
      for (const option of Array.from(select.options)) option.selected = wanted.has(option.value);
      fire(win, select, 'input');
      fire(win, select, 'change');
      continue;
    }
    const type = (first as HTMLInputElement).type;
    if (tag === 'input' && (type === 'checkbox' || type === 'radio')) {
      const boxes = group as HTMLInputElement[];
      let wanted: Set<string>;
      if (type === 'checkbox' && boxes.length === 1 && typeof value === 'boolean') wanted = value ? new Set([boxes[0]!.value]) : new Set();
      else wanted = new Set((Array.isArray(value) ? value : [value]).map(String));
      for (const w of wanted) if (!boxes.some((b) => b.value === w)) throw new Error(`"${w}" is not a choice of the field "${name}".`);
      for (const box of boxes) {
        const on = wanted.has(box.value);
        // A click, as a person would: the browser fires input and change, and frameworks follow.
        if (box.checked !== on && (type === 'checkbox' || on)) box.click();
      }
      continue;
    }
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
    const control = first as HTMLInputElement | HTMLTextAreaElement;
    control.focus?.();
    setValue(win, control, text);
    fire(win, control, 'input');
    fire(win, control, 'change');
  }
}

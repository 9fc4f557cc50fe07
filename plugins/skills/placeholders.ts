import type { ElementLocatorTemplate, FromResultTemplate, TabTemplate, Template } from './types';

/**
 * `{param}` placeholders in a skill's strings (`{{` and `}}` are literal braces), and walks over
 * templates that leave the `$element`, `$tab` and `$from` objects whole.
 */

/** A parameter's name: `{name}` in templates, `name=value` after `/skill`. */
export const PARAM_NAME = /^[a-z][a-z0-9_]*$/;
/** Longest parameter name. */
export const PARAM_NAME_MAX = 40;

export type Piece = { text: string } | { param: string };

/** A literal text as a template string: its braces doubled. */
export function escapeBraces(text: string): string {
  return text.replace(/[{}]/g, (brace) => brace + brace);
}

/** The pieces of a template string, or an error for a brace that is neither `{{`, `}}` nor `{name}`. */
export function parsePlaceholders(template: string): Piece[] | { error: string } {
  const pieces: Piece[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const char = template[i]!;
    if ((char === '{' || char === '}') && template[i + 1] === char) {
      text += char;
      i++;
      continue;
    }
    if (char === '}') return { error: `A lone "}" at character ${i + 1} (write "}}" for a brace).` };
    if (char === '{') {
      const end = template.indexOf('}', i);
      const name = end > 0 ? template.slice(i + 1, end) : '';
      if (!PARAM_NAME.test(name) || name.length > PARAM_NAME_MAX) return { error: `A "{" at character ${i + 1} that opens no parameter (write "{{" for a brace).` };
      if (text) pieces.push({ text });
      text = '';
      pieces.push({ param: name });
      i = end;
      continue;
    }
    text += char;
  }
  if (text) pieces.push({ text });
  return pieces;
}

/** Pieces back into a template string. */
export function joinPieces(pieces: Piece[]): string {
  return pieces.map((piece) => ('param' in piece ? `{${piece.param}}` : escapeBraces(piece.text))).join('');
}

/** The parameters a template string names (none when it does not parse). */
export function placeholderNames(template: string): string[] {
  const pieces = parsePlaceholders(template);
  return Array.isArray(pieces) ? pieces.flatMap((piece) => ('param' in piece ? [piece.param] : [])) : [];
}

/** The literal text of a template string without parameters (undefined when it has some, or does not parse). */
export function literalText(template: string): string | undefined {
  const pieces = parsePlaceholders(template);
  if (!Array.isArray(pieces) || pieces.some((piece) => 'param' in piece)) return undefined;
  return pieces.map((piece) => (piece as { text: string }).text).join('');
}

/** `template` with every occurrence of the literal `value` in its text made `{name}` (never inside a placeholder). */
export function replaceValue(template: string, value: string, name: string): string {
  if (!value) return template;
  const pieces = parsePlaceholders(template);
  if (!Array.isArray(pieces)) return template;
  const out: Piece[] = [];
  for (const piece of pieces) {
    if ('param' in piece) {
      out.push(piece);
      continue;
    }
    const parts = piece.text.split(value);
    parts.forEach((part, i) => {
      if (i > 0) out.push({ param: name });
      if (part) out.push({ text: part });
    });
  }
  return joinPieces(out);
}

/** `template` with the placeholder `{from}` renamed `{to}`. */
export function renamePlaceholder(template: string, from: string, to: string): string {
  const pieces = parsePlaceholders(template);
  if (!Array.isArray(pieces)) return template;
  return joinPieces(pieces.map((piece) => ('param' in piece && piece.param === from ? { param: to } : piece)));
}

/** Fills a template string: each `{name}` from `lookup`; an error names the first unknown one. */
export function fillPlaceholders(template: string, lookup: (name: string) => string | undefined): { text: string } | { error: string } {
  const pieces = parsePlaceholders(template);
  if (!Array.isArray(pieces)) return pieces;
  let text = '';
  for (const piece of pieces) {
    if ('text' in piece) {
      text += piece.text;
      continue;
    }
    const value = lookup(piece.param);
    if (value === undefined) return { error: `The skill has no parameter {${piece.param}}.` };
    text += value;
  }
  return { text };
}

const hasOwn = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);

function isOnly(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && hasOwn(value, key);
}

export const isElement = (value: unknown): value is ElementLocatorTemplate => isOnly(value, '$element');
export const isTab = (value: unknown): value is TabTemplate => isOnly(value, '$tab');
export const isFrom = (value: unknown): value is FromResultTemplate => isOnly(value, '$from');
/** A reference object (`$element`, `$tab`, `$from`). */
export const isReference = (value: unknown): value is ElementLocatorTemplate | TabTemplate | FromResultTemplate => isElement(value) || isTab(value) || isFrom(value);

/** A template with every plain string mapped (reference objects left whole). */
export function mapStrings(template: Template, map: (text: string) => Template): Template {
  if (typeof template === 'string') return map(template);
  if (template === null || typeof template !== 'object' || isReference(template)) return template;
  if (Array.isArray(template)) return template.map((item) => mapStrings(item, map));
  return Object.fromEntries(Object.entries(template).map(([key, item]) => [key, mapStrings(item as Template, map)]));
}

/** Every value of a template, depth first (reference objects as one value). */
export function eachValue(template: Template, visit: (value: Template) => void): void {
  visit(template);
  if (template === null || typeof template !== 'object' || isReference(template)) return;
  for (const item of Array.isArray(template) ? template : Object.values(template)) eachValue(item as Template, visit);
}

/** The steps a template's references read (`$element`, `$tab` and `$from` with a step). */
export function stepsReferenced(template: Template): number[] {
  const steps: number[] = [];
  eachValue(template, (value) => {
    if (isElement(value)) steps.push(value.$element.step);
    else if (isFrom(value)) steps.push(value.$from.step);
    else if (isTab(value) && 'step' in value.$tab) steps.push(value.$tab.step);
  });
  return steps;
}

/** A template with every reference's step mapped. */
export function mapReferenceSteps(template: Template, map: (step: number) => number): Template {
  if (isElement(template)) return { $element: { ...template.$element, step: map(template.$element.step) } };
  if (isFrom(template)) return { $from: { ...template.$from, step: map(template.$from.step) } };
  if (isTab(template)) return 'step' in template.$tab ? { $tab: { ...template.$tab, step: map(template.$tab.step) } } : template;
  if (template === null || typeof template !== 'object') return template;
  if (Array.isArray(template)) return template.map((item) => mapReferenceSteps(item, map));
  return Object.fromEntries(Object.entries(template).map(([key, item]) => [key, mapReferenceSteps(item as Template, map)]));
}

/**
 * Element parameters: a JSON Schema node marked `"x-mcp-type": "HTMLElement"` (as Angular's own
 * dev-mode tools and chrome-devtools-mcp mark them) takes a DOM element. A model cannot send one, so
 * it is offered a string instead, "a reference from an earlier result, or a CSS selector", and the
 * page side turns that string back into the element before the tool runs.
 *
 * Marks are honoured at the top level and under `properties`, `items` (one schema or a list),
 * `prefixItems`, `additionalProperties`, `anyOf`, `oneOf` and `allOf`.
 *
 * This file must stay free of imports: it is bundled into the page's MAIN world.
 */

type Schema = Record<string, unknown>;

/** What an element parameter says to the model, before the page's own description of it. */
export const ELEMENT_PARAM_NOTE =
  'An element of the page: its reference from an earlier result (the "ref" value, like "@k3f9q2.7"), or a CSS selector.';

/** True when a schema node asks for a DOM element. */
export function isElementSchema(node: unknown): boolean {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return false;
  const mark = (node as Schema)['x-mcp-type'];
  return mark === 'HTMLElement' || mark === 'Element';
}

const MAX_DEPTH = 32;

function isSchema(value: unknown): value is Schema {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

/** True when the schema has an element parameter anywhere. */
export function hasElementParams(schema: unknown, depth = 0): boolean {
  if (!isSchema(schema) || depth > MAX_DEPTH) return false;
  if (isElementSchema(schema)) return true;
  return children(schema).some((child) => hasElementParams(child, depth + 1));
}

function children(schema: Schema): unknown[] {
  const out: unknown[] = [];
  if (isSchema(schema.properties)) out.push(...Object.values(schema.properties));
  if (Array.isArray(schema.items)) out.push(...schema.items);
  else if (schema.items !== undefined) out.push(schema.items);
  if (Array.isArray(schema.prefixItems)) out.push(...schema.prefixItems);
  if (isSchema(schema.additionalProperties)) out.push(schema.additionalProperties);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(schema[key])) out.push(...(schema[key] as unknown[]));
  return out;
}

/**
 * The schema as the model is offered it: each element node becomes a string with the note (and
 * the page's own description after it). Returns the same object when there is nothing to change.
 */
export function toModelSchema<T>(schema: T, depth = 0): T {
  if (!isSchema(schema) || depth > MAX_DEPTH) return schema;
  if (isElementSchema(schema)) {
    const own = typeof schema.description === 'string' && schema.description.trim() ? ` ${schema.description.trim()}` : '';
    return { type: 'string', minLength: 1, description: `${ELEMENT_PARAM_NOTE}${own}` } as T;
  }
  if (!hasElementParams(schema)) return schema;
  const out: Schema = { ...schema };
  if (isSchema(schema.properties)) {
    const props: Schema = {};
    for (const [key, value] of Object.entries(schema.properties)) props[key] = toModelSchema(value, depth + 1);
    out.properties = props;
  }
  if (Array.isArray(schema.items)) out.items = schema.items.map((s) => toModelSchema(s, depth + 1));
  else if (schema.items !== undefined) out.items = toModelSchema(schema.items, depth + 1);
  if (Array.isArray(schema.prefixItems)) out.prefixItems = schema.prefixItems.map((s) => toModelSchema(s, depth + 1));
  if (isSchema(schema.additionalProperties)) out.additionalProperties = toModelSchema(schema.additionalProperties, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as unknown[]).map((s) => toModelSchema(s, depth + 1));
  }
  // An element node typed "object" in a branch is now a string: the parent's own `type` must allow it.
  return out as T;
}

function acceptsPlainStrings(schema: Schema): boolean {
  const type = schema.type;
  return type === 'string' || (Array.isArray(type) && type.includes('string'));
}

/**
 * Replaces, in a tool's input, every string at an element position of `schema` by the element
 * `resolve` gives for it (which throws, worded for the model, when it cannot). Where an `anyOf` /
 * `oneOf` also allows plain strings, only strings written like references are resolved. Returns a
 * new input; the one given is not changed.
 */
export function resolveElementParams(
  input: unknown,
  schema: unknown,
  resolve: (text: string, path: string) => unknown,
  looksLikeRef: (text: string) => boolean,
  path = '',
  depth = 0,
): unknown {
  if (!isSchema(schema) || depth > MAX_DEPTH) return input;
  if (isElementSchema(schema)) return typeof input === 'string' ? resolve(input, path || 'input') : input;
  if (!hasElementParams(schema)) return input;
  let value = input;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    if (typeof value === 'string') {
      const marked = branches.some((b) => isElementSchema(b));
      if (!marked) continue;
      const plain = branches.some((b) => isSchema(b) && !isElementSchema(b) && acceptsPlainStrings(b));
      if (!plain || looksLikeRef(value)) return resolve(value, path || 'input');
      continue;
    }
    for (const branch of branches) value = resolveElementParams(value, branch, resolve, looksLikeRef, path, depth + 1);
  }
  if (Array.isArray(value)) {
    const items = schema.items;
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(items) ? items : undefined;
    return value.map((item, i) => {
      const itemSchema = prefix && i < prefix.length ? prefix[i] : Array.isArray(items) ? undefined : items;
      return resolveElementParams(item, itemSchema, resolve, looksLikeRef, `${path}[${i}]`, depth + 1);
    });
  }
  if (value && typeof value === 'object') {
    const props = isSchema(schema.properties) ? schema.properties : {};
    const extra = isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const itemSchema = Object.prototype.hasOwnProperty.call(props, key) ? props[key] : extra;
      out[key] = resolveElementParams(item, itemSchema, resolve, looksLikeRef, path ? `${path}.${key}` : key, depth + 1);
    }
    return out;
  }
  return value;
}

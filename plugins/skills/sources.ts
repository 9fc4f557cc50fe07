import type { ResultShape, TabTemplate } from './types';

/**
 * What earlier results of a run gave: tab ids (`$tab`), other ids (`$from`), the results'
 * shapes. Pure functions over the outputs as stored (JSON-safe values).
 */

/** Paths deeper than this are not searched. */
const MAX_DEPTH = 12;
/** Values visited per output at most (a result is capped at 60,000 characters anyway). */
const MAX_VISITS = 20_000;

/** An argument that names a tab: `tab_id`, `tabId`, `tab`. */
export const TAB_KEY = /^(tab_?id|tab)$/i;
/** A result's key that may hold a tab id (the tab a step opened or acted in). */
const TAB_RESULT_KEY = /^(tab_?id|id)$/i;
/** Keys whose values are ids even when they look like words. */
const ID_KEY = /(^id$|_id$|Id$|^(name|path|file|file_?name|url|key|token|handle|slug)$)/;

type Path = Array<string | number>;

/** Each leaf of `output` with its path (own properties only; `__proto__` is just a key). */
function leaves(output: unknown, visit: (value: unknown, path: Path) => boolean | void): void {
  let visits = 0;
  const walk = (value: unknown, path: Path): boolean => {
    if (++visits > MAX_VISITS || path.length > MAX_DEPTH) return false;
    if (value !== null && typeof value === 'object') {
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
      for (const [key, item] of entries) if (walk(item, [...path, key])) return true;
      return false;
    }
    return visit(value, path) === true;
  };
  walk(output, []);
}

/** The first path in `output` whose leaf is `value` and whose key passes `key` (or undefined). */
export function findPath(output: unknown, value: unknown, key: (name: string | number | undefined) => boolean): Path | undefined {
  let found: Path | undefined;
  leaves(output, (leaf, path) => {
    if (leaf === value && key(path[path.length - 1])) {
      found = path;
      return true;
    }
  });
  return found;
}

/** The value at `path` in `output` (own properties only), or undefined. */
export function valueAt(output: unknown, path: Path): unknown {
  let value: unknown = output;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/** Where a tab id comes from, given the outputs of the steps before (`earlier`) and of the whole run. */
export function tabSource(id: number, earlier: unknown[], all: unknown[], userTabId: number | undefined): TabTemplate | undefined {
  if (userTabId !== undefined && id === userTabId) return { $tab: { user: true } };
  for (let step = 0; step < earlier.length; step++) {
    const path = findPath(earlier[step], id, (key) => typeof key === 'string' && TAB_RESULT_KEY.test(key));
    if (path) return { $tab: { step, path } };
  }
  for (const output of all) {
    const url = urlOfTab(output, id);
    if (url) return { $tab: { url } };
  }
  return undefined;
}

/** The address prefix (origin and `/`) of an object in `output` that has this tab id and a `url`. */
function urlOfTab(output: unknown, id: number): string | undefined {
  let found: string | undefined;
  const walk = (value: unknown, depth: number) => {
    if (found || depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
    if (!Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      const hasId = Object.keys(record).some((key) => TAB_RESULT_KEY.test(key) && record[key] === id);
      if (hasId && typeof record.url === 'string') found = sitePrefix(record.url);
      if (found) return;
    }
    for (const item of Array.isArray(value) ? value : Object.values(value)) walk(item, depth + 1);
  };
  walk(output, 0);
  return found;
}

/** `https://shop.example/` for an http(s) address; undefined for anything else. */
export function sitePrefix(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? `${parsed.origin}/` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether an argument is an id an earlier result may have given: a string of 4+ characters
 * without spaces that has a digit or sits under an id-like key, or an integer of 4+ digits
 * under an id-like key. Never `true`, `1` or a word like "left".
 */
export function idLike(value: unknown, key: string | undefined): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) >= 1000 && key !== undefined && ID_KEY.test(key);
  if (typeof value !== 'string' || value.length < 4 || value.length > 500 || /\s/.test(value)) return false;
  return /\d/.test(value) || (key !== undefined && ID_KEY.test(key));
}

/** An earlier step's output path that gave this id (the earliest: the step that made it). */
export function fromSource(value: string | number, earlier: unknown[]): { step: number; path: Path } | undefined {
  for (let step = 0; step < earlier.length; step++) {
    const path = findPath(earlier[step], value, (key) => typeof value === 'string' || (typeof key === 'string' && ID_KEY.test(key)));
    if (path && path.length) return { step, path };
  }
  return undefined;
}

function typeOf(value: unknown): Exclude<ResultShape, Record<string, ResultShape>> | 'object' {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return type;
  return 'object';
}

/** A result's shape: its JSON type; for an object, its top-level keys and their types (objects as `{}`). */
export function resultShape(output: unknown): ResultShape {
  const type = typeOf(output);
  if (type !== 'object') return type;
  const shape: Record<string, ResultShape> = {};
  for (const [key, value] of Object.entries(output as Record<string, unknown>)) {
    const inner = typeOf(value);
    Object.defineProperty(shape, key, { value: inner === 'object' ? {} : inner, enumerable: true, writable: true, configurable: true });
  }
  return shape;
}

/** Whether `output` still has the shape (extra keys allowed; a missing key or a changed type does not match). */
export function shapeMatches(shape: ResultShape | undefined, output: unknown): boolean {
  if (shape === undefined) return true;
  const check = (expected: ResultShape, value: unknown, depth: number): boolean => {
    if (depth > 20) return false;
    const type = typeOf(value);
    if (typeof expected === 'string') return type === expected;
    if (type !== 'object') return false;
    return Object.entries(expected).every(([key, inner]) => Object.prototype.hasOwnProperty.call(value, key) && check(inner, (value as Record<string, unknown>)[key], depth + 1));
  };
  return check(shape, output, 0);
}

/**
 * How `execute_script` reads `code`, the same in the page and in the sandbox: a single expression
 * gives its value (`document.title`, `[1, 2].map(x => x * 2)`); anything else is the body of an
 * async function, where `return` gives the value and `await` may be used. Trailing semicolons
 * are ignored, so `document.title;` is still an expression.
 *
 * This is source text, not a function, because it runs inside QuickJS as well as in the page's
 * main world (where it is bundled into the injected runner): both compile with `Function`, so the
 * code is compiled, never run twice, before we know which form it is.
 */
export const COMPILE_USER_CODE_SOURCE = String.raw`function compileUserCode(code) {
  var AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  var expression = String(code).replace(/[\s;]+$/, '');
  try {
    return new AsyncFunction('return (\n' + expression + '\n);');
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return new AsyncFunction(String(code));
}`;

/**
 * The same rules as `core/registry/json-safe.ts` (the reference implementation's), as source for
 * the QuickJS sandbox, which has no DOM and cannot import modules. A unit test checks that both
 * give the same output.
 */
export const JSON_SAFE_SOURCE = String.raw`function toJsonSafe(value) {
  var ancestors = [];
  function name(obj) {
    try {
      var ctor = obj.constructor;
      if (ctor && typeof ctor.name === 'string' && ctor.name) return ctor.name;
    } catch (e) {}
    return Object.prototype.toString.call(obj).slice(8, -1) || 'Object';
  }
  function convert(v) {
    switch (typeof v) {
      case 'string': case 'boolean': return v;
      case 'number': return isFinite(v) ? v : String(v);
      case 'bigint': return v.toString();
      case 'undefined': return undefined;
      case 'symbol': return v.toString();
      case 'function': return '<Function object>';
    }
    if (v === null) return null;
    if (ancestors.indexOf(v) >= 0) return '<Circular reference>';
    var out, i;
    if (Array.isArray(v)) {
      ancestors.push(v);
      out = [];
      for (i = 0; i < v.length; i++) { var c = convert(v[i]); out.push(c === undefined ? null : c); }
      ancestors.pop();
      return out;
    }
    var proto = Object.getPrototypeOf(v);
    if (proto !== null && proto !== Object.prototype) return '<' + name(v) + ' instance>';
    ancestors.push(v);
    out = {};
    var keys = Object.keys(v);
    for (i = 0; i < keys.length; i++) {
      var item;
      try { item = v[keys[i]]; } catch (e) { item = '<Error reading property: ' + String(e && e.message || e) + '>'; }
      var converted = convert(item);
      if (converted !== undefined) out[keys[i]] = converted;
    }
    ancestors.pop();
    return out;
  }
  return convert(value);
}`;

/** What running user code gave, as plain data. */
export type CodeOutcome =
  | { ok: true; value?: unknown; logs?: string[] }
  | { ok: false; kind: 'syntax' | 'thrown' | 'csp' | 'timeout' | 'memory' | 'pending' | 'missing'; error: string; logs?: string[] };

/** Describes a thrown value in one line: `TypeError: x is not a function`. */
export function describeThrown(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) {
    const e = error as { name?: unknown; message?: unknown };
    const name = typeof e.name === 'string' && e.name ? e.name : 'Error';
    return `${name}: ${String(e.message)}`;
  }
  try {
    return `Uncaught ${typeof error === 'string' ? JSON.stringify(error) : String(error)}`;
  } catch {
    return 'Uncaught exception';
  }
}

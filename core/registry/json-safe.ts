/**
 * Makes any value safe to send as JSON, by the rules of the reference implementation
 * (chrome-devtools-mcp's third-party tools), which pages are written against:
 * - a circular reference becomes `"<Circular reference>"`;
 * - an object whose prototype is neither `Object.prototype` nor null (Map, Date, class
 *   instances) becomes `"<Name instance>"`; arrays stay arrays;
 * - a function becomes `"<Function object>"`;
 * - `undefined` is left out of objects (and becomes null in arrays, as JSON.stringify does);
 * - a DOM node is referenced by a short description, never serialized.
 *
 * `options.element`, given on the page side, turns a DOM element into what the model may refer to
 * later (an element reference, `core/page/element-refs.ts`) instead of a description.
 *
 * This file must stay free of imports: it is also bundled into the page's main world.
 */
export function toJsonSafe(value: unknown, options: { element?: (element: Element) => unknown } = {}): unknown {
  const ancestors: object[] = [];

  function convert(v: unknown): unknown {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        return Number.isFinite(v) ? v : String(v);
      case 'bigint':
        return v.toString();
      case 'undefined':
        return undefined;
      case 'symbol':
        return v.toString();
      case 'function':
        return '<Function object>';
    }
    if (v === null) return null;
    const obj = v as object;
    if (ancestors.includes(obj)) return '<Circular reference>';
    if (options.element && isElement(obj)) return options.element(obj as Element);
    const node = describeNode(obj);
    if (node !== undefined) return node;
    if (Array.isArray(obj)) {
      ancestors.push(obj);
      const out = obj.map((item) => {
        const c = convert(item);
        return c === undefined ? null : c;
      });
      ancestors.pop();
      return out;
    }
    const proto = Object.getPrototypeOf(obj);
    if (proto !== null && proto !== Object.prototype) {
      // Objects from another realm (an iframe's plain objects) have that realm's Object.prototype.
      if (!isForeignPlainObject(proto)) return `<${constructorName(obj)} instance>`;
    }
    ancestors.push(obj);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(obj)) {
      let item: unknown;
      try {
        item = (obj as Record<string, unknown>)[key];
      } catch (error) {
        item = `<Error reading property: ${String((error as Error)?.message ?? error)}>`;
      }
      const c = convert(item);
      if (c !== undefined) out[key] = c;
    }
    ancestors.pop();
    return out;
  }

  const result = convert(value);
  return result;
}

function isForeignPlainObject(proto: object): boolean {
  return Object.getPrototypeOf(proto) === null && typeof (proto as { hasOwnProperty?: unknown }).hasOwnProperty === 'function'
    && Object.prototype.toString.call(proto) === '[object Object]' && constructorName(proto) === 'Object';
}

function constructorName(obj: object): string {
  try {
    const ctor = (obj as { constructor?: { name?: unknown } }).constructor;
    if (ctor && typeof ctor.name === 'string' && ctor.name) return ctor.name;
  } catch {
    // A hostile getter: fall through to the tag.
  }
  return Object.prototype.toString.call(obj).slice(8, -1) || 'Object';
}

function isElement(obj: object): boolean {
  const ElementCtor = (globalThis as { Element?: typeof Element }).Element;
  return Boolean(ElementCtor) && obj instanceof ElementCtor!;
}

/** A short, stable description of a DOM node, or undefined when `obj` is not one. */
function describeNode(obj: object): string | undefined {
  const NodeCtor = (globalThis as { Node?: typeof Node }).Node;
  if (!NodeCtor || !(obj instanceof NodeCtor)) return undefined;
  const node = obj as Node;
  if (node.nodeType === 1) {
    const el = node as Element;
    let text = `<${el.tagName.toLowerCase()}`;
    if (el.id) text += `#${el.id}`;
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : [];
    if (classes.length) text += '.' + classes.slice(0, 3).join('.');
    return `${text}> element`;
  }
  if (node.nodeType === 3) return `<text node: ${JSON.stringify((node.textContent ?? '').slice(0, 80))}>`;
  if (node.nodeType === 9) return '<document>';
  return `<${node.nodeName} node>`;
}

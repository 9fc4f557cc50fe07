// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { createElementRefs, elementRefsFor, ELEMENT_REFS_KEY, MAX_ELEMENT_REFS, selectorOf } from '@/core/page/element-refs';
import { ELEMENT_PARAM_NOTE, hasElementParams, resolveElementParams, toModelSchema } from '@/core/page/element-schema';
import { toJsonSafe } from '@/core/registry/json-safe';

type Win = Window & typeof globalThis;
const win = window as unknown as Win;

describe('element references (core/page/element-refs)', () => {
  beforeEach(() => {
    document.body.innerHTML = `
      <main><button id="buy" type="button">Buy now</button>
      <ul><li class="item">Tea</li><li class="item">Milk</li></ul>
      <label>Email <input name="email"></label></main>`;
  });

  it('gives an element one reference and what identifies it: tag, id, a short text, a selector that finds it', () => {
    const refs = createElementRefs(win);
    const buy = document.getElementById('buy')!;
    const view = refs.describe(buy);
    expect(view).toEqual({ ref: expect.stringMatching(/^@[a-z0-9]+\.1$/), tag: 'button', id: 'buy', text: 'Buy now', selector: '#buy' });
    expect(refs.refOf(buy)).toBe(view.ref);
    const milk = document.querySelectorAll('li')[1]!;
    const milkView = refs.describe(milk);
    expect(milkView.text).toBe('Milk');
    expect(document.querySelector(milkView.selector)).toBe(milk);
    // An input is called by its label.
    expect(refs.describe(document.querySelector('input')!).text).toBe('Email');
  });

  it('resolves its own references and CSS selectors; stale, unknown, foreign and invalid ones are clear errors', () => {
    const refs = createElementRefs(win);
    const milk = document.querySelectorAll('li')[1]!;
    const ref = refs.refOf(milk);
    expect(refs.resolve(ref)).toBe(milk);
    expect(refs.resolve(' ul > li:nth-of-type(2) ')).toBe(milk);
    expect(() => refs.resolve(`@${refs.token}.999`)).toThrow(/Unknown element reference/);
    expect(() => refs.resolve('@zzzzzz.1')).toThrow(/belongs to another page/);
    // Another document's registry (another frame, a reload) never resolves this one's references.
    const other = createElementRefs(win);
    expect(() => other.resolve(ref)).toThrow(/belongs to another page/);
    expect(() => refs.resolve('@nope')).toThrow(/not an element reference/);
    expect(() => refs.resolve('li[')).toThrow(/nor a valid CSS selector/);
    expect(() => refs.resolve('#missing')).toThrow(/No element of the page matches/);
    milk.remove();
    expect(() => refs.resolve(ref)).toThrow(/is stale: that element was removed/);
  });

  it('keeps at most MAX_ELEMENT_REFS references, forgetting the oldest', () => {
    const refs = createElementRefs(win);
    const first = refs.refOf(document.createElement('div'));
    for (let i = 0; i < MAX_ELEMENT_REFS; i++) refs.refOf(document.createElement('span'));
    expect(() => refs.resolve(first)).toThrow(/Unknown element reference/);
  });

  it('is one registry per window document, shared by the extension\'s page-side scripts', () => {
    delete (window as any)[ELEMENT_REFS_KEY];
    const a = elementRefsFor(win);
    expect(elementRefsFor(win)).toBe(a);
  });

  it('makes a selector path when there is no unique id', () => {
    document.body.innerHTML = '<div id="x"><p>a</p><p><b>b</b></p></div><div id="x"></div>';
    const b = document.querySelector('b')!;
    const selector = selectorOf(b, document);
    expect(document.querySelectorAll(selector)).toHaveLength(1);
    expect(document.querySelector(selector)).toBe(b);
  });

  it('toJsonSafe turns elements into references on request, and describes them otherwise', () => {
    const refs = createElementRefs(win);
    const buy = document.getElementById('buy')!;
    expect(toJsonSafe({ host: buy }, { element: (e) => refs.describe(e) })).toEqual({ host: expect.objectContaining({ ref: refs.refOf(buy), tag: 'button' }) });
    expect(toJsonSafe({ host: buy })).toEqual({ host: '<button#buy> element' });
  });
});

describe('element parameters (core/page/element-schema)', () => {
  const marked = { type: 'object', description: 'The element.', 'x-mcp-type': 'HTMLElement' };

  it('offers a marked node as a string (reference or selector), at the top, in items and in anyOf/oneOf/allOf', () => {
    const schema = {
      type: 'object',
      properties: {
        target: marked,
        many: { type: 'array', items: marked },
        maybe: { anyOf: [marked, { type: 'null' }] },
        one: { oneOf: [{ type: 'object', 'x-mcp-type': 'HTMLElement' }] },
        all: { allOf: [{ 'x-mcp-type': 'HTMLElement' }] },
        plain: { type: 'number' },
      },
    };
    const model = toModelSchema(schema) as any;
    expect(model.properties.target).toEqual({ type: 'string', minLength: 1, description: `${ELEMENT_PARAM_NOTE} The element.` });
    expect(model.properties.many.items.type).toBe('string');
    expect(model.properties.maybe.anyOf[0].type).toBe('string');
    expect(model.properties.maybe.anyOf[1]).toEqual({ type: 'null' });
    expect(model.properties.one.oneOf[0].type).toBe('string');
    expect(model.properties.all.allOf[0].type).toBe('string');
    expect(model.properties.plain).toBe(schema.properties.plain);
    expect(JSON.stringify(model)).not.toContain('x-mcp-type');
    // The page's schema is left as it was.
    expect(schema.properties.target['x-mcp-type']).toBe('HTMLElement');
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    expect(toModelSchema(plain)).toBe(plain);
    expect(hasElementParams(plain)).toBe(false);
    expect(toModelSchema(marked)).toMatchObject({ type: 'string' });
  });

  it('gives the page the elements at the marked places, and leaves other strings alone', () => {
    const schema = {
      type: 'object',
      properties: {
        target: marked,
        many: { type: 'array', items: marked },
        either: { anyOf: [marked, { type: 'string' }] },
        name: { type: 'string' },
      },
    };
    const resolve = (text: string) => ({ element: text });
    const looksLikeRef = (text: string) => text.startsWith('@');
    const input = { target: '@a.1', many: ['#x', '@a.2'], either: 'just text', name: '@a.3' };
    expect(resolveElementParams(input, schema, resolve, looksLikeRef)).toEqual({
      target: { element: '@a.1' },
      many: [{ element: '#x' }, { element: '@a.2' }],
      either: 'just text',
      name: '@a.3',
    });
    expect(resolveElementParams({ either: '@a.9' }, schema, resolve, looksLikeRef)).toEqual({ either: { element: '@a.9' } });
    expect(input.target).toBe('@a.1');
    expect(() => resolveElementParams({ target: '@gone' }, schema, () => { throw new Error('stale'); }, looksLikeRef)).toThrow('stale');
  });
});

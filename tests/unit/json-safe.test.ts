// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { toJsonSafe } from '@/core/registry/json-safe';

class Cart {
  items = [1];
}

describe('toJsonSafe (the reference rules)', () => {
  it('keeps plain data as it is', () => {
    const value = { a: 1, b: 'x', c: [true, null, { d: 2 }], e: Object.create(null) };
    expect(toJsonSafe(value)).toEqual({ a: 1, b: 'x', c: [true, null, { d: 2 }], e: {} });
  });

  it('replaces circular references, class instances, Maps, Dates and functions', () => {
    const a: Record<string, unknown> = { cart: new Cart(), map: new Map([[1, 2]]), when: new Date(0), fn() {} };
    a.self = a;
    a.list = [a];
    expect(toJsonSafe(a)).toEqual({
      cart: '<Cart instance>',
      map: '<Map instance>',
      when: '<Date instance>',
      fn: '<Function object>',
      self: '<Circular reference>',
      list: ['<Circular reference>'],
    });
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(toJsonSafe({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it('handles undefined, numbers JSON cannot hold, bigint and symbols', () => {
    expect(toJsonSafe(undefined)).toBeUndefined();
    expect(toJsonSafe({ u: undefined, n: NaN, i: Infinity, b: 10n, s: Symbol('k') })).toEqual({ n: 'NaN', i: 'Infinity', b: '10', s: 'Symbol(k)' });
    expect(toJsonSafe([undefined, () => 1])).toEqual([null, '<Function object>']);
  });

  it('references DOM elements instead of serializing them', () => {
    const el = document.createElement('button');
    el.id = 'buy';
    el.className = 'btn primary';
    expect(toJsonSafe({ el, text: document.createTextNode('hello') })).toEqual({
      el: '<button#buy.btn.primary> element',
      text: '<text node: "hello">',
    });
  });

  it('survives getters that throw', () => {
    const hostile = Object.defineProperty({}, 'boom', { enumerable: true, get: () => { throw new Error('nope'); } });
    expect(toJsonSafe(hostile)).toEqual({ boom: '<Error reading property: nope>' });
  });
});

// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { patchNodes } from '@/core/ui/patch-nodes';

function nodes(html: string): Node[] {
  const template = document.createElement('template');
  template.innerHTML = html;
  return Array.from(template.content.childNodes);
}

function host(html: string): HTMLElement {
  const el = document.createElement('div');
  el.innerHTML = html;
  return el;
}

describe('patchNodes', () => {
  it('keeps the elements of a growing table and changes only its text', () => {
    const el = host('<p>kept</p>\n<table><tbody><tr><td>a</td></tr></tbody></table>\n');
    const [kept, , table] = Array.from(el.childNodes);
    const cell = el.querySelector('td')!;
    const text = cell.firstChild!;
    patchNodes(el, 1, nodes('\n<table><tbody><tr><td>ab</td></tr><tr><td>c</td></tr></tbody></table>\n'));
    expect(el.innerHTML).toBe('<p>kept</p>\n<table><tbody><tr><td>ab</td></tr><tr><td>c</td></tr></tbody></table>\n');
    expect(el.childNodes[0]).toBe(kept);
    expect(el.childNodes[2]).toBe(table);
    expect(el.querySelector('td')).toBe(cell);
    expect(cell.firstChild).toBe(text);
  });

  it('replaces a node of another tag or type, syncs attributes and drops what is no longer there', () => {
    const el = host('<p>one</p><ul><li>x</li></ul><a href="https://a.example/" title="t">link</a>tail');
    const link = el.querySelector('a')!;
    patchNodes(el, 0, nodes('<h2>one</h2><ol start="3"><li>x</li></ol><a href="https://b.example/" rel="noopener">link</a>'));
    expect(el.innerHTML).toBe('<h2>one</h2><ol start="3"><li>x</li></ol><a href="https://b.example/" rel="noopener">link</a>');
    expect(el.querySelector('a')).toBe(link);
    patchNodes(el, 1, []);
    expect(el.innerHTML).toBe('<h2>one</h2>');
  });

  it('leaves the nodes before `from` alone, even when they would differ', () => {
    const el = host('<p>a</p><p>b</p>');
    patchNodes(el, 1, nodes('<p>c</p><p>d</p>'));
    expect(el.innerHTML).toBe('<p>a</p><p>c</p><p>d</p>');
  });
});

// get_tab_content's reader it injects (on happy-dom); the pages it may not read are in tests/unit/tab-access.test.ts.
import { describe, expect, test } from 'vitest';
import { readPage } from '@/core/extract/page';
import { cleanListedElements, MAX_LISTED_ELEMENTS } from '@/plugins/tabs/content';
import { tabsSchemas } from '@/plugins/tabs/schemas';
import { parseHtml } from '@/tests/unit/helpers/dom';

describe('the injected reader', () => {
  test('an HTML page: its Markdown, title and what part was read', () => {
    const doc = parseHtml('<html><head><title>Inbox (3)</title></head><body><nav>Menu items here</nav><main><h2>Messages</h2><p>Three new messages are waiting for you in the inbox, the oldest from Tuesday.</p><p>Open one to read it, or archive them all at once with the button below the list.</p><p>Messages older than thirty days are moved to the archive automatically every night.</p></main></body></html>');
    const reading = readPage(doc, {});
    expect(reading).toMatchObject({ ok: true, title: 'Inbox (3)', usedSelector: 'main' });
    expect(reading.ok && reading.markdown).toContain('Three new messages');
    expect(reading.ok && reading.markdown).not.toContain('Menu items here');
  });

  test('a selector that matches nothing is reported as a selector error', () => {
    expect(readPage(parseHtml('<p>x</p>'), { selector: '#nope' })).toMatchObject({ ok: false, kind: 'selector' });
  });
});

test('get_tab_content keeps the contract\'s parameters', () => {
  // The contract's four, and element_refs (optional: element references on request, issue 10).
  expect(Object.keys(tabsSchemas.get_tab_content.properties)).toEqual(['tab_id', 'selector', 'element_refs', 'prompt', 'max_length']);
  expect(tabsSchemas.get_tab_content.required).toEqual(['tab_id']);
});

describe('element_refs: the listed elements', () => {
  test('are page data: checked for shape, cut in size and count', () => {
    const good = { ref: '@abcd12.3', tag: 'button', id: 'buy', text: 'Buy now', selector: '#buy' };
    expect(cleanListedElements([good, { ...good, ref: 'not-a-ref' }, { tag: 'a' }, null, 'x'])).toEqual([good]);
    expect(cleanListedElements({ not: 'a list' })).toEqual([]);
    const long = cleanListedElements([{ ...good, text: 'x'.repeat(1000), selector: 's'.repeat(1000) }])[0]!;
    expect(long.text!.length).toBe(100);
    expect(long.selector.length).toBe(400);
    expect(cleanListedElements(Array.from({ length: 1000 }, () => good))).toHaveLength(MAX_LISTED_ELEMENTS);
  });

  test('are asked for with element_refs', () => {
    expect(tabsSchemas.get_tab_content.properties.element_refs.type).toBe('boolean');
  });
});

// @vitest-environment happy-dom
// XSS in the page-tool consent card and tool lists: everything there is the page's words.
import { mount } from '@vue/test-utils';
import { describe, expect, test } from 'vitest';
import PageToolsConsent from './PageToolsConsent.vue';
import PageToolsGroups from './PageToolsGroups.vue';
import type { PageTabView } from './types';

const PAYLOADS = [
  '<img src="https://beacon.example/x" onerror="globalThis.__pwned=1">',
  '<script>globalThis.__pwned=2</script>',
  '<svg onload="globalThis.__pwned=3">',
  '<a href="javascript:globalThis.__pwned=4">a</a>',
];
const all = PAYLOADS.join(' ');

const view: PageTabView = {
  tabId: 4,
  origin: 'https://evil.example',
  site: 'evil.example',
  url: `https://evil.example/${encodeURIComponent(all)}`,
  title: all,
  consent: 'pending',
  offered: false,
  discoveryMs: 1,
  updatedAt: 0,
  problems: [all],
  groups: [{ name: all, description: all, source: 'devtools', tools: PAYLOADS.map((p, i) => ({ name: p, modelName: `page4_t${i}`, description: all, title: p })) }],
};

function expectInert(root: Element): void {
  expect(root.querySelectorAll('script, img, iframe, a[href^="javascript"], [onerror], [onload]').length).toBe(0);
  expect(root.querySelectorAll('svg[onload]').length).toBe(0);
  expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined();
}

describe('page-tool surfaces render page payloads as text', () => {
  test('the consent card', () => {
    const wrapper = mount(PageToolsConsent, { props: { view }, attachTo: document.body });
    expectInert(wrapper.element);
  });

  test('the tool lists, full and compact', () => {
    for (const compact of [false, true]) {
      const wrapper = mount(PageToolsGroups, { props: { groups: view.groups, compact }, attachTo: document.body });
      expectInert(wrapper.element);
      expect(wrapper.text()).toContain('<script>');
    }
  });
});

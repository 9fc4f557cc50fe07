// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { describe, expect, test } from 'vitest';
import ChatApprovalCard from '@/components/chat/ChatApprovalCard.vue';
import { setLocale } from '@/core/ui/i18n';
import type { PendingApproval } from '@/core/approvals/gate';

const approval = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  id: 'a1',
  conversationId: 'c1',
  tool: 'run_script',
  site: 'https://shop.example',
  arguments: JSON.stringify({ code: '<img src=x onerror="alert(1)">' }, null, 2),
  reason: 'destructive',
  scope: 'call',
  askedAt: Date.now(),
  expiresAt: Date.now() + 300_000,
  ...over,
});

describe('ChatApprovalCard', () => {
  test('shows who asks, the tool, the site and the full arguments as text, never as HTML', () => {
    const wrapper = mount(ChatApprovalCard, { props: { approval: approval({ agent: 'Checkout helper' }) } });
    expect(wrapper.get('.title').text()).toBe('Sub-agent “Checkout helper” wants to run run_script on shop.example');
    expect(wrapper.get('pre.args').text()).toContain('"code": "<img src=x onerror=\\"alert(1)\\">"');
    expect(wrapper.find('img').exists()).toBe(false);
    expect(wrapper.get('[role="group"]').attributes('aria-labelledby')).toBe('approval-a1');
  });

  test('an outbound ask shows the full address and says why', () => {
    const url = 'http://127.0.0.1:9/steal?d=secret';
    const wrapper = mount(ChatApprovalCard, { props: { approval: approval({ reason: 'outbound', url, site: 'http://127.0.0.1:9', tool: 'fetch_it' }) } });
    expect(wrapper.get('.url').text()).toContain(url);
    expect(wrapper.get('.why').text()).toMatch(/read private data/);
    expect(wrapper.get('.title').text()).toBe('Sidequest wants to run fetch_it on 127.0.0.1:9');
  });

  test('Allow once, Always allow, Deny answer it', async () => {
    const wrapper = mount(ChatApprovalCard, { props: { approval: approval() } });
    const buttons = wrapper.findAll('button');
    expect(buttons.map((b) => b.text())).toEqual(['Allow once', 'Always allow', 'Deny']);
    for (const b of buttons) await b.trigger('click');
    expect(wrapper.emitted('answer')).toEqual([['once'], ['always'], ['deny']]);
  });

  test('takes the focus when it appears and gives it back to the message box once answered', async () => {
    const box = document.createElement('textarea');
    box.id = 'message-box';
    document.body.append(box);
    const wrapper = mount(ChatApprovalCard, { props: { approval: approval() }, attachTo: document.body });
    expect(document.activeElement?.getAttribute('data-answer')).toBe('once');
    await wrapper.get('button[data-answer="deny"]').trigger('click');
    await new Promise((r) => setTimeout(r, 10));
    expect(document.activeElement).toBe(box);
    wrapper.unmount();
    box.remove();
  });

  test('speaks the page language: Hebrew words around the tool and site, which stay left to right', () => {
    setLocale('he', document);
    try {
      const wrapper = mount(ChatApprovalCard, { props: { approval: approval() } });
      expect(wrapper.get('.title').text()).toBe('Sidequest רוצה להריץ את run_script באתר shop.example');
      expect(wrapper.get('.title code').attributes('dir')).toBe('ltr');
      expect(wrapper.findAll('button').map((b) => b.text())).toEqual(['לאשר פעם אחת', 'לאשר תמיד', 'לדחות']);
    } finally {
      setLocale('en', document);
    }
  });
});

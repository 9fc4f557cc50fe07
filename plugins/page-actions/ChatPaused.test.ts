// @vitest-environment happy-dom
// The sidebar's "Paused — you have the tab" panel: shown for the open conversation's paused run
// (the site, the reason as text), Resume sends resumePageActions, and it goes on resume or run end.
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { reactive } from 'vue';
import type { PausedTab } from './protocol';

const sent = vi.hoisted(() => [] as Array<{ type: string; data: unknown }>);
const listeners = vi.hoisted(() => [] as Array<(event: { conversationId: string; paused: unknown }) => void>);
const initial = vi.hoisted(() => ({ value: null as unknown }));
vi.mock('@/core/messaging/protocol', () => ({
  sendMessage: async (type: string, data: unknown) => {
    sent.push({ type, data });
    return type === 'getPagePause' ? initial.value : undefined;
  },
}));
vi.mock('@/core/ui/events', () => ({
  subscribeTo: (_type: string, listener: (event: { conversationId: string; paused: unknown }) => void) => {
    listeners.push(listener);
    return () => listeners.splice(listeners.indexOf(listener), 1);
  },
}));
const chat = vi.hoisted(() => ({ state: undefined as unknown as { activeId: string | null } }));
vi.mock('@/stores/chat', () => ({ useChatStore: () => chat.state }));

const { default: ChatPaused } = await import('./ChatPaused.vue');

const PAUSED: PausedTab = { conversationId: 'c1', tabId: 4, site: 'shop.example', reason: 'Sign in, then press Resume. <b>not bold</b>' };

beforeEach(() => {
  setActivePinia(createPinia());
  sent.length = 0;
  listeners.length = 0;
  initial.value = null;
  chat.state = reactive({ activeId: 'c1' });
});

describe('ChatPaused', () => {
  it('shows the paused run of the open conversation, with its site and reason as text, and Resume hands it back', async () => {
    initial.value = PAUSED;
    const wrapper = mount(ChatPaused);
    await flushPromises();
    expect(wrapper.get('[role="status"]').text()).toBe('Paused — you have the tab');
    expect(wrapper.get('.site').text()).toBe('On shop.example');
    expect(wrapper.get('.reason').text()).toBe('Sign in, then press Resume. <b>not bold</b>');
    expect(wrapper.find('b').exists()).toBe(false);
    await wrapper.get('button').trigger('click');
    await flushPromises();
    expect(sent.at(-1)).toEqual({ type: 'resumePageActions', data: { conversationId: 'c1' } });
    expect(wrapper.find('section').exists()).toBe(false);
  });

  it('follows the events of the open conversation only, and goes when the run goes on or ends', async () => {
    const wrapper = mount(ChatPaused);
    await flushPromises();
    expect(wrapper.find('section').exists()).toBe(false);
    listeners[0]!({ conversationId: 'other', paused: { ...PAUSED, conversationId: 'other' } });
    await flushPromises();
    expect(wrapper.find('section').exists()).toBe(false);
    listeners[0]!({ conversationId: 'c1', paused: { ...PAUSED, reason: undefined } });
    await flushPromises();
    expect(wrapper.get('.hint').text()).toBe('Do what is needed in the tab, then press Resume.');
    listeners[0]!({ conversationId: 'c1', paused: null });
    await flushPromises();
    expect(wrapper.find('section').exists()).toBe(false);
  });
});

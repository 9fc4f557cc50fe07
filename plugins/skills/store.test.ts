// @vitest-environment happy-dom
// The skills' sidebar store and message actions: `/` suggestions from the list, the model's
// proposal opens the form for the open conversation (or when it is opened), a scheduled run's
// conversation is told seen once open and done, "Save as skill" / "Update skill" under a run.
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { nextTick, reactive } from 'vue';
import type { AssistantMessage, UserMessage } from '@/core/storage/db';
import type { SkillRunInfo } from './protocol';
import { todoDraft } from './test-draft';
import type { Skill } from './types';

const sent = vi.hoisted(() => [] as Array<{ type: string; data: unknown }>);
const replies = vi.hoisted(() => ({} as Record<string, (data: unknown) => unknown>));
const listeners = vi.hoisted(() => ({} as Record<string, (event: unknown) => void>));
vi.mock('@/core/messaging/protocol', () => ({
  sendMessage: async (type: string, data: unknown) => {
    sent.push({ type, data });
    return replies[type]?.(data);
  },
}));
vi.mock('@/core/ui/events', () => ({
  subscribeTo: (type: string, listener: (event: unknown) => void) => {
    listeners[type] = listener;
    return () => delete listeners[type];
  },
}));
type ChatState = { activeId: string | null; running: boolean; visibleMessages: Array<UserMessage | AssistantMessage> };
const chat = vi.hoisted(() => ({ state: undefined as unknown as ChatState }));
vi.mock('@/stores/chat', () => ({ useChatStore: () => chat.state }));

const { useSkillsStore } = await import('./store');
const { default: SkillsMessageActions } = await import('./SkillsMessageActions.vue');

const skill = (name: string, fields: Partial<Skill> = {}): Skill => ({
  id: `id-${name}`, name, description: `About ${name}`, instruction: '', params: [], steps: [], createdAt: 0, updatedAt: 0, ...fields,
});
const user = (id: string): UserMessage => ({ id, conversationId: 'c1', seq: 0, createdAt: 0, role: 'user', text: 'Do it' });
const answer = (id: string, tools = 0): AssistantMessage => ({
  id, conversationId: 'c1', seq: 1, createdAt: 0, role: 'assistant', text: tools ? '' : 'Done.', status: 'complete',
  toolCalls: Array.from({ length: tools }, (_, i) => ({ id: `${id}-t${i}`, name: 'click', input: {} })),
});

beforeEach(() => {
  setActivePinia(createPinia());
  sent.length = 0;
  for (const key of Object.keys(replies)) delete replies[key];
  for (const key of Object.keys(listeners)) delete listeners[key];
  chat.state = reactive({ activeId: 'c1', running: false, visibleMessages: [] });
  replies['skills/list'] = () => [skill('weekly-report', { params: [{ name: 'date', example: '2026-12-07' }] }), skill('weather'), skill('orders')];
});
enableAutoUnmount(afterEach);

describe('useSkillsStore', () => {
  test('"/" suggests the skills whose names start with what follows; the detail names the parameters and their defaults', async () => {
    const store = useSkillsStore();
    store.start();
    await flushPromises();
    expect(store.suggest('/').map((s) => s.label)).toEqual(['/orders', '/weather', '/weekly-report']);
    expect(store.suggest('/we')).toEqual([
      { value: '/weather ', label: '/weather', detail: 'About weather' },
      { value: '/weekly-report ', label: '/weekly-report', detail: 'About weekly-report · date=2026-12-07' },
    ]);
    expect(store.suggest('/WE').map((s) => s.label)).toEqual(['/weather', '/weekly-report']);
    expect(store.suggest('/weather ')).toEqual([]);
    expect(store.suggest('tell me /we')).toEqual([]);
    expect(store.suggest('/nothing')).toEqual([]);
    // The 'skills' event replaces the list.
    listeners.skills!({ type: 'skills', skills: [skill('zebra')] });
    expect(store.suggest('/').map((s) => s.label)).toEqual(['/zebra']);
    store.stop();
  });

  test("the model's proposal opens the form for the open conversation; another conversation's waits until it is opened", async () => {
    const store = useSkillsStore();
    store.start();
    listeners['skills-proposal']!({ type: 'skills-proposal', conversationId: 'c2', draft: todoDraft({ fromConversation: 'c2' }) });
    expect(store.form).toBeNull();
    listeners['skills-proposal']!({ type: 'skills-proposal', conversationId: 'c1', draft: todoDraft() });
    expect(store.form).toMatchObject({ mode: 'save', conversationId: 'c1' });
    store.closeForm();
    chat.state.activeId = 'c2';
    await nextTick();
    expect(store.form).toMatchObject({ mode: 'save', conversationId: 'c2', draft: { fromConversation: 'c2' } });
    store.stop();
  });

  test('an open conversation is told seen once it is done (a scheduled run no longer counts on the badge), once', async () => {
    chat.state.running = true;
    const store = useSkillsStore();
    store.start();
    await flushPromises();
    expect(sent.filter((m) => m.type === 'skills/seen')).toEqual([]);
    chat.state.running = false;
    await nextTick();
    chat.state.activeId = 'c2';
    await nextTick();
    chat.state.activeId = 'c1';
    await nextTick();
    expect(sent.filter((m) => m.type === 'skills/seen').map((m) => m.data)).toEqual([{ conversationId: 'c1' }, { conversationId: 'c2' }]);
    store.stop();
  });

  test('openDraft: a handed-over skill run opens "Update skill" replacing that skill; a refusal becomes the panel\'s alert', async () => {
    const store = useSkillsStore();
    store.start();
    await flushPromises();
    replies['skills/draft'] = () => todoDraft({ name: 'add-todo-2' });
    await store.openDraft('c1', { skillId: 'id-weather', name: 'weather', handedOver: true });
    expect(store.form).toMatchObject({ mode: 'update', draft: { replaces: 'id-weather', name: 'weather' } });
    // The background's draft of a skill's run names the skill it replaces (from the menu too).
    replies['skills/draft'] = () => todoDraft({ name: 'orders', replaces: 'id-orders' });
    await store.openDraft('c1');
    expect(store.form).toMatchObject({ mode: 'update', draft: { replaces: 'id-orders', name: 'orders' } });
    replies['skills/draft'] = () => todoDraft();
    await store.openDraft('c1');
    expect(store.form).toMatchObject({ mode: 'save', draft: { name: 'add-todo' } });
    expect(store.form!.draft.replaces).toBeUndefined();

    replies['skills/draft'] = () => {
      throw new Error('The run called no tools.');
    };
    await store.openDraft('c1');
    expect(store.note).toEqual({ kind: 'error', text: 'This run cannot be saved as a skill: The run called no tools.' });
    store.stop();
  });
});

describe('SkillsMessageActions', () => {
  async function mountActions(info: SkillRunInfo | null, messages: Array<UserMessage | AssistantMessage>) {
    replies['skills/runInfo'] = () => info;
    chat.state.visibleMessages = messages;
    const last = messages.at(-1) as AssistantMessage;
    const wrapper = mount(SkillsMessageActions, { props: { message: last, conversationId: 'c1' } });
    await flushPromises();
    return wrapper;
  }

  test('"Save as skill" under a run that called tools; a click opens the form with the draft', async () => {
    replies['skills/draft'] = () => todoDraft();
    const wrapper = await mountActions(null, [user('u1'), answer('a1', 2), answer('a2')]);
    expect(wrapper.get('button').text()).toBe('Save as skill');
    await wrapper.get('button').trigger('click');
    await flushPromises();
    expect(sent.find((m) => m.type === 'skills/draft')?.data).toEqual({ conversationId: 'c1' });
    expect(useSkillsStore().form).toMatchObject({ mode: 'save', conversationId: 'c1' });
  });

  test('nothing under a run without tool calls, nor under a skill run that replayed every step', async () => {
    expect((await mountActions(null, [user('u1'), answer('a1', 2), answer('a2'), user('u2'), answer('a3')])).find('button').exists()).toBe(false);
    expect((await mountActions({ skillId: 's', name: 'x', handedOver: false }, [user('u1'), answer('a1', 2), answer('a2')])).find('button').exists()).toBe(false);
  });

  test("nothing under an earlier run's answer: a draft is made from the conversation's last run", async () => {
    replies['skills/runInfo'] = () => null;
    chat.state.visibleMessages = [user('u1'), answer('a1', 2), answer('a2'), user('u2'), answer('a3', 1), answer('a4')];
    const earlier = mount(SkillsMessageActions, { props: { message: chat.state.visibleMessages[2] as AssistantMessage, conversationId: 'c1' } });
    await flushPromises();
    expect(earlier.find('button').exists()).toBe(false);
  });

  test('"Update skill" after a skill run the model finished', async () => {
    const wrapper = await mountActions({ skillId: 's', name: 'x', handedOver: true }, [user('u1'), answer('a1', 1), answer('a2')]);
    expect(wrapper.get('button').text()).toBe('Update skill');
  });
});

describe('paramNameFor', async () => {
  const { paramNameFor } = await import('./draft-form');
  test('a name that says what the value is, unique', () => {
    expect(paramNameFor('https://shop.example/orders?page=2', [])).toBe('url');
    expect(paramNameFor('https://a.example/', ['url'])).toBe('url_2');
    expect(paramNameFor('2026-12-07', [])).toBe('date');
    expect(paramNameFor('09:30', [])).toBe('time');
    expect(paramNameFor('me@example.com', [])).toBe('email');
    expect(paramNameFor('42', [])).toBe('number');
    expect(paramNameFor('Buy fresh organic milk today', [])).toBe('buy_fresh_organic');
    expect(paramNameFor('123 Main Street', [])).toBe('main_street');
    expect(paramNameFor('שלום', [])).toBe('value');
    expect(paramNameFor('{{constructor}}', [])).toBe('constructor');
  });
});

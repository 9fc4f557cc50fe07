// @vitest-environment happy-dom
import { enableAutoUnmount, mount } from '@vue/test-utils';
import { afterEach, describe, expect, test } from 'vitest';
import ChatConversationList from '@/components/chat/ChatConversationList.vue';
import type { Conversation } from '@/core/storage/db';
import { conversation } from './fixtures';

enableAutoUnmount(afterEach);

const CONVERSATIONS = [
  conversation({ id: 'c1', title: 'Trip to Lisbon' }),
  conversation({ id: 'c2', title: 'Compare laptops', status: 'running' }),
  conversation({ id: 'c3', title: 'Tax form', status: 'error' }),
];

const mountList = (conversations: Conversation[] = CONVERSATIONS, activeId: string | null = 'c2') =>
  mount(ChatConversationList, { props: { conversations, activeId }, attachTo: document.body });

const row = (wrapper: ReturnType<typeof mountList>, index: number) => wrapper.findAll('li')[index]!;

describe('ChatConversationList', () => {
  test('lists the conversations with their titles and states; the open one is marked current', () => {
    const wrapper = mountList();
    expect(wrapper.get('nav').attributes('aria-label')).toBe('Conversations');
    expect(wrapper.findAll('.open .title').map((t) => t.text())).toEqual(['Trip to Lisbon', 'Compare laptops', 'Tax form']);
    expect(row(wrapper, 1).classes()).toContain('active');
    expect(row(wrapper, 1).get('.open').attributes('aria-current')).toBe('true');
    expect(row(wrapper, 0).get('.open').attributes('aria-current')).toBeUndefined();
    expect(row(wrapper, 1).get('.running').text()).toBe('working…');
    expect(row(wrapper, 2).get('.err').text()).toBe('error');
    expect(row(wrapper, 0).find('.running, .err').exists()).toBe(false);
    expect(wrapper.find('.empty').exists()).toBe(false);
  });

  test('an empty list says so', () => {
    const wrapper = mountList([], null);
    expect(wrapper.get('.empty').text()).toBe('No conversations yet.');
    expect(wrapper.findAll('li')).toHaveLength(0);
  });

  test('a click on a conversation opens it; Escape closes the list', async () => {
    const wrapper = mountList();
    await row(wrapper, 2).get('.open').trigger('click');
    expect(wrapper.emitted('open')).toEqual([['c3']]);
    await wrapper.get('nav').trigger('keydown', { key: 'Escape' });
    expect(wrapper.emitted('close')).toEqual([[]]);
  });

  test('rename: the title becomes an input holding it; submitting emits the new title, trimmed', async () => {
    const wrapper = mountList();
    await wrapper.get('button[aria-label="Rename Trip to Lisbon"]').trigger('click');
    const input = row(wrapper, 0).get('input');
    expect((input.element as HTMLInputElement).value).toBe('Trip to Lisbon');
    expect(row(wrapper, 0).get(`label[for="${input.attributes('id')}"]`).text()).toBe('Conversation title');
    expect(row(wrapper, 0).find('.open').exists()).toBe(false);
    await input.setValue('  Lisbon, May  ');
    await row(wrapper, 0).get('form').trigger('submit');
    expect(wrapper.emitted('rename')).toEqual([['c1', 'Lisbon, May']]);
    expect(row(wrapper, 0).find('input').exists()).toBe(false);
    expect(row(wrapper, 0).find('.open').exists()).toBe(true);
  });

  test('rename: leaving the input keeps the change; a blank title or Escape changes nothing', async () => {
    const wrapper = mountList();
    await wrapper.get('button[aria-label="Rename Tax form"]').trigger('click');
    await row(wrapper, 2).get('input').setValue('Tax form 2026');
    await row(wrapper, 2).get('input').trigger('blur');
    expect(wrapper.emitted('rename')).toEqual([['c3', 'Tax form 2026']]);

    await wrapper.get('button[aria-label="Rename Tax form"]').trigger('click');
    await row(wrapper, 2).get('input').setValue('   ');
    await row(wrapper, 2).get('form').trigger('submit');
    expect(wrapper.emitted('rename')).toHaveLength(1);
    expect(row(wrapper, 2).find('input').exists()).toBe(false);

    await wrapper.get('button[aria-label="Rename Trip to Lisbon"]').trigger('click');
    await row(wrapper, 0).get('input').setValue('Never mind');
    await row(wrapper, 0).get('input').trigger('keydown', { key: 'Escape' });
    expect(row(wrapper, 0).find('input').exists()).toBe(false);
    expect(wrapper.emitted('rename')).toHaveLength(1);
    // Escape in the input cancels the rename only: the list stays open.
    expect(wrapper.emitted('close')).toBeUndefined();
  });

  test('delete asks first: Delete emits remove, Keep leaves the conversation alone', async () => {
    const wrapper = mountList();
    await wrapper.get('button[aria-label="Delete Compare laptops"]').trigger('click');
    expect(row(wrapper, 1).get('.confirm-text').text()).toBe('Delete “Compare laptops”?');
    expect(wrapper.emitted('remove')).toBeUndefined();
    const keep = row(wrapper, 1).findAll('button').find((b) => b.text() === 'Keep')!;
    await keep.trigger('click');
    expect(row(wrapper, 1).find('.confirm-text').exists()).toBe(false);
    expect(wrapper.emitted('remove')).toBeUndefined();

    await wrapper.get('button[aria-label="Delete Compare laptops"]').trigger('click');
    const confirm = row(wrapper, 1).findAll('button').find((b) => b.text() === 'Delete')!;
    await confirm.trigger('click');
    expect(wrapper.emitted('remove')).toEqual([['c2']]);
    expect(row(wrapper, 1).find('.confirm-text').exists()).toBe(false);
    // The other rows were never touched.
    expect(wrapper.emitted('open')).toBeUndefined();
  });

  test('starting a rename ends a pending delete question', async () => {
    const wrapper = mountList();
    await wrapper.get('button[aria-label="Delete Trip to Lisbon"]').trigger('click');
    expect(row(wrapper, 0).find('.confirm-text').exists()).toBe(true);
    await wrapper.get('button[aria-label="Rename Tax form"]').trigger('click');
    expect(row(wrapper, 0).find('.confirm-text').exists()).toBe(false);
    expect(row(wrapper, 2).find('input').exists()).toBe(true);
  });
  test('keyboard: Down from the search box enters the list, Up/Down/Home/End move between conversations, Enter opens', async () => {
    const wrapper = mountList();
    const opens = () => wrapper.findAll('button.open').map((b) => b.element);
    await wrapper.get('#conversation-search').trigger('keydown', { key: 'ArrowDown' });
    expect(document.activeElement).toBe(opens()[0]);
    await wrapper.findAll('button.open')[0]!.trigger('keydown', { key: 'ArrowDown' });
    expect(document.activeElement).toBe(opens()[1]);
    await wrapper.findAll('button.open')[1]!.trigger('keydown', { key: 'ArrowUp' });
    expect(document.activeElement).toBe(opens()[0]);
    await wrapper.findAll('button.open')[0]!.trigger('keydown', { key: 'ArrowUp' });
    expect(document.activeElement).toBe(opens()[0]);
    await wrapper.findAll('button.open')[0]!.trigger('keydown', { key: 'End' });
    expect(document.activeElement).toBe(opens()[2]);
    await wrapper.findAll('button.open')[2]!.trigger('keydown', { key: 'ArrowDown' });
    expect(document.activeElement).toBe(opens()[2]);
    await wrapper.findAll('button.open')[2]!.trigger('keydown', { key: 'Home' });
    expect(document.activeElement).toBe(opens()[0]);
    // A row being renamed is skipped.
    await wrapper.get('button[aria-label="Rename Compare laptops"]').trigger('click');
    await wrapper.findAll('button.open')[0]!.trigger('keydown', { key: 'ArrowDown' });
    expect((document.activeElement as HTMLElement).textContent).toContain('Tax form');
    // Enter on a button is a click: it opens.
    await wrapper.findAll('button.open')[1]!.trigger('click');
    expect(wrapper.emitted('open')).toEqual([['c3']]);
  });

  test('a long list renders only the rows in view, each saying its place in the whole; End reads the rest of the list first', async () => {
    const all = Array.from({ length: 500 }, (_, i) => conversation({ id: `k${i}`, title: `Chat ${i}` }));
    const loads: number[] = [];
    const wrapper = mount(ChatConversationList, {
      props: { conversations: all.slice(0, 50), total: 500, activeId: null, load: async (count: number) => void loads.push(count) },
      attachTo: document.body,
    });
    const items = wrapper.findAll('li');
    expect(items.length).toBeLessThan(40);
    expect(items[0]!.attributes('aria-setsize')).toBe('500');
    expect(items[1]!.attributes('aria-posinset')).toBe('2');
    // End: the list asks for every conversation up to the last, then focuses it.
    await wrapper.setProps({ load: async (count: number) => {
      loads.push(count);
      await wrapper.setProps({ conversations: all.slice(0, count) });
    } });
    await wrapper.findAll('button.open')[0]!.trigger('keydown', { key: 'End' });
    await new Promise((r) => setTimeout(r, 0));
    expect(loads.at(-1)).toBe(500);
    expect((document.activeElement as HTMLElement).textContent).toContain('Chat 499');
    expect(wrapper.findAll('li').length).toBeLessThan(40);
  });
});

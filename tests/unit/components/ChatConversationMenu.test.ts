// @vitest-environment happy-dom
// The header's conversation menu: Export as JSON / Markdown, then every plugin's item
// (PluginUi.conversationMenu), named by the plugin; a menu button the keyboard can work.
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { afterEach, describe, expect, test, vi } from 'vitest';
import ChatConversationMenu from '@/components/chat/ChatConversationMenu.vue';
import { providePluginUi } from '@/core/ui/plugins';

enableAutoUnmount(afterEach);
afterEach(() => providePluginUi([]));

const mountMenu = () => mount(ChatConversationMenu, { props: { conversationId: 'c7' }, attachTo: document.body });
const items = (wrapper: ReturnType<typeof mountMenu>) => wrapper.findAll('[role="menuitem"]');

describe('ChatConversationMenu', () => {
  test('the button "Conversation menu" opens the export items and each plugin item; an item runs with the conversation id', async () => {
    const save = vi.fn();
    const other = vi.fn();
    providePluginUi([
      { id: 'skills', conversationMenu: [{ id: 'save', label: () => 'Save as skill', run: save }] },
      { id: 'none' },
      { id: 'notes', conversationMenu: [{ id: 'pin', label: () => 'Pin to notes', run: other }] },
    ]);
    const wrapper = mountMenu();
    const button = wrapper.get('button[aria-label="Conversation menu"]');
    expect(button.attributes('aria-haspopup')).toBe('menu');
    expect(button.attributes('aria-expanded')).toBe('false');
    expect(wrapper.find('[role="menu"]').exists()).toBe(false);

    await button.trigger('click');
    await flushPromises();
    expect(button.attributes('aria-expanded')).toBe('true');
    expect(wrapper.get('[role="menu"]').attributes('aria-label')).toBe('Conversation menu');
    expect(items(wrapper).map((i) => i.text())).toEqual(['Export as JSON', 'Export as Markdown', 'Save as skill', 'Pin to notes']);
    // The focus is on the first item.
    expect(document.activeElement).toBe(items(wrapper)[0]!.element);

    await items(wrapper)[2]!.trigger('click');
    expect(save).toHaveBeenCalledWith('c7');
    expect(other).not.toHaveBeenCalled();
    expect(wrapper.find('[role="menu"]').exists()).toBe(false);
    expect(document.activeElement).toBe(button.element);
  });

  test('a switch item is a menuitemcheckbox with its state for this conversation; the keys reach it', async () => {
    const run = vi.fn();
    providePluginUi([{ id: 'memory', conversationMenu: [{ id: 'use', label: (id) => `Use memories (${id})`, checked: (id) => id === 'c7', run }] }]);
    const wrapper = mountMenu();
    await wrapper.get('button').trigger('click');
    await flushPromises();
    const item = wrapper.get('[role="menuitemcheckbox"]');
    expect(item.text()).toBe('Use memories (c7)');
    expect(item.attributes('aria-checked')).toBe('true');
    await wrapper.get('[role="menu"]').trigger('keydown', { key: 'End' });
    expect(document.activeElement).toBe(item.element);
    await item.trigger('click');
    expect(run).toHaveBeenCalledWith('c7');
  });

  test('Export items emit the format; with no plugin items there is no separator', async () => {
    const wrapper = mountMenu();
    await wrapper.get('button').trigger('click');
    expect(items(wrapper).map((i) => i.text())).toEqual(['Export as JSON', 'Export as Markdown']);
    expect(wrapper.find('[role="separator"]').exists()).toBe(false);
    await items(wrapper)[1]!.trigger('click');
    expect(wrapper.emitted('export')).toEqual([['md']]);
  });

  test('arrow keys, Home and End move; Escape closes and gives the focus back', async () => {
    providePluginUi([{ id: 'skills', conversationMenu: [{ id: 'save', label: () => 'Save as skill', run: () => undefined }] }]);
    const wrapper = mountMenu();
    await wrapper.get('button').trigger('click');
    await flushPromises();
    const menu = wrapper.get('[role="menu"]');
    const at = () => items(wrapper).findIndex((i) => i.element === document.activeElement);
    await menu.trigger('keydown', { key: 'ArrowDown' });
    expect(at()).toBe(1);
    await menu.trigger('keydown', { key: 'End' });
    expect(at()).toBe(2);
    await menu.trigger('keydown', { key: 'ArrowDown' });
    expect(at()).toBe(0);
    await menu.trigger('keydown', { key: 'ArrowUp' });
    expect(at()).toBe(2);
    await menu.trigger('keydown', { key: 'Home' });
    expect(at()).toBe(0);
    await menu.trigger('keydown', { key: 'Escape' });
    expect(wrapper.find('[role="menu"]').exists()).toBe(false);
    expect(document.activeElement).toBe(wrapper.get('button').element);
  });

  test("a plugin item that throws: the error is emitted for the page to show", async () => {
    providePluginUi([{ id: 'bad', conversationMenu: [{ id: 'x', label: () => 'Broken', run: () => { throw new Error('It broke'); } }] }]);
    const wrapper = mountMenu();
    await wrapper.get('button').trigger('click');
    await items(wrapper)[2]!.trigger('click');
    expect(wrapper.emitted('error')).toEqual([['It broke']]);
  });
});

// @vitest-environment happy-dom
// The message box's suggestions (PluginUi.composer): a listbox named by the plugin, the arrow keys
// move (aria-activedescendant), Enter or Tab picks without sending, Escape closes, a click picks.
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { afterEach, describe, expect, test } from 'vitest';
import ChatComposer from '@/components/chat/ChatComposer.vue';
import { providePluginUi, type ComposerSuggestion } from '@/core/ui/plugins';

const SKILLS = ['weekly-report', 'weather', 'orders'];
function skillsSource(delay = 0) {
  return {
    id: 'skills',
    composer: {
      label: () => 'Skills',
      async suggest(text: string): Promise<ComposerSuggestion[]> {
        if (delay) await new Promise((r) => setTimeout(r, delay));
        const typed = /^\/([a-z-]*)$/.exec(text);
        if (!typed) return [];
        return SKILLS.filter((s) => s.startsWith(typed[1]!)).map((s) => ({ value: `/${s} `, label: `/${s}`, detail: `Runs ${s}` }));
      },
    },
  };
}

function mountComposer(draft = '', running = false) {
  const wrapper = mount(ChatComposer, {
    props: { modelValue: draft, 'onUpdate:modelValue': (value: string) => wrapper.setProps({ modelValue: value }), running },
    attachTo: document.body,
  });
  return wrapper;
}

function press(wrapper: ReturnType<typeof mountComposer>, key: string, init: KeyboardEventInit = {}): boolean {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  wrapper.get('textarea').element.dispatchEvent(event);
  return event.defaultPrevented;
}

async function typeInto(wrapper: ReturnType<typeof mountComposer>, text: string) {
  await wrapper.get('textarea').trigger('focus');
  await wrapper.get('textarea').setValue(text);
  await flushPromises();
}

const options = (wrapper: ReturnType<typeof mountComposer>) => wrapper.findAll('[role="option"]');
const activeLabel = (wrapper: ReturnType<typeof mountComposer>) => {
  const id = wrapper.get('textarea').attributes('aria-activedescendant');
  return id ? document.getElementById(id)?.querySelector('.option-label')?.textContent : undefined;
};

enableAutoUnmount(afterEach);
afterEach(() => providePluginUi([]));

describe('ChatComposer suggestions', () => {
  test('after "/" a listbox named by the plugin lists the options; arrows move; Enter picks without sending', async () => {
    providePluginUi([skillsSource()]);
    const wrapper = mountComposer();
    await typeInto(wrapper, '/we');
    const list = wrapper.get('[role="listbox"]');
    expect(list.attributes('aria-label')).toBe('Skills');
    expect(options(wrapper).map((o) => o.get('.option-label').text())).toEqual(['/weekly-report', '/weather']);
    // Each option is named by its label and described by its detail.
    const first = options(wrapper)[0]!;
    expect(document.getElementById(first.attributes('aria-labelledby')!)?.textContent).toBe('/weekly-report');
    expect(document.getElementById(first.attributes('aria-describedby')!)?.textContent).toBe('Runs weekly-report');
    const box = wrapper.get('textarea');
    expect(box.attributes('aria-controls')).toBe(list.attributes('id'));
    expect(box.attributes('aria-autocomplete')).toBe('list');
    expect(activeLabel(wrapper)).toBe('/weekly-report');
    expect(first.attributes('aria-selected')).toBe('true');

    expect(press(wrapper, 'ArrowDown')).toBe(true);
    await flushPromises();
    expect(activeLabel(wrapper)).toBe('/weather');
    press(wrapper, 'ArrowDown');
    await flushPromises();
    expect(activeLabel(wrapper)).toBe('/weekly-report'); // wraps around
    press(wrapper, 'ArrowUp');
    await flushPromises();
    expect(activeLabel(wrapper)).toBe('/weather');

    expect(press(wrapper, 'Enter')).toBe(true);
    await flushPromises();
    expect(wrapper.props('modelValue')).toBe('/weather ');
    expect(wrapper.emitted('send')).toBeUndefined();
    // The picked value no longer matches: the list closes; the next Enter sends.
    expect(wrapper.find('[role="listbox"]').exists()).toBe(false);
    expect(box.attributes('aria-activedescendant')).toBeUndefined();
    press(wrapper, 'Enter');
    expect(wrapper.emitted('send')).toEqual([['/weather ']]);
  });

  test('Tab picks too; Escape closes the list (and does not stop a run) until the text changes', async () => {
    providePluginUi([skillsSource()]);
    const wrapper = mountComposer('', true);
    await typeInto(wrapper, '/');
    expect(options(wrapper)).toHaveLength(3);
    expect(press(wrapper, 'Escape')).toBe(true);
    await flushPromises();
    expect(wrapper.find('[role="listbox"]').exists()).toBe(false);
    expect(wrapper.emitted('stop')).toBeUndefined();
    // Closed, Escape is the run's again.
    press(wrapper, 'Escape');
    expect(wrapper.emitted('stop')).toEqual([[]]);

    await typeInto(wrapper, '/o');
    expect(options(wrapper).map((o) => o.get('.option-label').text())).toEqual(['/orders']);
    expect(press(wrapper, 'Tab')).toBe(true);
    await flushPromises();
    expect(wrapper.props('modelValue')).toBe('/orders ');
  });

  test('a click on an option picks it; the list shows only while the box has focus', async () => {
    providePluginUi([skillsSource()]);
    const wrapper = mountComposer();
    await typeInto(wrapper, '/w');
    await wrapper.get('textarea').trigger('blur');
    expect(wrapper.find('[role="listbox"]').exists()).toBe(false);
    await wrapper.get('textarea').trigger('focus');
    expect(options(wrapper)).toHaveLength(2);
    await options(wrapper)[0]!.trigger('click');
    await flushPromises();
    expect(wrapper.props('modelValue')).toBe('/weekly-report ');
    expect(wrapper.emitted('send')).toBeUndefined();
  });

  test('no suggestions: no listbox, arrows and Enter do what they did', async () => {
    providePluginUi([skillsSource()]);
    const wrapper = mountComposer();
    await typeInto(wrapper, 'hello /w');
    expect(wrapper.find('[role="listbox"]').exists()).toBe(false);
    expect(press(wrapper, 'ArrowDown')).toBe(false);
    press(wrapper, 'Enter');
    expect(wrapper.emitted('send')).toEqual([['hello /w']]);
  });

  test('a slow answer for older text is dropped; a failing plugin shows nothing; two plugins are two named groups', async () => {
    const failing = { id: 'broken', composer: { suggest: () => Promise.reject(new Error('no')) } };
    const other = { id: 'other', composer: { label: () => 'Snippets', suggest: (text: string) => (text.startsWith('/') ? [{ value: 'snip', label: 'snip' }] : []) } };
    providePluginUi([skillsSource(30), failing, other]);
    const wrapper = mountComposer();
    await wrapper.get('textarea').trigger('focus');
    await wrapper.get('textarea').setValue('/w');
    await wrapper.get('textarea').setValue('/o');
    await new Promise((r) => setTimeout(r, 80));
    await flushPromises();
    const list = wrapper.get('[role="listbox"]');
    expect(list.attributes('aria-label')).toBe('Suggestions');
    const groups = wrapper.findAll('[role="group"]');
    expect(groups.map((g) => g.attributes('aria-label'))).toEqual(['Skills', 'Snippets']);
    expect(options(wrapper).map((o) => o.get('.option-label').text())).toEqual(['/orders', 'snip']);
    press(wrapper, 'ArrowDown');
    await flushPromises();
    expect(activeLabel(wrapper)).toBe('snip');
  });
});

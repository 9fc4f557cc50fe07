// @vitest-environment happy-dom
import { enableAutoUnmount, mount } from '@vue/test-utils';
import { afterEach, describe, expect, test } from 'vitest';
import ChatComposer from '@/components/chat/ChatComposer.vue';

/** The composer with its draft held as a parent would hold it (v-model). */
function mountComposer(draft: string, props: { running?: boolean; disabled?: boolean } = {}) {
  const wrapper = mount(ChatComposer, {
    props: {
      modelValue: draft,
      'onUpdate:modelValue': (value: string) => wrapper.setProps({ modelValue: value }),
      running: props.running ?? false,
      disabled: props.disabled,
    },
    attachTo: document.body,
  });
  return wrapper;
}

/** Sends a keydown to the message box as the browser would, and says whether its default was prevented. */
function press(wrapper: ReturnType<typeof mountComposer>, init: KeyboardEventInit): boolean {
  const event = new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
  wrapper.get('textarea').element.dispatchEvent(event);
  return event.defaultPrevented;
}

enableAutoUnmount(afterEach);

describe('ChatComposer', () => {
  test('Enter sends the draft as typed, and keeps the newline out of the box', async () => {
    const wrapper = mountComposer('');
    await wrapper.get('textarea').setValue('  Summarise this tab\nin three lines ');
    expect(wrapper.emitted('update:modelValue')?.at(-1)).toEqual(['  Summarise this tab\nin three lines ']);
    expect(press(wrapper, { key: 'Enter' })).toBe(true);
    expect(wrapper.emitted('send')).toEqual([['  Summarise this tab\nin three lines ']]);
  });

  test('Shift+Enter is a new line, not a send; so is Enter while an input method is composing', () => {
    const wrapper = mountComposer('First line');
    expect(press(wrapper, { key: 'Enter', shiftKey: true })).toBe(false);
    expect(press(wrapper, { key: 'Enter', isComposing: true })).toBe(false);
    expect(press(wrapper, { key: 'a' })).toBe(false);
    expect(wrapper.emitted('send')).toBeUndefined();
  });

  test('the Send button submits the form; it is disabled while the draft is empty or blank', async () => {
    const wrapper = mountComposer('');
    const send = () => wrapper.get('button[aria-label="Send"]');
    expect(send().attributes('type')).toBe('submit');
    expect(send().attributes('disabled')).toBeDefined();
    await wrapper.setProps({ modelValue: ' \n\t ' });
    expect(send().attributes('disabled')).toBeDefined();
    expect(press(wrapper, { key: 'Enter' })).toBe(true);
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('send')).toBeUndefined();

    await wrapper.setProps({ modelValue: 'Hello' });
    expect(send().attributes('disabled')).toBeUndefined();
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('send')).toEqual([['Hello']]);
  });

  test('while the agent runs: Stop instead of Send, Stop emits stop, Enter sends nothing', async () => {
    const wrapper = mountComposer('Next question', { running: true });
    expect(wrapper.find('button[aria-label="Send"]').exists()).toBe(false);
    const stop = wrapper.get('button[aria-label="Stop"]');
    expect(stop.attributes('type')).toBe('button');
    await stop.trigger('click');
    expect(wrapper.emitted('stop')).toEqual([[]]);
    press(wrapper, { key: 'Enter' });
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('send')).toBeUndefined();
    // The user can still write the next message meanwhile.
    expect(wrapper.get('textarea').attributes('disabled')).toBeUndefined();

    await wrapper.setProps({ running: false });
    expect(wrapper.find('button[aria-label="Stop"]').exists()).toBe(false);
    press(wrapper, { key: 'Enter' });
    expect(wrapper.emitted('send')).toEqual([['Next question']]);
  });

  test('disabled: the box and Send are disabled and nothing is sent', async () => {
    const wrapper = mountComposer('Hello', { disabled: true });
    expect(wrapper.get('textarea').attributes('disabled')).toBeDefined();
    expect(wrapper.get('button[aria-label="Send"]').attributes('disabled')).toBeDefined();
    press(wrapper, { key: 'Enter' });
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('send')).toBeUndefined();
  });

  test('the box has a label, and focus() from the parent focuses it', () => {
    const wrapper = mountComposer('');
    const box = wrapper.get('textarea');
    expect(wrapper.get(`label[for="${box.attributes('id')}"]`).text()).toBe('Message');
    (wrapper.vm as unknown as { focus(): void }).focus();
    expect(document.activeElement).toBe(box.element);
  });

  test('Escape stops a run from the message box, and does nothing when no run goes on', () => {
    const idle = mountComposer('draft');
    expect(press(idle, { key: 'Escape' })).toBe(false);
    expect(idle.emitted('stop')).toBeUndefined();
    const running = mountComposer('draft', { running: true });
    expect(press(running, { key: 'Escape' })).toBe(true);
    expect(running.emitted('stop')).toEqual([[]]);
  });

  test('the box follows the direction of what is typed', () => {
    expect(mountComposer('').get('textarea').attributes('dir')).toBe('auto');
  });
});

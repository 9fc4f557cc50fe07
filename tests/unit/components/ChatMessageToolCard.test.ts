// @vitest-environment jsdom
import { enableAutoUnmount, mount } from '@vue/test-utils';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { defineComponent, h, nextTick } from 'vue';
import ChatMessage from '@/components/chat/ChatMessage.vue';
import type { ToolMessage } from '@/core/storage/db';
import { providePluginUi } from '@/core/ui/plugins';
import { assistantMessage, toolCall, toolMessage, loadAnswerParts } from './fixtures';

enableAutoUnmount(afterEach);
beforeAll(loadAnswerParts);
afterEach(() => providePluginUi([]));

describe('a plugin tool card that fails', () => {
  test('is replaced by the generic card (an imported activity of an unexpected shape blanks nothing)', async () => {
    const Broken = defineComponent({
      props: { call: { type: Object, required: true }, result: { type: Object, required: true }, runActive: Boolean },
      setup: (props) => () => h('div', { class: 'broken' }, ((props.result as ToolMessage).activity as { messages: string[] }).messages.filter(Boolean).join()),
    });
    providePluginUi([{ id: 'test', toolCards: { get_tab_content: { component: Broken } } }]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const results = new Map<string, ToolMessage>([['call-1', toolMessage({ activity: { messages: 'not a list' } })]]);
    const wrapper = mount(ChatMessage, {
      props: { message: assistantMessage({ text: 'Reading.', toolCalls: [toolCall()] }), toolResults: results, runActive: false },
      attachTo: document.body,
    });
    await nextTick();
    expect(wrapper.find('.broken').exists()).toBe(false);
    expect(wrapper.text()).toContain('get_tab_content');
    expect(wrapper.text()).toContain('Reading.');
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/the card of get_tab_content failed/);
    warn.mockRestore();
  });
});

// @vitest-environment jsdom
import { enableAutoUnmount, mount } from '@vue/test-utils';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { defineComponent, h, nextTick, provide, shallowReactive, shallowRef } from 'vue';
import ChatMessage from '@/components/chat/ChatMessage.vue';
import { RUN_USAGE } from '@/components/chat/run-usage';
import type { ToolMessage } from '@/core/storage/db';
import type { RunUsage } from '@/stores/chat';
import { assistantMessage, toolCall, toolMessage, loadAnswerParts } from './fixtures';

enableAutoUnmount(afterEach);
beforeAll(loadAnswerParts);

// What a step of an agent run changes (its run's totals, a tool result landing) renders only the
// views that show it: in Firefox every extension page shares the background's thread, and an
// answer rendered again for nothing delays the step's own write (bench/run.mjs steps).

/** An answer in a chat view's place: the run totals given as the chat view gives them. */
function answer(runs: { value: Map<string, RunUsage> }, results: Map<string, ToolMessage>) {
  const rendered = vi.fn();
  const Host = defineComponent({
    setup() {
      provide(RUN_USAGE, (id) => runs.value.get(id));
      return () =>
        h(ChatMessage, {
          message: assistantMessage({ text: 'Reading.', toolCalls: [toolCall()] }),
          toolResults: results,
          runActive: true,
          onVnodeUpdated: rendered,
        });
    },
  });
  return { wrapper: mount(Host, { attachTo: document.body }), rendered };
}

describe('an answer during a run', () => {
  test("new run totals render no answer; the open Usage panel shows them", async () => {
    const runs = shallowRef(new Map([['a1', { answers: 1, inputTokens: 10, outputTokens: 5 }]]));
    const { wrapper, rendered } = answer(runs, shallowReactive(new Map()));
    await nextTick();
    runs.value = new Map([['a1', { answers: 2, inputTokens: 30, outputTokens: 9 }]]);
    await nextTick();
    expect(rendered).not.toHaveBeenCalled();

    await wrapper.findAll('.details .link').find((b) => b.text() === 'Usage')!.trigger('click');
    expect(wrapper.text()).toContain('2 answers · 30 tokens in · 9 out');
    runs.value = new Map([['a1', { answers: 3, inputTokens: 50, outputTokens: 12 }]]);
    await nextTick();
    expect(wrapper.text()).toContain('3 answers · 50 tokens in · 12 out');
    expect(rendered).not.toHaveBeenCalled();
  });

  test('a tool result that lands renders its card, not the answer', async () => {
    const results = shallowReactive(new Map<string, ToolMessage>());
    const { wrapper, rendered } = answer(shallowRef(new Map()), results);
    await nextTick();
    results.set('call-1', toolMessage({ status: 'running', result: undefined }));
    await nextTick();
    results.set('call-1', toolMessage({ durationMs: 1234 }));
    await nextTick();
    expect(wrapper.find('details.tool').classes()).toContain('done');
    expect(wrapper.find('.duration').text()).not.toBe('');
    expect(rendered).not.toHaveBeenCalled();
  });
});

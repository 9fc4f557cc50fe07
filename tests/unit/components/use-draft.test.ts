// @vitest-environment happy-dom
// The message box's draft: loaded per conversation, saved through the drafts store a moment later.
import { createPinia, setActivePinia } from 'pinia';
import { enableAutoUnmount, mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { defineComponent, h, nextTick, ref } from 'vue';
import { useDraft } from '@/components/chat/use-draft';
import { drafts } from '@/core/storage/settings';

enableAutoUnmount(afterEach);

describe('useDraft', () => {
  beforeEach(() => setActivePinia(createPinia()));

  function host(key = ref('new')) {
    let state!: ReturnType<typeof useDraft>;
    const wrapper = mount(
      defineComponent({
        setup() {
          state = useDraft(key);
          return () => h('div');
        },
      }),
    );
    return { wrapper, key, state: () => state };
  }

  test('loads the saved draft of the open conversation, and of the one switched to', async () => {
    await drafts.setValue({ new: 'half a thought', c1: 'for c1' });
    const { key, state } = host();
    await vi.waitFor(() => expect(state().draft.value).toBe('half a thought'));
    key.value = 'c1';
    await vi.waitFor(() => expect(state().draft.value).toBe('for c1'));
  });

  test('saves what is typed a moment later, and clears it after a send', async () => {
    vi.useFakeTimers();
    try {
      const { state } = host(ref('c2'));
      await vi.waitFor(() => expect(state().draft.value).toBe(''));
      state().draft.value = 'typed';
      await nextTick();
      expect(await drafts.getValue()).toEqual({});
      await vi.advanceTimersByTimeAsync(300);
      expect(await drafts.getValue()).toEqual({ c2: 'typed' });
      await state().clear('c2');
      expect(state().draft.value).toBe('');
      expect(await drafts.getValue()).toEqual({});
    } finally {
      vi.useRealTimers();
    }
  });

  test('a save still waiting when the sidebar goes away is made', async () => {
    const { wrapper, state } = host(ref('c3'));
    await vi.waitFor(() => expect(state().draft.value).toBe(''));
    state().draft.value = 'closing';
    await nextTick();
    wrapper.unmount();
    await vi.waitFor(async () => expect(await drafts.getValue()).toEqual({ c3: 'closing' }));
  });

  test('what the user types before the saved draft arrives is kept', async () => {
    await drafts.setValue({ c4: 'old' });
    const { state } = host(ref('c4'));
    state().draft.value = 'new words';
    await new Promise((r) => setTimeout(r, 20));
    expect(state().draft.value).toBe('new words');
  });
});

import { onUnmounted, ref, watch, type Ref } from 'vue';
import { useDraftsStore } from '@/stores/drafts';

/** How long the message box is still before its text is saved. */
const SAVE_DELAY_MS = 300;

/**
 * The message box's text for the open conversation (`key`: its id, or 'new'): loaded when the
 * conversation switches (unless the user typed before it arrived), saved through the drafts store
 * a moment after the user stops typing, cleared once a message is sent.
 */
export function useDraft(key: Ref<string>): { draft: Ref<string>; clear: (key: string) => Promise<void> } {
  const store = useDraftsStore();
  const draft = ref('');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: (() => Promise<void>) | undefined;
  // The key whose saved draft is on its way; typing (or another switch) meanwhile drops it.
  let loading: string | null = null;

  async function load(k: string): Promise<void> {
    loading = k;
    const saved = await store.read(k);
    if (loading !== k) return;
    loading = null;
    draft.value = saved;
  }

  function cancelSave(): void {
    clearTimeout(timer);
    pending = undefined;
  }

  watch(key, (k) => void load(k), { immediate: true });
  watch(draft, (text) => {
    loading = null;
    cancelSave();
    const k = key.value;
    const save = (pending = () => store.write(k, text));
    timer = setTimeout(() => {
      pending = undefined;
      void save();
    }, SAVE_DELAY_MS);
  });

  // A save still waiting when the sidebar goes away is made now.
  onUnmounted(() => {
    const save = pending;
    cancelSave();
    void save?.();
  });

  /** After a send: empties the box and the saved draft of `k` (the key the message was sent from). */
  async function clear(k: string): Promise<void> {
    draft.value = '';
    cancelSave();
    await store.write(k, '');
  }

  return { draft, clear };
}

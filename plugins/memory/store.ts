import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribeTo } from '@/core/ui/events';
import type { MemoryState } from './protocol';
import './protocol';

/** Settings → Memory's view of the memories and the switch; the background owns them. */
export const useMemoryStore = defineStore('memory', () => {
  const state = shallowRef<MemoryState | null>(null);
  let unsubscribe: (() => void) | undefined;

  async function load(): Promise<void> {
    state.value = await sendMessage('memory/list');
  }

  /** Loads and follows the background's changes (an allowed `remember`, an import) until `dispose`. */
  async function init(): Promise<void> {
    unsubscribe ??= subscribeTo(
      'memory',
      ({ type: _type, ...next }) => {
        state.value = next;
      },
      () => void load(),
    );
    await load();
  }

  function dispose(): void {
    unsubscribe?.();
    unsubscribe = undefined;
  }

  const set = async (next: Promise<MemoryState>) => void (state.value = await next);
  return {
    state,
    init,
    dispose,
    add: (text: string) => set(sendMessage('memory/add', { text })),
    edit: (id: string, text: string) => set(sendMessage('memory/edit', { id, text })),
    remove: (id: string) => set(sendMessage('memory/delete', { id })),
    setEnabled: (enabled: boolean) => set(sendMessage('memory/setEnabled', { enabled })),
  };
});

/**
 * The conversations whose prompt leaves the memories out, for the conversation menu's switch: read
 * once when the menu first asks, then kept current by the background's events.
 */
export const useLeftOutStore = defineStore('memory-left-out', () => {
  const ids = ref<ReadonlySet<string> | null>(null);
  let loading = false;

  function ensure(): void {
    if (ids.value || loading) return;
    loading = true;
    subscribeTo(
      'memory-left-out',
      (event) => void (ids.value = new Set(event.conversationIds)),
      () => void sendMessage('memory/leftOut').then((list) => (ids.value = new Set(list))),
    );
    void sendMessage('memory/leftOut')
      .then((list) => (ids.value = new Set(list)))
      .finally(() => (loading = false));
  }

  /** Whether the conversation uses the memories (undefined until known). */
  function uses(conversationId: string): boolean | undefined {
    ensure();
    return ids.value ? !ids.value.has(conversationId) : undefined;
  }

  async function toggle(conversationId: string): Promise<void> {
    const leftOut = uses(conversationId) !== false;
    ids.value = new Set(await sendMessage('memory/setLeftOut', { conversationId, leftOut }));
  }

  return { ids, uses, toggle };
});

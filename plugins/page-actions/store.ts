import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import { errorText } from '@/core/ui/i18n';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribeTo } from '@/core/ui/events';
import { useChatStore } from '@/stores/chat';
import type { PausedTab } from './protocol';
import './protocol';

/** Whether the open conversation's run waits while the user has a tab (Take over, hand-over), live. */
export const usePageActionsStore = defineStore('pageActions', () => {
  const chat = useChatStore();
  const paused = ref<PausedTab | null>(null);
  const error = ref('');
  let unsubscribe: (() => void) | undefined;
  let stopWatching: (() => void) | undefined;

  async function load(id: string | null): Promise<void> {
    error.value = '';
    if (!id) {
      paused.value = null;
      return;
    }
    const now = await sendMessage('getPagePause', { conversationId: id }).catch(() => null);
    if (chat.activeId === id) paused.value = now;
  }

  function start(): void {
    unsubscribe = subscribeTo(
      'page-actions-paused',
      (event) => {
        if (event.conversationId === chat.activeId) paused.value = event.paused;
      },
      () => void load(chat.activeId),
    );
    stopWatching = watch(() => chat.activeId, (id) => void load(id), { immediate: true });
  }

  function stop(): void {
    unsubscribe?.();
    stopWatching?.();
  }

  /** Hands the tab back to the run. */
  async function resume(): Promise<void> {
    const current = paused.value;
    if (!current) return;
    error.value = '';
    try {
      await sendMessage('resumePageActions', { conversationId: current.conversationId });
      if (paused.value?.conversationId === current.conversationId) paused.value = null;
    } catch (e) {
      error.value = errorText(e);
    }
  }

  return { paused, error, start, stop, resume };
});

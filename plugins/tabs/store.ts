import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribeTo } from '@/core/ui/events';
import { useChatStore } from '@/stores/chat';
import './protocol';

/** How many tabs the open conversation's agent left open, live, and the Close / Keep answers. */
export const useAgentTabsStore = defineStore('agentTabs', () => {
  const chat = useChatStore();
  const left = ref(0);
  const busy = ref(false);
  let unsubscribe: (() => void) | undefined;
  let stopWatching: (() => void) | undefined;

  async function load(id: string | null): Promise<void> {
    const answer = id ? await sendMessage('tabs/agentTabs', { conversationId: id }).catch(() => ({ left: 0 })) : { left: 0 };
    if (chat.activeId === id) left.value = answer.left;
  }

  function start(): void {
    unsubscribe = subscribeTo(
      'agent-tabs',
      (event) => {
        if (event.conversationId === chat.activeId) left.value = event.left;
      },
      () => void load(chat.activeId),
    );
    stopWatching = watch(() => chat.activeId, (id) => void load(id), { immediate: true });
  }

  function stop(): void {
    unsubscribe?.();
    stopWatching?.();
  }

  async function answer(close: boolean): Promise<void> {
    const id = chat.activeId;
    if (!id || busy.value) return;
    busy.value = true;
    try {
      if (close) await sendMessage('tabs/closeAgentTabs', { conversationId: id });
      else await sendMessage('tabs/keepAgentTabs', { conversationId: id });
    } finally {
      busy.value = false;
      await load(id);
    }
  }

  return { left, busy, start, stop, close: () => answer(true), keep: () => answer(false) };
});

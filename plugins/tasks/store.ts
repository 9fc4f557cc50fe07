import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribeTo } from '@/core/ui/events';
import { useChatStore } from '@/stores/chat';
import type { Task } from './task-board';
import './protocol';

/** The agent's task list of the conversation open in the sidebar, live. */
export const useTasksStore = defineStore('tasks', () => {
  const chat = useChatStore();
  const tasks = ref<Task[]>([]);
  let unsubscribe: (() => void) | undefined;
  let stopWatching: (() => void) | undefined;

  async function load(id: string | null): Promise<void> {
    if (!id) {
      tasks.value = [];
      return;
    }
    const list = await sendMessage('getTasks', { conversationId: id }).catch(() => [] as Task[]);
    if (chat.activeId === id) tasks.value = list;
  }

  function start(): void {
    unsubscribe = subscribeTo(
      'tasks',
      (event) => {
        if (event.conversationId === chat.activeId) tasks.value = event.tasks;
      },
      () => void load(chat.activeId),
    );
    stopWatching = watch(() => chat.activeId, (id) => void load(id), { immediate: true });
  }

  function stop(): void {
    unsubscribe?.();
    stopWatching?.();
  }

  return { tasks, start, stop };
});

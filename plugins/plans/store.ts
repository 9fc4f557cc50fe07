import { defineStore } from 'pinia';
import { ref } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribe } from '@/core/ui/events';
import { errorText } from '@/core/ui/i18n';
import type { ActivePlan, PendingPlan, PlanAnswer } from './plans';
import './protocol';

/** The plans waiting for the user and the plans runs carry out, in every conversation (mirrors the background's desk). */
export const usePlansStore = defineStore('plans', () => {
  const waiting = ref<PendingPlan[]>([]);
  const active = ref<ActivePlan[]>([]);
  const error = ref('');
  let unsubscribe: (() => void) | undefined;

  async function load(): Promise<void> {
    const list = await sendMessage('listPlans').catch(() => ({ waiting: [], active: [] }));
    waiting.value = list.waiting;
    active.value = list.active;
  }

  function start(): void {
    unsubscribe = subscribe((event) => {
      if (event.type === 'plan-asked') waiting.value = [...waiting.value.filter((p) => p.id !== event.plan.id), event.plan];
      else if (event.type === 'plan-closed') waiting.value = waiting.value.filter((p) => p.id !== event.id);
      else if (event.type === 'plan-progress') {
        const others = active.value.filter((p) => p.conversationId !== event.conversationId);
        active.value = event.active ? [...others, event.active] : others;
      }
    }, () => void load());
    void load();
  }

  function stop(): void {
    unsubscribe?.();
  }

  /** Answers a plan; false (with `error` set) when the background refused the answer. */
  async function answer(id: string, value: PlanAnswer): Promise<boolean> {
    error.value = '';
    try {
      await sendMessage('answerPlan', { id, answer: value });
      waiting.value = waiting.value.filter((p) => p.id !== id);
      return true;
    } catch (e) {
      error.value = errorText(e);
      return false;
    }
  }

  async function stopPlan(conversationId: string): Promise<void> {
    error.value = '';
    try {
      await sendMessage('stopPlan', { conversationId });
    } catch (e) {
      error.value = errorText(e);
    }
  }

  return { waiting, active, error, start, stop, answer, stopPlan };
});

import { errorText } from '@/core/ui/i18n';
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribe } from '@/core/ui/events';
import type { PendingQuestion } from './questions';
import './protocol';

/** The agent's questions waiting in any conversation (the sidebar shows those of others as a notice). */
export const useQuestionsStore = defineStore('questions', () => {
  const questions = ref<PendingQuestion[]>([]);
  const error = ref('');
  let unsubscribe: (() => void) | undefined;

  async function load(): Promise<void> {
    questions.value = await sendMessage('listQuestions').catch(() => []);
  }

  function start(): void {
    unsubscribe = subscribe((event) => {
      if (event.type === 'question') questions.value = [...questions.value.filter((q) => q.id !== event.question.id), event.question];
      else if (event.type === 'question-closed') questions.value = questions.value.filter((q) => q.id !== event.id);
    }, () => void load());
    void load();
  }

  function stop(): void {
    unsubscribe?.();
  }

  /** Answers a question: text, one option, several options, or null to skip. */
  async function answer(id: string, value: string | string[] | null): Promise<void> {
    error.value = '';
    try {
      await sendMessage('answerQuestion', { id, answer: value });
      questions.value = questions.value.filter((q) => q.id !== id);
    } catch (e) {
      error.value = errorText(e);
    }
  }

  return { questions, error, start, stop, answer };
});

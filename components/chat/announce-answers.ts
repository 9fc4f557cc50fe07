import { watch } from 'vue';
import type { Announcer } from '@/core/ui/announce';
import { t } from '@/core/ui/i18n';
import type { useChatStore } from '@/stores/chat';

/** How much of an answer is read out; the rest is in the conversation. */
const MAX_SPOKEN = 600;

/**
 * Says each finished answer of the open conversation once, through the page's live region: when
 * a run of the conversation on screen ends, its last answer's text. Returns the stop function.
 */
export function announceFinishedAnswers(chat: ReturnType<typeof useChatStore>, announcer: Announcer): () => void {
  return watch(
    () => [chat.activeId, chat.running] as const,
    ([id, running], [wasId, wasRunning]) => {
      if (running || !wasRunning || id !== wasId) return;
      // The answer's last write and the status arrive as separate events: read it a moment later.
      setTimeout(() => {
        if (chat.activeId !== id) return;
        const last = [...chat.messages].reverse().find((m) => m.role === 'assistant');
        const text = last && 'text' in last ? chat.textOf(last).trim() : '';
        if (text) announcer.say(t('a11y.answered', { text: text.length > MAX_SPOKEN ? `${text.slice(0, MAX_SPOKEN)}…` : text }));
      }, 300);
    },
  );
}

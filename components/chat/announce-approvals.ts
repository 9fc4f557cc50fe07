import { watch } from 'vue';
import type { Announcer } from '@/core/ui/announce';
import type { useApprovalsStore } from '@/stores/approvals';
import type { useChatStore } from '@/stores/chat';
import { announcement } from './approval-words';

/**
 * Says each approval card of the open conversation once, through the page's polite live region,
 * when it appears (or when its conversation is opened): the card never takes the focus, so this is
 * how a screen reader learns of it. Returns the stop function.
 */
export function announceApprovals(approvals: ReturnType<typeof useApprovalsStore>, chat: ReturnType<typeof useChatStore>, announcer: Announcer): () => void {
  const said = new Set<string>();
  return watch(
    () => [approvals.approvals, chat.activeId] as const,
    ([list, activeId]) => {
      const fresh = list.filter((a) => a.conversationId === activeId && !said.has(a.id));
      for (const id of [...said]) if (!list.some((a) => a.id === id)) said.delete(id);
      if (!fresh.length) return;
      for (const a of fresh) said.add(a.id);
      announcer.say(fresh.map(announcement).join(' '));
    },
    { immediate: true },
  );
}

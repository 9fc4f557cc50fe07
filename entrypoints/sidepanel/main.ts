import ChatView from '@/components/chat/ChatView.vue';
import { announceApprovals } from '@/components/chat/announce-approvals';
import { announceFinishedAnswers } from '@/components/chat/announce-answers';
import { preloadAnswerParts } from '@/components/chat/lazy-parts';
import { createAnnouncer } from '@/core/ui/announce';
import { mountPage } from '@/core/ui/mount';
import { builtinPluginUi } from '@/plugins/ui';
import { useApprovalsStore } from '@/stores/approvals';
import { useChatStore } from '@/stores/chat';
import '@/assets/theme.css';

void mountPage(ChatView, builtinPluginUi).then(({ pinia }) => {
  // What answers need (markdown-it and DOMPurify, the Usage · Trace row): fetched now, beside
  // the conversation's messages, not before the page shows.
  preloadAnswerParts();
  const announcer = createAnnouncer();
  announceFinishedAnswers(useChatStore(pinia), announcer);
  announceApprovals(useApprovalsStore(pinia), useChatStore(pinia), announcer);
});

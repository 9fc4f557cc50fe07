import ChatView from '@/components/chat/ChatView.vue';
import { announceApprovals } from '@/components/chat/announce-approvals';
import { announceFinishedAnswers } from '@/components/chat/announce-answers';
import { createAnnouncer } from '@/core/ui/announce';
import { mountPage } from '@/core/ui/mount';
import { builtinPluginUi } from '@/plugins/ui';
import { useApprovalsStore } from '@/stores/approvals';
import { useChatStore } from '@/stores/chat';
import '@/assets/theme.css';

void mountPage(ChatView, builtinPluginUi).then(({ pinia }) => {
  const announcer = createAnnouncer();
  announceFinishedAnswers(useChatStore(pinia), announcer);
  announceApprovals(useApprovalsStore(pinia), useChatStore(pinia), announcer);
});

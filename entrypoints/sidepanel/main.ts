import ChatView from '@/components/chat/ChatView.vue';
import { announceFinishedAnswers } from '@/components/chat/announce-answers';
import { createAnnouncer } from '@/core/ui/announce';
import { mountPage } from '@/core/ui/mount';
import { builtinPluginUi } from '@/plugins/ui';
import { useChatStore } from '@/stores/chat';
import '@/assets/theme.css';

void mountPage(ChatView, builtinPluginUi).then(({ pinia }) => announceFinishedAnswers(useChatStore(pinia), createAnnouncer()));

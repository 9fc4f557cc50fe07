import ChatView from '@/components/chat/ChatView.vue';
import { mountPage } from '@/core/ui/mount';
import { builtinPluginUi } from '@/plugins/ui';
import '@/assets/theme.css';

void mountPage(ChatView, builtinPluginUi);

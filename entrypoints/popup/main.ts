import PopupView from '@/components/popup/PopupView.vue';
import { mountPage } from '@/core/ui/mount';
import { builtinPluginUi } from '@/plugins/ui';
import '@/assets/theme.css';

void mountPage(PopupView, builtinPluginUi);

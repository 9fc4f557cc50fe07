import type { PluginUi } from '@/core/ui/plugins';
import ChatPaused from './ChatPaused.vue';

export const pageActionsUi: PluginUi = {
  id: 'page-actions',
  chatPanels: [{ id: 'page-actions-paused', place: 'bottom', component: ChatPaused }],
};

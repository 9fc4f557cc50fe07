import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const pageActionsUi: PluginUi = {
  id: 'page-actions',
  chatPanels: [{ id: 'page-actions-paused', place: 'bottom', component: defineAsyncComponent(() => import('./ChatPaused.vue')) }],
};

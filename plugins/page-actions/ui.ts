import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { PluginUi } from '@/core/ui/plugins';

export const pageActionsUi: PluginUi = {
  id: 'page-actions',
  chatPanels: [{ id: 'page-actions-paused', place: 'bottom', component: defineAsyncComponent(() => import('./ChatPaused.vue')) }],
  settings: [{ id: 'page-actions', group: 'Agent', title: () => t('pageActions.settings.title'), component: defineAsyncComponent(() => import('./SettingsPageActions.vue')), order: 55 }],
};

import { t } from '@/core/ui/i18n';
import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const webUi: PluginUi = {
  id: 'web',
  settings: [{ id: 'search', group: 'Agent', title: () => t('settings.section.search'), component: defineAsyncComponent(() => import('./SettingsSearch.vue')), order: 50 }],
};

import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { PluginUi } from '@/core/ui/plugins';

export const plansUi: PluginUi = {
  id: 'plans',
  chatPanels: [{ id: 'plans', place: 'bottom', component: defineAsyncComponent(() => import('./ChatPlans.vue')) }],
  settings: [{ id: 'approvals', group: 'Privacy', title: () => t('plans.settings.title'), component: defineAsyncComponent(() => import('./SettingsApprovalMode.vue')), order: -10 }],
};

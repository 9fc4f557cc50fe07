import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const pageToolsUi: PluginUi = {
  id: 'page_tools',
  chatPanels: [{ id: 'page-tools', place: 'top', component: defineAsyncComponent(() => import('./ChatPageTools.vue')) }],
  popup: [{ id: 'page-tools', component: defineAsyncComponent(() => import('./PopupPageTools.vue')) }],
  settings: [{ id: 'sites', group: 'Privacy', title: 'Sites & tools', component: defineAsyncComponent(() => import('./SettingsSites.vue')) }],
};

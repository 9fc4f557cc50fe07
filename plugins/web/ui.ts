import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const webUi: PluginUi = {
  id: 'web',
  settings: [{ id: 'search', group: 'Agent', title: 'Search engines', component: defineAsyncComponent(() => import('./SettingsSearch.vue')), order: 50 }],
};

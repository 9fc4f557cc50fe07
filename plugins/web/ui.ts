import type { PluginUi } from '@/core/ui/plugins';
import SettingsSearch from './SettingsSearch.vue';

export const webUi: PluginUi = {
  id: 'web',
  settings: [{ id: 'search', group: 'Agent', title: 'Search engines', component: SettingsSearch, order: 50 }],
};

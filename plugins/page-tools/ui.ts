import type { PluginUi } from '@/core/ui/plugins';
import ChatPageTools from './ChatPageTools.vue';
import PopupPageTools from './PopupPageTools.vue';
import SettingsSites from './SettingsSites.vue';

export const pageToolsUi: PluginUi = {
  id: 'page_tools',
  chatPanels: [{ id: 'page-tools', place: 'top', component: ChatPageTools }],
  popup: [{ id: 'page-tools', component: PopupPageTools }],
  settings: [{ id: 'sites', group: 'Privacy', title: 'Sites & tools', component: SettingsSites }],
};

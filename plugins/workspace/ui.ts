import type { PluginUi } from '@/core/ui/plugins';
import SettingsWorkspace from './SettingsWorkspace.vue';

export const workspaceUi: PluginUi = {
  id: 'workspace',
  settings: [{ id: 'workspace', group: 'Data', title: 'Workspace files', component: SettingsWorkspace }],
};

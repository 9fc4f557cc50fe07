import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const workspaceUi: PluginUi = {
  id: 'workspace',
  settings: [{ id: 'workspace', group: 'Data', title: 'Workspace files', component: defineAsyncComponent(() => import('./SettingsWorkspace.vue')) }],
};

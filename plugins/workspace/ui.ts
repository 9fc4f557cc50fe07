import { t } from '@/core/ui/i18n';
import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const workspaceUi: PluginUi = {
  id: 'workspace',
  settings: [{ id: 'workspace', group: 'Data', title: () => t('settings.section.workspace'), component: defineAsyncComponent(() => import('./SettingsWorkspace.vue')) }],
};

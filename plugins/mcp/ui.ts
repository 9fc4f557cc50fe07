import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { PluginUi } from '@/core/ui/plugins';

export const mcpUi: PluginUi = {
  id: 'mcp',
  settings: [{ id: 'mcp', group: 'Agent', title: () => t('mcp.title'), component: defineAsyncComponent(() => import('./SettingsMcp.vue')), order: 60 }],
};

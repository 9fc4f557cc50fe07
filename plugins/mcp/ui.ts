import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const mcpUi: PluginUi = {
  id: 'mcp',
  settings: [{ id: 'mcp', group: 'Agent', title: 'MCP servers', component: defineAsyncComponent(() => import('./SettingsMcp.vue')), order: 60 }],
};

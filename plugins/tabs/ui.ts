import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

/** What the tabs plugin adds to the pages: the Close / Keep offer once a run has left the agent's tabs open. */
export const tabsUi: PluginUi = {
  id: 'tabs',
  chatPanels: [{ id: 'agent-tabs', place: 'bottom', component: defineAsyncComponent(() => import('./ChatAgentTabs.vue')) }],
};

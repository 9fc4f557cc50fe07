import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const tasksUi: PluginUi = {
  id: 'tasks',
  chatPanels: [{ id: 'tasks', place: 'bottom', component: defineAsyncComponent(() => import('./ChatTasks.vue')) }],
};

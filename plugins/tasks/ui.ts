import type { PluginUi } from '@/core/ui/plugins';
import ChatTasks from './ChatTasks.vue';

export const tasksUi: PluginUi = {
  id: 'tasks',
  chatPanels: [{ id: 'tasks', place: 'bottom', component: ChatTasks }],
};

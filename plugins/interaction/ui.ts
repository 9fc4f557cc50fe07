import type { PluginUi } from '@/core/ui/plugins';
import ChatQuestions from './ChatQuestions.vue';

export const interactionUi: PluginUi = {
  id: 'interaction',
  chatPanels: [{ id: 'questions', place: 'bottom', component: ChatQuestions }],
};

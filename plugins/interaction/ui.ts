import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';

export const interactionUi: PluginUi = {
  id: 'interaction',
  chatPanels: [{ id: 'questions', place: 'bottom', component: defineAsyncComponent(() => import('./ChatQuestions.vue')) }],
};

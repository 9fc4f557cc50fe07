import { defineAsyncComponent } from 'vue';
import type { PluginUi } from '@/core/ui/plugins';
import { reduceSubAgentActivity } from './record';
import { AGENT_TOOL } from './types';

export const subagentsUi: PluginUi = {
  id: 'subagents',
  toolCards: { [AGENT_TOOL]: { component: defineAsyncComponent(() => import('./ChatSubAgent.vue')), reduceActivity: reduceSubAgentActivity } },
};

import type { PluginUi } from '@/core/ui/plugins';
import ChatSubAgent from './ChatSubAgent.vue';
import { reduceSubAgentActivity } from './record';
import { AGENT_TOOL } from './types';

export const subagentsUi: PluginUi = {
  id: 'subagents',
  toolCards: { [AGENT_TOOL]: { component: ChatSubAgent, reduceActivity: reduceSubAgentActivity } },
};

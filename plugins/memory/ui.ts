import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { PluginUi } from '@/core/ui/plugins';
import { useLeftOutStore } from './store';

/**
 * What the memory plugin adds to the pages: Settings → Memory (the list, Remember that …, the
 * switch), and the conversation menu's switch that leaves the memories out of one conversation.
 */
export const memoryUi: PluginUi = {
  id: 'memory',
  settings: [{ id: 'memory', group: 'Agent', title: () => t('memory.settings.title'), component: defineAsyncComponent(() => import('./MemorySettings.vue')), order: 75 }],
  conversationMenu: [
    {
      id: 'memory-use',
      label: () => t('memory.menu.use'),
      checked: (conversationId) => useLeftOutStore().uses(conversationId),
      run: (conversationId) => void useLeftOutStore().toggle(conversationId),
    },
  ],
};

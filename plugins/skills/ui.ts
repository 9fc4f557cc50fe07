import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { PluginUi } from '@/core/ui/plugins';
import SkillsChatPanel from './SkillsChatPanel.vue';
import SkillsMessageActions from './SkillsMessageActions.vue';
import { useSkillsStore } from './store';

/**
 * What the skills plugin adds to the pages: "Save as skill" under a finished run and in the
 * conversation's menu, the save form (SkillsChatPanel, SkillsSaveForm), `/` suggestions in the
 * message box, Settings → Skills.
 */
export const skillsUi: PluginUi = {
  id: 'skills',
  settings: [{ id: 'skills', group: 'Agent', title: () => t('skills.settings.title'), component: defineAsyncComponent(() => import('./SkillsSettings.vue')), order: 70 }],
  chatPanels: [{ id: 'skills', place: 'top', component: SkillsChatPanel }],
  messageActions: [{ id: 'skills-save', component: SkillsMessageActions }],
  conversationMenu: [
    {
      id: 'skills-save',
      label: () => t('skills.actions.save'),
      run: (conversationId) => void useSkillsStore().openDraft(conversationId),
    },
  ],
  composer: {
    label: () => t('skills.composer.label'),
    suggest: (text) => useSkillsStore().suggest(text),
  },
};

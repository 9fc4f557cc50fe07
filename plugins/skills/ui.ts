import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { PluginUi } from '@/core/ui/plugins';

/**
 * What the skills plugin adds to the pages: "Save as skill" under a finished run and in the
 * conversation's menu, the save form (SkillsChatPanel, SkillsSaveForm), `/` suggestions in the
 * message box, Settings → Skills.
 */
/** The skills store, loaded with the first suggestion or menu choice (not with the sidebar). */
async function skillsStore() {
  return (await import('./store')).useSkillsStore();
}

export const skillsUi: PluginUi = {
  id: 'skills',
  settings: [{ id: 'skills', group: 'Agent', title: () => t('skills.settings.title'), component: defineAsyncComponent(() => import('./SkillsSettings.vue')), order: 70 }],
  chatPanels: [{ id: 'skills', place: 'top', component: defineAsyncComponent(() => import('./SkillsChatPanel.vue')) }],
  messageActions: [{ id: 'skills-save', component: defineAsyncComponent(() => import('./SkillsMessageActions.vue')) }],
  conversationMenu: [
    {
      id: 'skills-save',
      label: () => t('skills.actions.save'),
      run: (conversationId) => void skillsStore().then((store) => store.openDraft(conversationId)),
    },
  ],
  composer: {
    label: () => t('skills.composer.label'),
    suggest: async (text) => (await skillsStore()).suggest(text),
  },
};

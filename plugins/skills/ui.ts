import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { PluginUi } from '@/core/ui/plugins';

/** What the skills plugin adds to the pages: the save form, `/` suggestions, Settings → Skills. */
export const skillsUi: PluginUi = {
  id: 'skills',
  settings: [{ id: 'skills', group: 'Agent', title: () => t('skills.settings.title'), component: defineAsyncComponent(() => import('./SkillsSettings.vue')), order: 70 }],
};

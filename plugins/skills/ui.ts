import type { PluginUi } from '@/core/ui/plugins';

/** What the skills plugin adds to the pages: the save form, `/` suggestions, Settings → Skills. */
export const skillsUi: PluginUi = {
  id: 'skills',
};

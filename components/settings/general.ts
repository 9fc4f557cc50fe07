import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import type { SettingsSection } from '@/core/ui/plugins';

/** Settings → General → Language & keyboard: the language menu and the keyboard shortcuts. */
export const generalSection: SettingsSection = {
  id: 'general',
  group: 'General',
  title: () => t('settings.section.general'),
  component: defineAsyncComponent(() => import('./SettingsGeneral.vue')),
};

/** A section's name in the page's language. */
export function sectionTitle(section: SettingsSection): string {
  return typeof section.title === 'function' ? section.title() : section.title;
}

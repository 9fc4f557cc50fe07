import { defineAsyncComponent } from 'vue';
import { t, type MessageKey } from '@/core/ui/i18n';
import type { SettingsSection } from '@/core/ui/plugins';

/** Settings → General → Language & keyboard: the language menu and the keyboard shortcuts. */
export const generalSection: SettingsSection = {
  id: 'general',
  group: 'General',
  title: () => t('settings.section.general'),
  component: defineAsyncComponent(() => import('./SettingsGeneral.vue')),
};

/**
 * A section's name in the page's language: its own function, else `settings.section.<id>` from the
 * locale files (so sections declared with a plain English title are translated too), else as given.
 */
export function sectionTitle(section: SettingsSection): string {
  if (typeof section.title === 'function') return section.title();
  const key = `settings.section.${section.id}` as MessageKey;
  const text = t(key);
  return text === key ? section.title : text;
}

import { pluginUi, type SettingsSection } from '@/core/ui/plugins';
import { defineAsyncComponent } from 'vue';
import { t } from '@/core/ui/i18n';
import SettingsPlugins from './SettingsPlugins.vue';
import SettingsProvider from './SettingsProvider.vue';

export type { SettingsSection };

/** The groups of the navigation, in order. */
const GROUPS = ['Agent', 'Privacy', 'Data'];

/** The core's own sections. */
const core: SettingsSection[] = [
  { id: 'provider', group: 'Agent', title: 'Model provider', component: SettingsProvider, order: 0 },
  { id: 'plugins', group: 'Agent', title: 'Plugins', component: SettingsPlugins, order: 100 },
  { id: 'limits', group: 'Agent', title: () => t('limits.title'), component: defineAsyncComponent(() => import('./SettingsLimits.vue')), order: 200 },
  { id: 'permissions', group: 'Privacy', title: 'Permissions', component: defineAsyncComponent(() => import('./SettingsPermissions.vue')), order: 0 },
  { id: 'data', group: 'Data', title: () => t('dataSettings.title'), component: defineAsyncComponent(() => import('./SettingsData.vue')), order: 0 },
];

/** Every section: the core's and the plugins', by group, then by order. */
export function settingsSections(): SettingsSection[] {
  const all = [...core, ...pluginUi().flatMap((ui) => ui.settings ?? [])];
  const rank = (group: string) => (GROUPS.includes(group) ? GROUPS.indexOf(group) : GROUPS.length);
  return all
    .map((section, index) => ({ section, index }))
    .sort((a, b) => rank(a.section.group) - rank(b.section.group) || (a.section.order ?? 1000) - (b.section.order ?? 1000) || a.index - b.index)
    .map(({ section }) => section);
}

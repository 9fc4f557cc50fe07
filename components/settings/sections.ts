import type { Component } from 'vue';
import SettingsPlugins from './SettingsPlugins.vue';
import SettingsProvider from './SettingsProvider.vue';
import SettingsSites from './SettingsSites.vue';
import SettingsWorkspace from './SettingsWorkspace.vue';
import SettingsSearch from './SettingsSearch.vue';

/** One page of the settings; the navigation lists them by group, in this order. */
export interface SettingsSection {
  id: string;
  group: string;
  title: string;
  component: Component;
}

export const sections: SettingsSection[] = [
  { id: 'provider', group: 'Agent', title: 'Model provider', component: SettingsProvider },
  { id: 'search', group: 'Agent', title: 'Search engines', component: SettingsSearch },
  { id: 'plugins', group: 'Agent', title: 'Plugins', component: SettingsPlugins },
  { id: 'sites', group: 'Privacy', title: 'Sites & tools', component: SettingsSites },
  { id: 'workspace', group: 'Data', title: 'Workspace files', component: SettingsWorkspace },
];

import SettingsView from '@/components/settings/SettingsView.vue';
import { mountPage } from '@/core/ui/mount';
import { builtinPluginUi } from '@/plugins/ui';
import '@/assets/theme.css';

void mountPage(SettingsView, builtinPluginUi, { title: 'settings.pageTitle' });

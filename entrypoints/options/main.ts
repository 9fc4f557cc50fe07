import { createPinia } from 'pinia';
import { createApp } from 'vue';
import SettingsView from '@/components/settings/SettingsView.vue';
import '@/assets/theme.css';

createApp(SettingsView).use(createPinia()).mount('#app');

import { createApp } from 'vue';
import PopupView from '@/components/popup/PopupView.vue';
import '@/assets/theme.css';

createApp(PopupView).mount('#app');

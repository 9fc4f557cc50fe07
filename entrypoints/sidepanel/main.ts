import { createPinia } from 'pinia';
import { createApp } from 'vue';
import ChatView from '@/components/chat/ChatView.vue';
import '@/assets/theme.css';

createApp(ChatView).use(createPinia()).mount('#app');

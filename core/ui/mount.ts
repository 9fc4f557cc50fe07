import { createPinia } from 'pinia';
import { createApp, type Component } from 'vue';
import { providePluginUi, type PluginUi } from './plugins';

/** Mounts an extension page's root component on `#app`, with Pinia and the plugins' contributions. */
export function mountPage(root: Component, plugins: readonly PluginUi[]): void {
  providePluginUi(plugins);
  createApp(root).use(createPinia()).mount('#app');
}

import { createPinia, type Pinia } from 'pinia';
import { createApp, watchEffect, type Component } from 'vue';
import { t, type MessageKey } from './i18n';
import { startI18n } from './i18n-setup';
import { providePluginUi, type PluginUi } from './plugins';

/**
 * Mounts an extension page's root component on `#app`, with Pinia and the plugins' contributions,
 * once the page's language is known (`lang`, `dir` and the translations follow the setting).
 * `title`: the key of the page's title (the window's or tab's name).
 */
export async function mountPage(root: Component, plugins: readonly PluginUi[], options: { title?: MessageKey } = {}): Promise<{ pinia: Pinia }> {
  providePluginUi(plugins);
  await startI18n();
  const title = options.title;
  if (title) watchEffect(() => (document.title = t(title)));
  const pinia = createPinia();
  createApp(root).use(pinia).mount('#app');
  return { pinia };
}

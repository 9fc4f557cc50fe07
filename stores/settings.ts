import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ProviderCheck } from '@/core/agent/provider';
import { sendMessage, type PluginInfo, type ProviderView, type UiEvent } from '@/core/messaging/protocol';
import { subscribe } from '@/core/ui/events';

/** The settings page's view of provider settings and plugins; the background owns both. */
export const useSettingsStore = defineStore('settings', () => {
  const provider = ref<ProviderView | null>(null);
  const plugins = ref<PluginInfo[]>([]);
  let unsubscribe: (() => void) | undefined;

  async function init(): Promise<void> {
    unsubscribe = subscribe(onEvent, () => void load());
    await load();
  }

  async function load(): Promise<void> {
    [provider.value, plugins.value] = await Promise.all([sendMessage('getProvider'), sendMessage('listPlugins')]);
  }

  function dispose(): void {
    unsubscribe?.();
  }

  /** Saves the provider; `apiKey` undefined keeps the saved key. Throws a readable error when invalid. */
  async function saveProvider(data: { baseUrl: string; model: string; apiKey?: string }): Promise<void> {
    provider.value = await sendMessage('saveProvider', data);
  }

  function testProvider(): Promise<ProviderCheck> {
    return sendMessage('checkProvider');
  }

  async function setPluginEnabled(id: string, enabled: boolean): Promise<void> {
    plugins.value = await sendMessage('setPluginEnabled', { id, enabled });
  }

  function onEvent(event: UiEvent): void {
    if (event.type === 'plugins') plugins.value = event.plugins;
  }

  return { provider, plugins, init, dispose, load, saveProvider, testProvider, setPluginEnabled };
});

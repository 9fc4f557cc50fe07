import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ProviderCheck } from '@/core/agent/provider';
import type { ModelInfo } from '@/core/agent/providers/common';
import type { Said } from '@/core/i18n/catalog';
import { sendMessage, type ModelListRequest, type PluginInfo, type ProtocolMap, type ProviderView, type UiEvent } from '@/core/messaging/protocol';
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

  /**
   * Saves a provider profile and makes it the default (`id: 'new'` adds one); `apiKey` undefined
   * keeps the saved key. Throws a readable error when invalid.
   */
  async function saveProvider(data: Parameters<ProtocolMap['saveProvider']>[0]): Promise<void> {
    provider.value = await sendMessage('saveProvider', data);
  }

  async function deleteProfile(id: string): Promise<void> {
    provider.value = await sendMessage('deleteProviderProfile', { id });
  }

  /** The models a provider lists, for the form's values; `error` in words when it would not say. */
  function listModels(request: ModelListRequest): Promise<{ models: ModelInfo[]; error?: string; said?: Said }> {
    return sendMessage('listModels', request);
  }

  function testProvider(): Promise<ProviderCheck> {
    return sendMessage('checkProvider');
  }

  async function setPluginEnabled(id: string, enabled: boolean): Promise<void> {
    plugins.value = await sendMessage('setPluginEnabled', { id, enabled });
  }

  function onEvent(event: UiEvent): void {
    if (event.type === 'plugins') plugins.value = event.plugins;
    else if (event.type === 'data-reset') void load();
  }

  return { provider, plugins, init, dispose, load, saveProvider, deleteProfile, listModels, testProvider, setPluginEnabled };
});

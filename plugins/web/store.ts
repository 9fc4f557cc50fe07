import { defineStore } from 'pinia';
import { ref } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import './protocol';
import type { SearchSettingsView, SearchTestInput, SearchTestResult } from './search/service';
import type { SearchSettingsInput } from './search/settings';

/** The options page's view of the search engine settings; the background owns them (and the keys). */
export const useSearchSettingsStore = defineStore('search-settings', () => {
  const settings = ref<SearchSettingsView | null>(null);

  async function load(): Promise<void> {
    settings.value = await sendMessage('getSearchSettings');
  }

  /** Saves; throws the background's validation error (its message names the problem). */
  async function save(data: SearchSettingsInput): Promise<void> {
    settings.value = await sendMessage('saveSearchSettings', data);
  }

  function test(data: SearchTestInput): Promise<SearchTestResult> {
    return sendMessage('testSearch', data);
  }

  return { settings, load, save, test };
});

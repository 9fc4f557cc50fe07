import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { LanguageChoice } from '@/core/i18n/locales';
import { agentSettings, uiLanguage, type AgentSettings } from '@/core/storage/settings';

/**
 * The user's preferences kept in extension storage (`core/storage/settings.ts`) as the settings
 * pages see them: the interface language (followed while shown: a choice in another page applies
 * here too) and the agent's limits. Pages read and write them here, never in storage directly.
 */
export const usePreferencesStore = defineStore('preferences', () => {
  const language = ref<LanguageChoice>('auto');
  let unwatch: (() => void) | undefined;
  let users = 0;

  /** Starts following the language (each component that shows it calls it, and `stop` when it goes). */
  async function start(): Promise<void> {
    if (users++) return;
    unwatch = uiLanguage.watch((value) => (language.value = value));
    language.value = await uiLanguage.getValue();
  }

  function stop(): void {
    if (--users > 0) return;
    users = 0;
    unwatch?.();
    unwatch = undefined;
  }

  /** Chooses the interface language: every open page follows at once. */
  async function setLanguage(value: LanguageChoice): Promise<void> {
    language.value = value;
    await uiLanguage.setValue(value);
  }

  /** The agent's limits (the step limit, the token budget of one run). */
  function limits(): Promise<AgentSettings> {
    return agentSettings.getValue();
  }

  /** Saves the limits; throws when they do not fit (the form checks them first). */
  function saveLimits(value: AgentSettings): Promise<void> {
    return agentSettings.setValue(value);
  }

  return { language, start, stop, setLanguage, limits, saveLimits };
});

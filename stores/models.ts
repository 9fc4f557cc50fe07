import { errorText, say } from '@/core/ui/i18n';
import { defineStore } from 'pinia';
import { ref, shallowReactive } from 'vue';
import type { ModelInfo } from '@/core/agent/providers/common';
import { sendMessage, type ProviderProfileView } from '@/core/messaging/protocol';
import type { ModelChoice } from '@/core/storage/settings';

/** One profile's model list as the picker shows it. */
export interface ModelList {
  loading: boolean;
  models: ModelInfo[];
  error?: string;
}

/**
 * The sidebar's model picker: the provider profiles, their model lists (fetched on demand through
 * the background, which holds the keys), and the model picked for the open conversation. The
 * background owns all of it; this store mirrors it.
 */
export const useModelsStore = defineStore('models', () => {
  const profiles = ref<ProviderProfileView[]>([]);
  const defaultProfileId = ref('');
  /** The model picked for the conversation shown (null: the default profile's). */
  const choice = ref<ModelChoice | null>(null);
  const lists = shallowReactive(new Map<string, ModelList>());

  /**
   * Reads the conversation's pick (`'new'`: a conversation not created yet) from the background,
   * its one source (`getConversationModel`), as `pick` writes it there.
   */
  async function loadChoice(conversationId: string): Promise<void> {
    choice.value = await sendMessage('getConversationModel', { conversationId });
  }

  /** Loads the profiles and the conversation's pick (when the picker opens). */
  async function load(conversationId: string): Promise<void> {
    const [view] = await Promise.all([sendMessage('getProvider'), loadChoice(conversationId)]);
    profiles.value = view.profiles;
    defaultProfileId.value = view.activeId;
  }

  /** Fetches each profile's model list once per opening of the picker. */
  async function loadLists(): Promise<void> {
    await Promise.all(
      profiles.value.map(async (profile) => {
        lists.set(profile.id, { loading: true, models: lists.get(profile.id)?.models ?? [] });
        try {
          const answer = await sendMessage('listModels', { profileId: profile.id });
          lists.set(profile.id, { loading: false, models: answer.models, error: answer.error === undefined ? undefined : say(answer.said, answer.error) });
        } catch (error) {
          lists.set(profile.id, { loading: false, models: [], error: errorText(error) });
        }
      }),
    );
  }

  /** Picks the conversation's model (null: back to the default); its next request uses it. */
  async function pick(conversationId: string, next: ModelChoice | null): Promise<void> {
    choice.value = await sendMessage('setConversationModel', { conversationId, choice: next });
  }

  return { profiles, defaultProfileId, choice, lists, load, loadChoice, loadLists, pick };
});

import { ProviderError, runError } from '@/core/agent/errors';
import type { ModelClient, ProviderCheck, ProviderConfig } from '@/core/agent/provider';
import type { SummaryMemory } from '@/core/agent/context-window';
import { createAgentClient, type NoticeKind } from '@/core/agent/clients';
import { checkProvider, describeListError, listModels, prepareProvider, type ModelInfo } from '@/core/agent/providers';
import { assertKeyTransport } from '@/core/agent/providers/common';
import { english, SaidError, saidOf, type Said } from '@/core/i18n/catalog';
import type { ModelListRequest, ProviderProfileView, ProviderView } from '@/core/messaging/protocol';
import type { ConversationStore } from '@/core/storage/conversations';
import type { AssistantMessage } from '@/core/storage/db';
import type { EventHub } from './events';
import { keepsSecret } from '@/core/net/key-origin';
import { originOf } from '@/core/net/origin';
import type { DbSetting } from '@/core/storage/setting';
import {
  conversationModels,
  providerSettingsStore,
  validateProviderProfile,
  type ModelChoice,
  type ProviderProfile,
  type ProviderProfileInput,
  type ProviderSecrets,
  type ProviderSettings,
} from '@/core/storage/settings';

/** The id the sidebar uses for a conversation not created yet. */
export const NEW_CONVERSATION = 'new';

/**
 * The background's side of model providers: profiles (settings + keys per profile), model lists,
 * the model picked per conversation, and model clients built from them. Keys never leave it.
 */
export class ProviderService {
  /** The profiles, in the same database as their keys. */
  readonly settings: DbSetting<ProviderSettings>;

  constructor(private readonly secrets: ProviderSecrets) {
    this.settings = providerSettingsStore(secrets.db);
  }

  /**
   * The origins of the profiles' addresses the user typed or saved in the form: they count as
   * consented to. A profile whose address came from a settings file (`imported`) does not, until
   * the user saves it in the form.
   */
  async origins(): Promise<string[]> {
    const origins = new Set<string>();
    for (const profile of (await this.settings.getValue()).profiles) {
      const origin = profile.imported ? '' : originOf(profile.baseUrl);
      if (origin) origins.add(origin);
    }
    return [...origins];
  }

  /** The connection a conversation's next request uses: its picked model, else the default profile's. */
  async config(conversationId?: string): Promise<ProviderConfig> {
    // Side by side: each is a storage read, and a run's first request waits for them.
    const [settings, choices] = await Promise.all([this.settings.getValue(), conversationId ? conversationModels.getValue() : undefined]);
    const choice = conversationId ? choices?.[conversationId] : undefined;
    const profile =
      settings.profiles.find((p) => p.id === (choice?.profileId ?? settings.activeId)) ??
      settings.profiles.find((p) => p.id === settings.activeId) ??
      settings.profiles[0];
    if (!profile) throw new ProviderError(runError('bad_request', 'errors.provider.none'));
    const model = choice && choice.profileId === profile.id ? choice.model : profile.model;
    try {
      validateProviderProfile({ ...profile, model });
    } catch (error) {
      const reason = saidOf(error) ?? (error as Error).message;
      throw new ProviderError(runError('bad_request', 'errors.provider.unusable', { reason }));
    }
    return {
      type: profile.type,
      baseUrl: profile.baseUrl,
      model,
      apiKey: await this.secrets.getApiKey(profile.id),
      contextLength: profile.contextLength,
      numCtx: profile.numCtx,
      toolMode: profile.toolMode,
      images: profile.images,
      pricing:
        profile.inputPrice !== undefined && profile.outputPrice !== undefined
          ? { inputPerMTok: profile.inputPrice, outputPerMTok: profile.outputPrice }
          : undefined,
    };
  }

  /**
   * Evaluates the default profile's provider package ahead of a run's first request: a stopped
   * worker evaluates none at start, and the first send then waited 4–8 ms for it (bench/README.md,
   * round 11). Once it is evaluated, this costs a settings read. Sends nothing.
   */
  prepare(): Promise<void> {
    return this.config().then(prepareProvider, () => undefined);
  }

  /**
   * A model client for the conversation (or the default profile): prompted tool calls when the
   * model has none, the context window kept. Throws `ProviderError` if it cannot be built.
   */
  async client(conversationId?: string, notice?: (kind: NoticeKind, words: Said, once?: boolean) => void, summaries?: SummaryMemory): Promise<ModelClient> {
    return createAgentClient(await this.config(conversationId), notice, summaries);
  }

  async check(): Promise<ProviderCheck> {
    let config: ProviderConfig;
    try {
      config = await this.config();
    } catch (error) {
      const settings = await this.settings.getValue();
      const profile = settings.profiles.find((p) => p.id === settings.activeId);
      return { ok: false, model: profile?.model ?? '', message: (error as Error).message, said: saidOf(error) };
    }
    return checkProvider(config);
  }

  async view(): Promise<ProviderView> {
    const settings = await this.settings.getValue();
    const profiles: ProviderProfileView[] = await Promise.all(
      settings.profiles.map(async (p) => ({ ...p, hasApiKey: Boolean(await this.secrets.getApiKey(p.id)) })),
    );
    const active = profiles.find((p) => p.id === settings.activeId) ?? profiles[0]!;
    return { ...active, activeId: active.id, profiles };
  }

  /** Validates and saves a profile, makes it the default, and stores its key if one was given. */
  async save(input: Partial<ProviderProfileInput> & { baseUrl: string; model: string; apiKey?: string }): Promise<ProviderView> {
    const settings = await this.settings.getValue();
    const id = input.id === 'new' ? crypto.randomUUID() : (input.id ?? settings.activeId);
    const existing = settings.profiles.find((p) => p.id === id);
    const clean = validateProviderProfile({ ...existing, ...input, type: input.type ?? existing?.type ?? 'openai-compatible', id });
    // Saved by the user in the form: the address is theirs now (an `imported` mark goes).
    const profile: ProviderProfile = { ...clean, id, name: clean.name };
    // A key belongs to the address it was given for (core/net/key-origin.ts): a profile moved to
    // another origin asks for it again (the saved one is dropped, never sent there).
    const moved = Boolean(existing) && !keepsSecret(existing!.baseUrl, profile.baseUrl);
    const key = input.apiKey !== undefined ? input.apiKey.trim() : moved ? undefined : await this.secrets.getApiKey(id);
    // Refused before anything is saved: a key must not go over plain http to another computer.
    assertKeyTransport(profile.baseUrl, key);
    const profiles = existing ? settings.profiles.map((p) => (p.id === id ? profile : p)) : [...settings.profiles, profile];
    await this.settings.setValue({ activeId: id, profiles });
    if (input.apiKey !== undefined) await this.secrets.setApiKey(input.apiKey, id);
    else if (moved) await this.secrets.setApiKey('', id);
    return this.view();
  }

  /** Removes a profile and its key; the last one stays (there must be a default). */
  async remove(id: string): Promise<ProviderView> {
    const settings = await this.settings.getValue();
    if (settings.profiles.length <= 1) throw new SaidError('errors.provider.onlyProfile');
    const profiles = settings.profiles.filter((p) => p.id !== id);
    const activeId = settings.activeId === id ? profiles[0]!.id : settings.activeId;
    await this.settings.setValue({ activeId, profiles });
    await this.secrets.setApiKey('', id);
    const choices = await conversationModels.getValue();
    const kept = Object.fromEntries(Object.entries(choices).filter(([, c]) => c.profileId !== id));
    if (Object.keys(kept).length !== Object.keys(choices).length) await conversationModels.setValue(kept);
    return this.view();
  }

  /** A provider's model list for a saved profile or the options form's values. */
  async models(request: ModelListRequest): Promise<{ models: ModelInfo[]; error?: string; said?: Said }> {
    const settings = await this.settings.getValue();
    const profile = settings.profiles.find((p) => p.id === (request.profileId ?? settings.activeId));
    const type = request.type ?? profile?.type ?? 'openai-compatible';
    const baseUrl = request.baseUrl?.trim() || profile?.baseUrl || '';
    // The saved key only goes to the address it was saved for.
    const sameOrigin = profile !== undefined && keepsSecret(profile.baseUrl, baseUrl);
    const apiKey = request.apiKey?.trim() || (profile && sameOrigin ? await this.secrets.getApiKey(profile.id) : undefined);
    const config: ProviderConfig = { type, baseUrl, model: profile?.model ?? '', apiKey };
    try {
      return { models: await listModels(config) };
    } catch (error) {
      const words = describeListError(error, type, baseUrl);
      return { models: [], error: english(words), said: words };
    }
  }

  async getChoice(conversationId: string): Promise<ModelChoice | null> {
    return (await conversationModels.getValue())[conversationId] ?? null;
  }

  async setChoice(conversationId: string, choice: ModelChoice | null): Promise<ModelChoice | null> {
    const all = { ...(await conversationModels.getValue()) };
    if (choice) {
      const settings = await this.settings.getValue();
      if (!settings.profiles.some((p) => p.id === choice.profileId)) throw new SaidError('errors.provider.profileGone');
      const model = choice.model.trim();
      if (!model) throw new SaidError('errors.provider.modelMissing');
      all[conversationId] = { profileId: choice.profileId, model };
    } else delete all[conversationId];
    await conversationModels.setValue(all);
    return all[conversationId] ?? null;
  }

  /**
   * A model picked before the conversation existed (the sidebar's new conversation, id `new`)
   * goes to the conversation created next.
   */
  async adoptNew(conversationId: string): Promise<void> {
    const all = await conversationModels.getValue();
    const pending = all[NEW_CONVERSATION];
    if (!pending) return;
    const { [NEW_CONVERSATION]: _, ...rest } = all;
    await conversationModels.setValue({ ...rest, [conversationId]: pending });
  }

  /** Forgets a deleted conversation's pick. */
  async forget(conversationId: string): Promise<void> {
    const all = await conversationModels.getValue();
    if (!(conversationId in all)) return;
    const { [conversationId]: _, ...rest } = all;
    await conversationModels.setValue(rest);
  }
}

/**
 * Writes a note from Sidequest into the conversation (shown in the sidebar, never sent to the
 * model). A note marked `once` (prompted tool calls; old results shortened) is written once per
 * conversation.
 */
export async function addNotice(
  store: ConversationStore,
  hub: EventHub,
  conversationId: string,
  kind: NoticeKind,
  words: Said,
  once = false,
): Promise<void> {
  const text = english(words);
  try {
    if (once) {
      const messages = await store.messages(conversationId);
      if (messages.some((m) => m.role === 'assistant' && m.notice === kind && m.text === `*${text}*`)) return;
    }
    const message = await store.append<AssistantMessage>({
      role: 'assistant',
      conversationId,
      text: `*${text}*`,
      status: 'complete',
      toolCalls: [],
      notice: kind,
      said: words,
    });
    hub.broadcast({ type: 'message', message });
  } catch (error) {
    console.warn('[sidequest] could not write a notice', error);
  }
}

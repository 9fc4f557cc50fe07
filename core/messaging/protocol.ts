import { defineExtensionMessaging } from '@webext-core/messaging';
import type { ProviderCheck } from '@/core/agent/provider';
import type { ModelInfo } from '@/core/agent/providers/common';
import type { ConsentDecision, PageTabView, SitePermission } from '@/core/page-tools/types';
import type { PendingQuestion } from '@/core/background/questions';
import type { Task } from '@/core/background/task-board';
import type { PluginSource, SubAgentEvent } from '@/core/registry/types';
import type { SearchSettingsView, SearchTestInput, SearchTestResult } from '@/core/search/service';
import type { SearchSettingsInput } from '@/core/storage/search';
import type { Conversation, StoredMessage } from '@/core/storage/db';
import type { ModelChoice, ProviderProfile, ProviderProfileInput } from '@/core/storage/settings';

/** A plugin as settings and the UI list it. */
export interface PluginInfo {
  id: string;
  name: string;
  description: string;
  source: PluginSource;
  enabled: boolean;
  tools: Array<{ name: string; description: string }>;
}

/** A provider profile as pages see it: the key itself never leaves the background. */
export interface ProviderProfileView extends ProviderProfile {
  hasApiKey: boolean;
}

/** Provider settings as pages see them: the default profile's fields, and every profile. */
export interface ProviderView extends ProviderProfileView {
  activeId: string;
  profiles: ProviderProfileView[];
}

/** A model list request: a saved profile, or the options form's unsaved values (its typed key, else the profile's saved one). */
export interface ModelListRequest {
  profileId?: string;
  type?: ProviderProfile['type'];
  baseUrl?: string;
  apiKey?: string;
}

export interface ConversationView {
  conversation: Conversation;
  messages: StoredMessage[];
  running: boolean;
}

/**
 * Requests from the extension's pages (sidebar, popup, options) to the background. Each has one
 * data object and a typed reply; a handler that throws rejects the sender's promise.
 */
export interface ProtocolMap {
  listConversations(): Conversation[];
  getConversation(data: { id: string }): ConversationView | null;
  createConversation(): Conversation;
  renameConversation(data: { id: string; title: string }): Conversation;
  deleteConversation(data: { id: string }): void;
  sendMessage(data: { conversationId: string; text: string }): void;
  stopRun(data: { conversationId: string }): void;
  resumeRun(data: { conversationId: string }): void;
  // ——— Model providers: profiles, model lists, the model of a conversation ———
  /** Asks the default profile's provider for its models. */
  checkProvider(): ProviderCheck;
  getProvider(): ProviderView;
  /**
   * Saves a profile and makes it the default. No `id`: the default profile; `id: 'new'`: a new
   * one. `apiKey` undefined keeps the saved key, '' removes it.
   */
  saveProvider(data: Partial<ProviderProfileInput> & { baseUrl: string; model: string; apiKey?: string }): ProviderView;
  deleteProviderProfile(data: { id: string }): ProviderView;
  /** The models a provider lists; `error` in words when it would not say. */
  listModels(data: ModelListRequest): { models: ModelInfo[]; error?: string };
  /** The model picked for a conversation in the sidebar (id 'new': the next one created); null: the default profile's. */
  getConversationModel(data: { conversationId: string }): ModelChoice | null;
  /** Picks a conversation's model (null: back to the default); its next request uses it. */
  setConversationModel(data: { conversationId: string; choice: ModelChoice | null }): ModelChoice | null;
  // ——— end of model providers ———
  listPlugins(): PluginInfo[];
  setPluginEnabled(data: { id: string; enabled: boolean }): PluginInfo[];
  /** Search engine settings (Settings → Search engines); keys are never sent, only whether they are set. */
  getSearchSettings(): SearchSettingsView;
  /** Validates and saves; a key left undefined keeps the saved one, '' removes it. */
  saveSearchSettings(data: SearchSettingsInput): SearchSettingsView;
  /** Runs a real query with the form's engine and keys (saved keys where none is typed). */
  testSearch(data: SearchTestInput): SearchTestResult;
  /** Per-step overhead figures of recent runs (for bench/). */
  getStepTimings(): Array<{ toolStartDelay: number; nextRequestDelay: number }>;
  /** The page tools every tab offers now. */
  listPageTools(): PageTabView[];
  /** Asks a tab for a fresh list; null when its page offers no tools. */
  refreshPageTools(data: { tabId: number; reason?: string }): PageTabView | null;
  /** The user's answer to "allow this site's tools?". */
  decidePageTools(data: { origin: string; decision: ConsentDecision }): PageTabView[];
  listSitePermissions(): SitePermission[];
  /** Forgets a site's decision: its tools wait for the user's answer again. */
  revokeSitePermission(data: { origin: string }): SitePermission[];
  /** Runs a registry tool `iterations` times and returns each call's time in ms (for bench/). */
  measureToolCalls(data: { name: string; input: unknown; iterations: number }): { durations: number[]; ok: number; lastError?: string };
  /** The agent's task list of a conversation (tasks plugin). */
  getTasks(data: { conversationId: string }): Task[];
  /** The ask_user questions waiting for an answer, in every conversation. */
  listQuestions(): PendingQuestion[];
  /** Answers a question: text, one option, several options (multiple), or null to skip it. */
  answerQuestion(data: { id: string; answer: string | string[] | null }): void;
}

export const messaging = defineExtensionMessaging<ProtocolMap>();
export const { sendMessage, onMessage } = messaging;

/** The port name extension pages connect on to receive live updates from the background. */
export const EVENTS_PORT = 'sidequest:events';

/** Live updates the background pushes to every open extension page. */
export type UiEvent =
  | { type: 'conversation'; conversation: Conversation; running: boolean }
  | { type: 'conversation-deleted'; id: string }
  | { type: 'message'; message: StoredMessage }
  /** A piece of streamed text; `offset` is where it starts in the message's text. */
  | { type: 'delta'; conversationId: string; messageId: string; text: string; offset: number }
  | { type: 'plugins'; plugins: PluginInfo[] }
  | { type: 'page-tools'; tabs: PageTabView[] }
  | { type: 'site-permissions'; permissions: SitePermission[] }
  /** A conversation's task list changed. */
  | { type: 'tasks'; conversationId: string; tasks: Task[] }
  /** ask_user: a question waits for the user; it closed (answered, skipped, timed out, withdrawn). */
  | { type: 'question'; question: PendingQuestion }
  | { type: 'question-closed'; id: string; conversationId?: string }
  /** A sub-agent started by the tool call `toolCallId` reported something. */
  | { type: 'sub_agent_event'; conversationId: string; toolCallId: string; event: SubAgentEvent }
  /** A tool changed the workspace at `path`. */
  | { type: 'workspace'; path: string };

import { defineExtensionMessaging } from '@webext-core/messaging';
import type { RetainedCounts } from '@/core/retained';
import type { Said } from '@/core/i18n/catalog';
import type { ProviderCheck } from '@/core/agent/provider';
import type { ModelInfo } from '@/core/agent/providers/common';
import type { ApprovalAnswer, PendingApproval, Permission } from '@/core/approvals/gate';
import type { PluginSource, ToolAnnotations } from '@/core/registry/types';
import type { Archive } from '@/core/data/archive';
import type { SettingsFile } from '@/core/data/settings-file';
import type { SettingsImportPreview } from '@/core/data/settings-import';
import type { StepTrace } from '@/core/data/trace';
import type { ContextTiming } from '@/core/agent/context-timing';
import type { ListPage, ListPageRequest } from '@/core/storage/conversations';
import type { Conversation, StoredMessage } from '@/core/storage/db';
import type { ModelChoice, ProviderProfile, ProviderProfileInput } from '@/core/storage/settings';

/** A plugin as settings and the UI list it. */
export interface PluginInfo {
  id: string;
  name: string;
  description: string;
  source: PluginSource;
  enabled: boolean;
  tools: Array<{ name: string; description: string; annotations: Omit<ToolAnnotations, 'target'> }>;
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
}

/**
 * Requests from the extension's pages (sidebar, popup, options) to the background. Each has one
 * data object and a typed reply; a handler that throws rejects the sender's promise.
 *
 * This is the core's part. A plugin adds its own messages in its `protocol.ts` by declaration
 * merging (`declare module '@/core/messaging/protocol' { interface ProtocolMap { … } }`), so the
 * one map stays fully typed and a removed plugin takes its messages with it.
 */
export interface ProtocolMap extends BenchProtocolMap {
  listConversations(): Conversation[];
  /** A page of the list, most recent first (`ConversationStore.listPage`). */
  listConversationPage(data: ListPageRequest): ListPage;
  getConversation(data: { id: string }): ConversationView | null;
  createConversation(): Conversation;
  renameConversation(data: { id: string; title: string }): Conversation;
  deleteConversation(data: { id: string }): void;
  sendMessage(data: { conversationId: string; text: string }): void;
  /**
   * A new conversation with its first message, in one write, and its run started (the sidebar's
   * Send with none open). `id`: a new UUID the page chose, so it shows the run's events from the start.
   */
  startConversation(data: { id: string; text: string }): Conversation;
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
  listModels(data: ModelListRequest): { models: ModelInfo[]; error?: string; said?: Said };
  /** The model picked for a conversation in the sidebar (id 'new': the next one created); null: the default profile's. */
  getConversationModel(data: { conversationId: string }): ModelChoice | null;
  /** Picks a conversation's model (null: back to the default); its next request uses it. */
  setConversationModel(data: { conversationId: string; choice: ModelChoice | null }): ModelChoice | null;
  // ——— end of model providers ———
  listPlugins(): PluginInfo[];
  setPluginEnabled(data: { id: string; enabled: boolean }): PluginInfo[];
  /** The approval gate's asks waiting for the user, in every conversation. */
  listApprovals(): PendingApproval[];
  /** The user's answer to an ask: Allow once, Always allow (this tool on this site), Deny. */
  answerApproval(data: { id: string; answer: ApprovalAnswer }): void;
  /** The remembered choices (Settings → Privacy → Permissions). */
  listPermissions(): Permission[];
  revokePermission(data: { tool: string; site: string }): Permission[];
  /** The conversation's "act without asking" switch. */
  setActWithoutAsking(data: { conversationId: string; on: boolean }): Conversation;
  // ——— The user's data (Settings → Data, the sidebar's Export) ———
  /** One conversation's archive, or all of them (no id). */
  exportConversations(data: { conversationId?: string }): Archive;
  /** Imports an archive file's text: all of it or nothing; conversations already here are skipped. Throws, in words, what is wrong. */
  importConversations(data: { text: string }): { added: number; skipped: number };
  /** Deletes every conversation, file, remembered permission, setting and key: a fresh install. */
  deleteAllData(): void;
  /** The settings as a file; API keys only when asked. */
  exportSettings(data: { includeKeys: boolean }): SettingsFile;
  /**
   * What importing a settings file's text would change; writes nothing. Throws, in words, what is
   * wrong with the file. The token imports exactly this (`applySettingsImport`).
   */
  previewSettingsImport(data: { text: string }): { token: string; preview: SettingsImportPreview };
  /** Imports the previewed text, once; refused if the token is not the pending one or the settings changed since. */
  applySettingsImport(data: { token: string; text: string }): { applied: Said[] };
  /** Drops the pending preview (Cancel): nothing is written. */
  cancelSettingsImport(data: { token: string }): void;
  /** Ids of conversations whose title or text contains the query (most recent first). */
  /** The conversations whose title or messages hold every word of the query (200 at most), most recent first. */
  searchConversations(data: { query: string }): Conversation[];
  /** The request and response of the step that produced an answer (keys redacted), if kept. */
  getTrace(data: { messageId: string }): StepTrace | null;
  /**
   * How many things the background keeps in memory now, by name (`core/retained.ts`): numbers
   * only, never contents. For the memory test and the bench.
   */
  getRetainedCounts(): RetainedCounts;
}

/**
 * Requests that exist only in benchmark builds (`wxt build --mode bench`): production builds
 * register no handler for them.
 */
export interface BenchProtocolMap {
  /** Per-step overhead figures of recent runs. */
  getStepTimings(): Array<{ toolStartDelay: number; nextRequestDelay: number }>;
  /**
   * Context management per request (`core/agent/context-timing.ts`), and one `JSON.stringify` of the
   * latest request's prompt timed 5 times (a baseline; `chars` its length). `reset` forgets them.
   */
  getContextTimings(data: { reset?: boolean }): { timings: ContextTiming[]; stringify: number[]; chars: number };
  /** Runs a registry tool `iterations` times and returns each call's time in ms. */
  measureToolCalls(data: { name: string; input: unknown; iterations: number }): { durations: number[]; ok: number; lastError?: string; lastOutput?: unknown };
  /** Times a `scripting.executeScript` round trip of a function that does nothing, in a tab (a baseline for page calls). */
  measureExecuteScript(data: { tabId: number; iterations: number }): { durations: number[] };
  /** Times a step's write alone (`ConversationStore.putMany` of an answer and a tool result), `pauseMs` apart, in a conversation deleted after. */
  measureStepWrite(data: { iterations: number; pauseMs: number }): { durations: number[] };
  /** Times the approval gate's decision for a call it lets through without asking (ms per call, and the batch mean). */
  measureGate(data: { name: string; input: unknown; iterations: number }): { durations: number[]; mean: number };
}

export const messaging = defineExtensionMessaging<ProtocolMap>();
export const { sendMessage, onMessage } = messaging;

/** The port name extension pages connect on to receive live updates from the background. */
export const EVENTS_PORT = 'sidequest:events';

/**
 * Live updates the background pushes to every open extension page, by type. Plugins add theirs
 * by declaration merging, like `ProtocolMap`.
 */
export interface UiEventMap {
  /** A conversation changed; its `status` is the one source of "is a run going on". */
  conversation: { conversation: Conversation };
  'conversation-deleted': { id: string };
  message: { message: StoredMessage };
  /** A piece of streamed text; `offset` is where it starts in the message's text. */
  delta: { conversationId: string; messageId: string; text: string; offset: number };
  plugins: { plugins: PluginInfo[] };
  /** A tool call waits for the user's say-so. */
  approval: { approval: PendingApproval };
  /** An ask closed (allowed, denied, timed out, withdrawn). */
  'approval-closed': { id: string; conversationId?: string };
  /** The remembered choices changed. */
  permissions: { permissions: Permission[] };
  /** All data was deleted or much was imported: reload everything. */
  'data-reset': { reason: 'deleted' | 'imported' };
  /** A tool call reported live activity (nested progress); its tool's reducer folds it in. */
  'tool-activity': { conversationId: string; toolCallId: string; toolName: string; event: unknown };
}

export type UiEvent = { [K in keyof UiEventMap]: { type: K } & UiEventMap[K] }[keyof UiEventMap];
export type UiEventOf<K extends keyof UiEventMap> = Extract<UiEvent, { type: K }>;

import { defineExtensionMessaging } from '@webext-core/messaging';
import type { ProviderCheck } from '@/core/agent/provider';
import type { ConsentDecision, PageTabView, SitePermission } from '@/core/page-tools/types';
import type { PendingQuestion } from '@/core/background/questions';
import type { Task } from '@/core/background/task-board';
import type { PluginSource, SubAgentEvent } from '@/core/registry/types';
import type { SearchSettingsView, SearchTestInput, SearchTestResult } from '@/core/search/service';
import type { SearchSettingsInput } from '@/core/storage/search';
import type { Conversation, StoredMessage } from '@/core/storage/db';

/** A plugin as settings and the UI list it. */
export interface PluginInfo {
  id: string;
  name: string;
  description: string;
  source: PluginSource;
  enabled: boolean;
  tools: Array<{ name: string; description: string }>;
}

/** Provider settings as the options page sees them: the key itself never leaves the background. */
export interface ProviderView {
  baseUrl: string;
  model: string;
  hasApiKey: boolean;
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
  checkProvider(): ProviderCheck;
  getProvider(): ProviderView;
  /** `apiKey` undefined keeps the saved key, '' removes it. */
  saveProvider(data: { baseUrl: string; model: string; apiKey?: string }): ProviderView;
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

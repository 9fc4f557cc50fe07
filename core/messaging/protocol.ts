import { defineExtensionMessaging } from '@webext-core/messaging';
import type { ProviderCheck } from '@/core/agent/provider';
import type { PluginSource } from '@/core/registry/types';
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
  | { type: 'plugins'; plugins: PluginInfo[] };

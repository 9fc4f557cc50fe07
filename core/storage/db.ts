import Dexie, { type EntityTable, type Table } from 'dexie';
import type { RunError } from '@/core/agent/errors';
import type { Said } from '@/core/i18n/catalog';
import type { Usage } from '@/core/agent/provider';
import type { StepTrace } from '@/core/data/trace';
import type { ToolResult } from '@/core/registry/types';
import { applyDbVersions } from './migrations/db';

/** Where a conversation's agent run stands. */
export type RunStatus =
  | 'idle' // never run, or the last run finished normally
  | 'running'
  | 'stopped' // the user pressed stop
  | 'interrupted' // the browser stopped the background mid-run
  | 'error' // the provider failed; `error` says how
  | 'step_limit' // the run reached the step limit
  | 'budget' // the run reached its token budget ("budget reached"); Continue starts a new run
  | 'loop'; // the loop guard stopped it: the same call, or the same page read, a third time (`loop` says which)

export interface Conversation {
  id: string;
  title: string;
  /** True once the user renamed it: the first message no longer sets the title. */
  titleEdited?: boolean;
  createdAt: number;
  updatedAt: number;
  status: RunStatus;
  error?: RunError;
  /** The model used by the latest run. */
  model?: string;
  /** The user's "act without asking" switch: the approval gate asks nothing in this conversation. */
  actWithoutAsking?: boolean;
  /** Set when the last run stopped at its token budget: what it used and the budget then. */
  budget?: { used: number; limit: number };
  /** Set when the loop guard stopped the last run: what it repeated (`core/agent/loop-guard.ts`). */
  loop?: Said;
  /**
   * An unattended conversation (a scheduled run): the approval gate lets through only what was
   * granted ahead, each tool on a site ('' for none), and asks for anything else; the user's
   * remembered Always allow and the "act without asking" switch do not count here. `pin`: an
   * outside tool's definition as granted (`definitionPin`); a tool changed since is asked about.
   */
  grantedAhead?: Array<{ tool: string; site: string; pin?: string }>;
  /**
   * The model's summary of the conversation's earlier messages, made to fit its context window
   * (`core/agent/context-window.ts`): later runs use it again while those messages are unchanged.
   * Derived data: archives do not carry it (an imported one is made again).
   */
  contextSummary?: ContextSummary;
}

/** A conversation's summary of its first messages as the model is sent them (`Conversation.contextSummary`). */
export interface ContextSummary {
  text: string;
  /** How many of the prompt's messages after the system message it stands for. */
  count: number;
  /** The id of the stored message the last of them was made from. */
  upTo: string;
  /** Of the conversation's id and the ids of the stored messages it stands for (`digestOf`): checked before it is used. */
  digest: string;
  at: number;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  /** Set when the model's call could not be read (bad JSON, unknown tool). */
  invalid?: string;
  /**
   * What the provider attached to the call (Gemini's `thoughtSignature`), sent back with it to the
   * same provider type and model only (`core/agent/history.ts`). Absent in older conversations.
   */
  providerMetadata?: ToolCallMetadata;
}

/** A tool call's provider metadata and where it came from. */
export interface ToolCallMetadata {
  /** The provider type (`ProviderType`) and model that gave it. */
  type: string;
  model: string;
  /** The AI SDK's provider metadata of the call, by provider key (`{ google: { thoughtSignature } }`). */
  value: Record<string, Record<string, unknown>>;
}

interface MessageBase {
  id: string;
  conversationId: string;
  /** Order within the conversation. */
  seq: number;
  createdAt: number;
}

export interface UserMessage extends MessageBase {
  role: 'user';
  text: string;
}

export type AssistantStatus = 'streaming' | 'complete' | 'stopped' | 'interrupted' | 'error';

export interface AssistantMessage extends MessageBase {
  role: 'assistant';
  text: string;
  status: AssistantStatus;
  toolCalls: ToolCall[];
  model?: string;
  usage?: Usage;
  /** A note from Sidequest itself (prompted tool calls, a shortened context): shown, never sent to the model. */
  notice?: 'prompted-tools' | 'context';
  /** A notice's words for the pages to translate (`text` holds them in English). */
  said?: Said;
  /**
   * Who gave this answer when it was not the model (a plugin's `RunDriver`: a skill's replayed
   * step), in words: the sidebar marks the answer with them. Sent to the model like any answer.
   */
  by?: Said;
}

export type ToolStatus = 'running' | 'done' | 'error' | 'interrupted';

export interface ToolMessage extends MessageBase {
  role: 'tool';
  toolCallId: string;
  toolName: string;
  input: unknown;
  status: ToolStatus;
  result?: ToolResult;
  /** The plugin the tool belongs to, and for page tools the site that offered it. */
  pluginId?: string;
  origin?: string;
  durationMs?: number;
  /**
   * Live activity the tool reported while it ran (a sub-agent's steps), as its tool's reducer
   * built it: kept so the sidebar shows it again after a reload. Never sent to the model.
   */
  activity?: unknown;
}

export type StoredMessage = UserMessage | AssistantMessage | ToolMessage;

/** A secret (an API key) kept in the extension's own IndexedDB, out of reach of content scripts. */
export interface Secret {
  key: string;
  value: string;
}

/** A value a plugin keeps (`PluginStorage`), by `<plugin id>/<name>`. */
export interface PluginDatum {
  key: string;
  value: unknown;
}

/**
 * One record of a plugin's collection (`PluginStorage.collection`): `version` is the record's
 * format as the plugin wrote it, so a plugin can migrate old records when it reads them.
 */
export interface PluginRecord {
  pluginId: string;
  collection: string;
  id: string;
  version: number;
  value: unknown;
  updatedAt: number;
}

/** A remembered approval: this tool on this site ('' for a tool without a site). */
export interface PermissionRecord {
  tool: string;
  site: string;
  decision: 'allow' | 'deny';
  at: number;
}

/** A row of the search index (`search-index.ts`): the tokens of a conversation's title (part -1) or of 50 of its messages. */
export interface SearchRow {
  conversationId: string;
  part: number;
  tokens: string[];
}

/** The search index's state: whether it is whole (a build after the v7 migration may be under way, `cursor` its place) and its watermark. */
export interface SearchMeta {
  key: 'state';
  built: boolean;
  /** `[updatedAt, id]` of the last conversation the build indexed (it goes newest first). */
  cursor?: [number, string];
  /** Every change saved before this time is in the index. */
  watermark: number;
}

export type SidequestDb = Dexie & {
  conversations: EntityTable<Conversation, 'id'>;
  messages: EntityTable<StoredMessage, 'id'>;
  secrets: EntityTable<Secret, 'key'>;
  pluginData: EntityTable<PluginDatum, 'key'>;
  permissions: Table<PermissionRecord, [string, string]>;
  traces: EntityTable<StepTrace, 'messageId'>;
  pluginRecords: Table<PluginRecord, [string, string, string]>;
  searchIndex: Table<SearchRow, [string, number]>;
  searchMeta: EntityTable<SearchMeta, 'key'>;
};

/**
 * Opens the extension's database. Conversations and messages live in IndexedDB (not in
 * `storage.local`) because they grow without bound and are written at every step; API keys and
 * plugins' data live here too because content scripts can read and write `storage.local` but
 * never the extension's IndexedDB. The schema's versions and their upgrades are in
 * `migrations/db.ts`, one file per step.
 */
export function openDb(name = 'sidequest'): SidequestDb {
  // Relaxed durability: a commit counts once the browser holds the data, without waiting for the
  // disk to flush. It survives what we guard against (the worker or a page being stopped); only a
  // crash of the operating system could lose the last writes. It halves the write time of a step.
  const db = new Dexie(name, { chromeTransactionDurability: 'relaxed' }) as SidequestDb;
  applyDbVersions(db);
  return db;
}

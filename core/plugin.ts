import type { ModelClient } from '@/core/agent/provider';
import type { PromptSection } from '@/core/agent/prompt';
import type { RunDriver } from '@/core/agent/runner';
import type { TabHold } from '@/core/approvals/gate';
import type { PendingApproval, RunGrant } from '@/core/approvals/types';
import type { Conversation, StoredMessage } from '@/core/storage/db';
import type { ProtocolMap, UiEvent } from '@/core/messaging/protocol';
import type { runOffscreenJob } from '@/core/offscreen/host';
import type { ToolRegistry } from '@/core/registry/registry';
import type { ToolDefinition, ToolGate } from '@/core/registry/types';
import type { PluginStorage } from '@/core/storage/plugin-data';
import type { PluginSettingsFile } from '@/core/data/settings-import';

/**
 * The plugin contract. A built-in plugin is one value, defined in its own folder
 * (`plugins/<id>/index.ts`) and listed once in `plugins/index.ts`: its tools, each with MCP-style
 * annotations, and `setup`, its background service. What a plugin adds to the pages (settings,
 * chat panels, tool cards, popup items) is declared beside it in `plugins/<id>/ui.ts` and listed
 * in `plugins/ui.ts`; its messages and events extend the one protocol map from its `protocol.ts`.
 * The core knows no particular plugin.
 */
export interface BuiltinPlugin<Service = any> {
  /** Stable id: the on/off switch and the plugin's storage are kept under it. */
  id: string;
  name: string;
  /** For the user, in Settings → Plugins. */
  description: string;
  /** Whether the plugin is on before the user has said anything. Default true. */
  enabledByDefault?: boolean;
  /** Its tools; each gets what `setup` returned as `context.service`. */
  tools: Array<ToolDefinition<any, any, Service>>;
  /**
   * What its stored values mean in a settings file (Settings → Data): each item's schema (a file
   * whose value does not fit is refused), the import preview's rows, and the items whose entries
   * are kept at an address with secrets of their own (the key rule and the `imported` mark,
   * `core/data/settings-import.ts`). Items not listed come through as they are.
   */
  settingsFile?: PluginSettingsFile;
  /**
   * Starts the plugin's background service: register its message handlers, listen to what it
   * needs. Runs synchronously at start-up (an MV3 worker is woken by the very event it must
   * handle); slower work goes to `ctx.onStartup`. Returns the service its tools use and a disposer.
   */
  setup?(ctx: PluginContext): PluginSetup<Service> | void;
}

export interface StartupOptions {
  /**
   * Runs once every other start-up task is done: for work that acts with what the others
   * registered and read (a due skill's run must see the MCP servers' tools and the remembered
   * permissions).
   */
  last?: boolean;
}

export interface PluginSetup<Service> {
  service?: Service;
  dispose?(): void;
}

/** What a plugin may use in the background, and nothing else. */
export interface PluginContext {
  /** The plugin's own id. */
  readonly pluginId: string;
  /**
   * Answers one of the plugin's messages (declared in its `protocol.ts`). Only the extension's own
   * pages may send it; the handler runs once start-up is done.
   */
  handle<K extends keyof ProtocolMap>(
    type: K,
    handler: (data: Parameters<ProtocolMap[K]>[0]) => ReturnType<ProtocolMap[K]> | Promise<ReturnType<ProtocolMap[K]>>,
  ): void;
  /**
   * How many things of this plugin wait for the user (questions): the toolbar badge shows the sum
   * over the core and every plugin.
   */
  setBadgeCount(count: number): void;
  /**
   * Counts something the plugin keeps in memory that could grow (a map by tab or conversation,
   * waiting calls, records): `size` is read when a page asks for the counts (`core/retained.ts`,
   * numbers only), named `<plugin id>/<name>`; `max`: the bound of a cache that keeps at most that many. The memory test asserts they stay put over many runs.
   */
  retained(name: string, size: () => number, max?: number): void;
  /** Sends a live update to every open extension page. */
  broadcast(event: UiEvent): void;
  /** The plugin's own storage (IndexedDB: content scripts cannot read or write it). */
  storage: PluginStorage;
  /** A model client for the provider as configured now (summaries, sub-agents). */
  getModelClient(conversationId?: string): Promise<ModelClient>;
  /** The step limit of one run, from the agent settings. */
  getMaxSteps(): Promise<number>;
  /**
   * Origins the user set up in the extension's settings (the model providers', and those plugins
   * added with `addConfiguredOrigins`): the user consented to reach them, local network or not.
   */
  configuredOrigins(): Promise<Set<string>>;
  /** Adds the origins of services the user configured in this plugin's settings (see `configuredOrigins`). */
  addConfiguredOrigins(source: () => Promise<string[]> | string[]): void;
  /** The registry: to run agent loops over it (sub-agents) or to add plugins of its own (page tools). */
  registry: ToolRegistry;
  /**
   * The approval gate: hand it to every agent loop the plugin runs (`LoopOptions.gate`), so a
   * sub-agent's calls are asked about like the main agent's. A loop given none refuses them.
   */
  gate: ToolGate;
  /**
   * Holds tabs while the user has them (Take over, a hand-over): while `hold.until(tab)` gives a
   * promise, every call that touches that tab waits for it, whatever its tool or plugin (the gate
   * holds it before deciding, and the call's result says it waited).
   */
  holdTabs(hold: TabHold): void;
  /**
   * Adds a paragraph to the system prompt of each run, for the conversation it is given (undefined
   * or empty: nothing). Read once as a run starts; a section that throws or takes over 2 s is left
   * out, with a console message. Text from outside (pages, tool results) never goes here unmarked:
   * the prompt is the one place the model trusts.
   */
  instructions(section: PromptSection): void;
  /** Runs a job that needs a DOM or blob URLs: in place where the background has them, else in Chrome's offscreen document. */
  offscreen: typeof runOffscreenJob;
  /**
   * Work to do once at start-up, after the plugin states are loaded; handlers wait for it. Start-up
   * tasks run side by side; `last` puts one after all the others (it acts on what they loaded).
   */
  onStartup(task: () => Promise<void> | void, options?: StartupOptions): void;
  /** Conversation lifecycle. */
  conversations: {
    /** A conversation is being deleted (its run has stopped): drop what the plugin keeps for it. */
    onDeleted(listener: (conversationId: string) => void | Promise<void>): void;
    /**
     * The tabs in play in a conversation (`core/agent/offered-tabs.ts` `tabsInPlay`, over its
     * stored messages): the user's tab, `boundTab` (a sub-agent's), and the tabs its calls that
     * ran named. Without a conversation, the user's tab and `boundTab` only.
     */
    tabsInPlay(conversationId: string | undefined, boundTab?: number): Promise<Set<number>>;
    /**
     * The conversation's run has ended, however it ended (done, stopped by the user, failed, a step
     * or token limit): drop what the plugin keeps for that run. Not called for sub-agent loops.
     */
    onRunEnd(listener: (conversationId: string) => void | Promise<void>): void;
    /**
     * Stops the conversation's run, as the sidebar's Stop does (what was done so far is kept; the
     * conversation becomes `stopped`). Returns false when it has no run now.
     */
    stop(conversationId: string): boolean;
    /**
     * Claims a user's message (sent from the sidebar or with `send`): return a `RunDriver` to
     * drive its run (a skill's `/name` replays its steps), undefined to let the model answer.
     * The driver's calls pass the same gate and registry as the model's.
     */
    claim(handler: (conversationId: string, text: string) => Promise<RunDriver | undefined> | RunDriver | undefined): void;
    /**
     * A new conversation, listed in the sidebar like any. With `grantedAhead` it is unattended (a
     * scheduled run): the gate lets through only what was granted, and asks for anything else.
     */
    create(options: { title: string; grantedAhead?: Array<{ tool: string; site: string; pin?: string }> }): Promise<Conversation>;
    /**
     * An unattended conversation's grants given ahead hold no more (a scheduled run was handed
     * over to the model): it stays unattended, and every call not allowed on the spot asks, with a
     * notification. Kept in the conversation, so a Continue or a worker restart keeps it so.
     */
    withdrawGrants(conversationId: string): Promise<void>;
    /** Sends a user message, as the sidebar's Send does (claims included); resolves once the run started. */
    send(conversationId: string, text: string): Promise<void>;
    /** The conversation's stored messages, oldest first (the answer being streamed as last written). */
    messages(conversationId: string): Promise<StoredMessage[]>;
    get(conversationId: string): Promise<Conversation | undefined>;
    /** Resolves when the conversation's run (if any) has ended. */
    settled(conversationId: string): Promise<void>;
  };
  /** The approval gate's cards, and what a plugin may grant it. */
  approvals: {
    /** A card was put up, waiting for the user's answer (a scheduled run's: notify). */
    onAsk(listener: (approval: PendingApproval) => void | Promise<void>): void;
    /**
     * Grants the conversation's run going now what the user approved ahead (a plan): calls of
     * built-in tools on its `origins`, of its `kinds` of action, pass without a card, and data may
     * go to its `sinks` (`RunGrant`, `core/approvals/README.md`). The gate still decides every call:
     * sensitive and destructive calls, the outbound rule to other sites and the user's own network
     * ask as before. Replaces the run's earlier grant; ends with the run. Throws when the
     * conversation has no run going or is unattended, or for a grant that is not well formed.
     */
    grantForRun(conversationId: string, grant: RunGrant): void;
    /** Ends the run's grant now: calls ask as before it. */
    withdrawGrant(conversationId: string): void;
    /**
     * Whether conversations the user starts from now on start with "act without asking" on (a
     * setting's value): any source saying true turns it on; one that throws counts as false. Read
     * as each conversation is created; the user's switch in the conversation changes it after.
     */
    actWithoutAskingByDefault(source: () => boolean | Promise<boolean>): void;
  };
  /**
   * Opens the sidebar on a conversation (a notification's click); where the browser does not let
   * the sidebar open now, its page opens in a tab.
   */
  showConversation(conversationId: string): Promise<void>;
  /**
   * **Delete all data** (Settings → Data): drop everything the plugin keeps outside the core's
   * database (files in OPFS, caches in memory). Before it, every conversation's `onDeleted` runs;
   * after it, the core empties its IndexedDB (the plugin's `storage` and secrets included) and
   * `storage.local`/`storage.session`. The extension must then behave like a fresh install.
   */
  onDeleteAll(listener: () => void | Promise<void>): void;
  /**
   * A settings file was imported: what it wrote is in the plugin's `storage` now. Re-read what the
   * plugin keeps in memory (servers, remembered site choices), or the old values stay in use.
   */
  onSettingsImported(listener: () => void | Promise<void>): void;
}

/** Identity helper: one plugin is one value, typed by its service. */
export function definePlugin<Service>(plugin: BuiltinPlugin<Service>): BuiltinPlugin<Service> {
  return plugin;
}

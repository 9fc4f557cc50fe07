import { browser } from 'wxt/browser';
import { z } from 'zod';
import { promptSections, type PromptSection } from '@/core/agent/prompt';
import { AgentRunner, type RunDriver } from '@/core/agent/runner';
import type { ModelClient } from '@/core/agent/provider';
import { StepTimer } from '@/core/agent/step-timing';
import { userTab } from '@/core/agent/user-tab';
import { ApprovalGate, type PendingApproval, type TabView } from '@/core/approvals/gate';
import { localeOf } from '@/core/i18n/locales';
import { lazy } from '@/core/storage/setting';
import { onMessage, type ProtocolMap } from '@/core/messaging/protocol';
import { ConfiguredOrigins } from '@/core/net/configured-origins';
import type { BuiltinPlugin, StartupOptions } from '@/core/plugin';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { ConversationStore } from '@/core/storage/conversations';
import { conversationSummaries } from '@/core/storage/context-summaries';
import { openDb, type SidequestDb } from '@/core/storage/db';
import { permissionStore } from '@/core/storage/permissions';
import { pluginStorage } from '@/core/storage/plugin-data';
import { agentSettings, ProviderSecrets, uiLanguage } from '@/core/storage/settings';
import { BadgeCounter } from './badge';
import { EventHub, isExtensionPage } from './events';
import { keepAliveHolders, startKeepAlive } from './keep-alive';
import { RetainedSets } from '@/core/retained';
import { learnedLimitCount, MAX_LEARNED } from '@/core/agent/context-window';
import { MAX_IDLE_CONVERSATIONS } from '@/core/approvals/data-flow';
import { MAX_KNOWN_SEQ } from '@/core/storage/conversations';
import { MAX_REFUSED, refusedImageModels } from '@/core/agent/tool-images';
import { compiledPatternCount, SAFE_REGEX_CACHE_SIZE } from '@/core/registry/safe-regex';
import { addNotice, ProviderService } from './providers';

export interface BackgroundOptions {
  /** The built-in plugins, in the order settings list them (`plugins/index.ts`). */
  plugins: BuiltinPlugin[];
  /** Registers the benchmark-only messages (bench builds: `import.meta.env.MODE === 'bench'`). */
  bench?: boolean;
}

/** A message handler of the core: the message's data in, its typed reply out. */
export type Handler<K extends keyof ProtocolMap> = (
  data: Parameters<ProtocolMap[K]>[0],
) => ReturnType<ProtocolMap[K]> | Promise<ReturnType<ProtocolMap[K]>>;

/**
 * Listeners of one moment in the background's life (a conversation deleted, Delete all data, a
 * settings file imported): each runs in turn; one that throws is logged and the rest still run.
 */
export class Moment<A extends unknown[]> {
  private readonly listeners = new Set<(...args: A) => void | Promise<void>>();

  constructor(private readonly failure: string) {}

  /** How many listeners it has (`core/retained.ts`). */
  get size(): number {
    return this.listeners.size;
  }

  add(listener: (...args: A) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async run(...args: A): Promise<void> {
    for (const listener of [...this.listeners]) {
      try {
        await listener(...args);
      } catch (error) {
        console.warn(`[sidequest] ${this.failure}`, error);
      }
    }
  }
}

/**
 * What every registrar (`core/background/registrars/`) is given: the core's services, built once,
 * and the few ways to take part in the background's life. A registrar adds message handlers and
 * listeners with it and returns the function that removes them.
 */
export interface BackgroundContext {
  readonly plugins: BuiltinPlugin[];
  readonly db: SidequestDb;
  readonly store: ConversationStore;
  readonly providers: ProviderService;
  readonly configuredOrigins: ConfiguredOrigins;
  readonly hub: EventHub;
  readonly registry: ToolRegistry;
  /** The one approval gate: handed to the runner here and to the plugins (sub-agents) explicitly. */
  readonly gate: ApprovalGate;
  readonly runner: AgentRunner;
  readonly badge: BadgeCounter;
  /** The per-step timer of benchmark builds; undefined elsewhere. */
  readonly stepTimer: StepTimer | undefined;
  /** What the background keeps in memory, counted by name (`core/retained.ts`; plugins add theirs). */
  readonly retained: RetainedSets;
  /** The model of a conversation (its pick in the sidebar, else the default profile's). */
  getModelClient(conversationId?: string): Promise<ModelClient>;
  getMaxSteps(): Promise<number>;
  /**
   * Answers a message from the extension's own pages (content scripts are refused), once start-up
   * is done. Two handlers for one message throw. Returns the function that removes the handler.
   */
  handle<K extends keyof ProtocolMap>(type: K, handler: Handler<K>): () => void;
  /**
   * Work to do once at start-up, after the plugin switches are read; handlers wait for it. The
   * tasks run side by side (each is mostly storage reads and browser calls); one marked `last`
   * runs once every other task is done (it acts on what they loaded and registered).
   */
  onStartup(task: () => Promise<void> | void, options?: StartupOptions): void;
  /** A conversation's run has ended (any way: done, stopped, failed, a limit). */
  readonly runEnded: Moment<[conversationId: string]>;
  /** A conversation is going away (its run has stopped): drop what is kept for it. */
  readonly conversationDeleted: Moment<[conversationId: string]>;
  /** Delete all data: drop what is kept outside the core's database (before it is emptied). */
  readonly allDataDeleted: Moment<[]>;
  /** A settings file was imported: re-read what is kept in memory. */
  readonly settingsImported: Moment<[]>;
  /** An approval card was put up (the gate asks the user). */
  readonly asked: Moment<[approval: PendingApproval]>;
  /** Who may claim a user's message and drive its run (`RunDriver`), in the order added; the first claim wins. */
  readonly claims: Array<(conversationId: string, text: string) => Promise<RunDriver | undefined> | RunDriver | undefined>;
  /** Plugins' parts of the system prompt (`PluginContext.instructions`), in the order added. */
  readonly instructions: PromptSection[];
  /** Who says new conversations start with "act without asking" on (`PluginContext.approvals.actWithoutAskingByDefault`). */
  readonly trustNew: Array<() => boolean | Promise<boolean>>;
  /** Whether a new conversation the user starts now starts with "act without asking" on (any source says so; one that fails says no). */
  startsTrusted(): Promise<boolean>;
  /** Stops the conversation's run and tells the gate and every listener it is going away. */
  forgetConversation(conversationId: string): Promise<void>;
  /** Resolves once start-up is done (rejects if a core start-up task failed). */
  readonly ready: Promise<void>;
  /** Runs start-up: call once, after every registrar has registered. */
  start(): Promise<void>;
}

/**
 * Builds the background's core services (storage, the registry, the approval gate, the agent
 * runner, the event hub) and the context the registrars share. Registers nothing but the events
 * port; everything synchronous, before anything is awaited.
 */
export function createBackgroundContext({ plugins, bench = false }: BackgroundOptions): BackgroundContext {
  const db = openDb();
  const store = new ConversationStore(db);
  const providers = new ProviderService(new ProviderSecrets(db));
  const configuredOrigins = new ConfiguredOrigins();
  configuredOrigins.add(() => providers.origins());
  const hub = new EventHub();
  // Plugin on/off switches: in IndexedDB, out of reach of content scripts (version 1 kept them in
  // storage.local under `plugins`; they move on first read).
  const pluginSwitches = pluginStorage(db, 'core').item<Record<string, boolean>>('pluginSwitches', {
    fallback: {},
    schema: lazy(() => z.record(z.string(), z.boolean())),
    legacyKey: 'local:plugins',
  });
  // Every tool's input is checked by one interpreting validator (no eval under the extension CSP).
  const registry = new ToolRegistry(interpretedValidators, {
    load: () => pluginSwitches.getValue(),
    save: (state) => pluginSwitches.setValue(state),
  });
  registry.userTab = async () => (await userTab())?.id;
  // Notices (prompted tool calls, shortened context) are written into the conversation.
  // A long conversation's summary is kept with it, for its next runs (context-window.ts).
  const summaries = conversationSummaries(db);
  const getModelClient = (conversationId?: string) =>
    providers.client(conversationId, conversationId ? (kind, words, once) => void addNotice(store, hub, conversationId, kind, words, once) : undefined, summaries);
  const getMaxSteps = async () => (await agentSettings.getValue()).maxSteps;
  const stepTimer = bench ? new StepTimer() : undefined;
  const runEnded = new Moment<[string]>('a listener failed at the end of a run');
  const asked = new Moment<[PendingApproval]>('a listener failed on an approval card');
  const claims: BackgroundContext['claims'] = [];
  const instructions: PromptSection[] = [];
  const trustNew: Array<() => boolean | Promise<boolean>> = [];
  // The approval gate: every agent loop (main agent, sub-agents) is handed it.
  const gate = new ApprovalGate({
    permissions: permissionStore(db),
    activeTab: userTabView,
    tab: tabView,
    configured: (url) => configuredOrigins.has(url),
    pluginName: (id) => registry.getPlugin(id)?.name,
  });
  gate.onChange((change) => {
    if (change.type === 'asked') void asked.run(change.approval);
  });
  const runner = new AgentRunner({
    store,
    registry,
    gate,
    getClient: getModelClient,
    getMaxSteps,
    getRunBudget: async () => (await agentSettings.getValue()).runTokenBudget,
    keepTraces: true,
    getLanguage: async () => localeOf(await uiLanguage.getValue(), browser.i18n.getUILanguage()),
    keepAlive: startKeepAlive,
    events: {
      conversation: (conversation) => hub.broadcast({ type: 'conversation', conversation }),
      message: (message) => hub.broadcast({ type: 'message', message }),
      delta: (conversationId, messageId, text, offset) => hub.broadcast({ type: 'delta', conversationId, messageId, text, offset }),
      toolActivity: (conversationId, toolCallId, toolName, event) =>
        hub.broadcast({ type: 'tool-activity', conversationId, toolCallId, toolName, event }),
    },
    observe: stepTimer && (() => stepTimer.observe()),
    beforeRun: (conversation, history) =>
      gate.beginRun(conversation.id, {
        trusted: Boolean(conversation.actWithoutAsking),
        ...(conversation.grantedAhead ? { grantedAhead: conversation.grantedAhead } : {}),
        // The user's own words: typing them into a page carries nothing the agent read.
        userWords: history.flatMap((m) => (m.role === 'user' && typeof m.text === 'string' ? [m.text] : [])),
        // Every call that ran, failed ones too (an error can carry what was read); a declined one never ran.
        calls: history.flatMap((m) =>
          m.role === 'tool' && m.result && (m.result.ok || m.result.code !== 'denied')
            ? [{ spec: registry.describe(m.toolName), input: m.input, fromPage: Boolean(m.origin), origin: m.origin, output: m.result.ok ? m.result.output : undefined }]
            : [],
        ),
      }),
    afterRun: (conversationId) => {
      gate.endRun(conversationId);
      void runEnded.run(conversationId);
    },
    claim: async (conversationId, text) => {
      for (const claim of claims) {
        const driver = await claim(conversationId, text);
        if (driver) return driver;
      }
      return undefined;
    },
    instructions: (conversation) => promptSections(instructions, conversation),
  });

  const handled = new Set<string>();
  const startupTasks: Array<{ task: () => Promise<void> | void; last: boolean }> = [];
  let ready: Promise<void> | undefined;
  const conversationDeleted = new Moment<[string]>('a plugin failed to forget a deleted conversation');

  function handle<K extends keyof ProtocolMap>(type: K, handler: Handler<K>): () => void {
    if (handled.has(type)) throw new Error(`Two handlers for the message "${type}".`);
    handled.add(type);
    const remove = onMessage(type, async (message) => {
      // Only the extension's own pages; content scripts never reach these handlers.
      if (!isExtensionPage(message.sender)) throw new Error('Not allowed from this context.');
      await ready;
      return handler(message.data as Parameters<ProtocolMap[K]>[0]);
    });
    return () => {
      remove();
      handled.delete(type);
    };
  }

  const allDataDeleted = new Moment<[]>('a plugin failed to delete its data');
  const settingsImported = new Moment<[]>('a plugin failed to read the imported settings');
  const retained = coreRetainedSets({ runner, gate, hub, store, registry, moments: { runEnded, conversationDeleted, allDataDeleted, settingsImported, asked }, claims, instructions, trustNew, handled });

  // A page of the extension is open (the sidebar, opened or back after the worker stopped): a send
  // may come, so its provider package is evaluated now, after start-up, not when the send waits.
  hub.onPageConnected(() => void (async () => {
    await ready;
    await providers.prepare();
  })().catch(() => undefined));
  hub.listen();
  return {
    plugins,
    db,
    store,
    providers,
    configuredOrigins,
    hub,
    registry,
    gate,
    runner,
    badge: new BadgeCounter(),
    stepTimer,
    retained,
    getModelClient,
    getMaxSteps,
    handle,
    onStartup: (task, { last = false } = {}) => void startupTasks.push({ task, last }),
    runEnded,
    conversationDeleted,
    allDataDeleted,
    settingsImported,
    asked,
    claims,
    instructions,
    trustNew,
    async startsTrusted() {
      const says = await Promise.all(trustNew.map(async (source) => {
        try {
          return (await source()) === true;
        } catch (error) {
          console.warn('[sidequest] could not read whether new conversations act without asking', error);
          return false;
        }
      }));
      return says.includes(true);
    },
    async forgetConversation(id) {
      runner.stop(id);
      await runner.settled(id);
      gate.forget(id);
      await conversationDeleted.run(id);
    },
    get ready() {
      return ready ?? Promise.resolve();
    },
    start() {
      // Everything that reads settings or storage waits for start-up to finish.
      ready ??= (async () => {
        await registry.loadState();
        // Side by side, not one after another: a cold start waits for the longest, not the sum.
        const run = (last: boolean) => Promise.all(startupTasks.filter((t) => t.last === last).map(async (t) => t.task()));
        await run(false);
        await run(true);
      })();
      ready.catch((error) => console.error('[sidequest] background start-up failed', error));
      return ready;
    },
  };
}

/** Runs going at once, as counted beside the bounded idle states (a person runs a few; scheduled skills add some). */
const MAX_CONCURRENT_RUNS = 16;

/** The core's own retained sets: what it keeps by run, conversation, page or listener. */
function coreRetainedSets(parts: {
  runner: AgentRunner;
  gate: ApprovalGate;
  hub: EventHub;
  store: ConversationStore;
  registry: ToolRegistry;
  moments: Record<string, { readonly size: number }>;
  claims: readonly unknown[];
  instructions: readonly unknown[];
  trustNew: readonly unknown[];
  handled: ReadonlySet<string>;
}): RetainedSets {
  const { runner, gate, hub, store, registry } = parts;
  const retained = new RetainedSets();
  const add = (name: string, size: () => number, max?: number) => void retained.register(name, size, max);
  add('runner/runs', () => runner.retainedSizes().runs);
  add('runner/streaming', () => runner.retainedSizes().streaming);
  add('runner/meters', () => runner.retainedSizes().meters);
  // Idle conversations' states are bounded; those with a run going come on top.
  add('gate/conversations', () => gate.retainedSizes().conversations, MAX_IDLE_CONVERSATIONS + MAX_CONCURRENT_RUNS);
  add('gate/pendingApprovals', () => gate.retainedSizes().cards);
  add('gate/listeners', () => gate.retainedSizes().listeners);
  add('events/ports', () => hub.size);
  add('store/knownSeqs', () => store.knownSeqs, MAX_KNOWN_SEQ);
  add('registry/plugins', () => registry.retainedSizes().plugins);
  add('registry/tools', () => registry.retainedSizes().tools);
  add('registry/listeners', () => registry.retainedSizes().listeners);
  for (const [name, moment] of Object.entries(parts.moments)) add(`listeners/${name}`, () => moment.size);
  add('listeners/claims', () => parts.claims.length);
  add('listeners/instructions', () => parts.instructions.length);
  add('listeners/trustNew', () => parts.trustNew.length);
  add('messages/handlers', () => parts.handled.size);
  add('keepAlive/holders', keepAliveHolders);
  add('context/learnedLimits', learnedLimitCount, MAX_LEARNED);
  add('images/refusingModels', refusedImageModels, MAX_REFUSED);
  add('patterns/compiled', compiledPatternCount, SAFE_REGEX_CACHE_SIZE);
  return retained;
}

/** The tab the user is looking at (`core/agent/user-tab.ts`), as the gate shows it. */
async function userTabView(): Promise<TabView | undefined> {
  const pick = await userTab();
  return pick ? { id: pick.id!, url: pick.url ?? '', title: pick.title ?? '' } : undefined;
}

async function tabView(tabId: number): Promise<TabView | undefined> {
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  return tab && { id: tabId, url: tab.url || tab.pendingUrl || '', title: tab.title ?? '' };
}

import { ConfiguredOrigins } from '@/core/net/configured-origins';
import { browser } from 'wxt/browser';
import { AgentRunner } from '@/core/agent/loop';
import { userTab } from '@/core/agent/user-tab';
import { StepTimer, type StepTiming } from '@/core/agent/step-timing';
import { tabsInPlay } from '@/core/agent/offered-tabs';
import { onMessage, type PluginInfo, type ProtocolMap } from '@/core/messaging/protocol';
import { runOffscreenJob } from '@/core/offscreen/host';
import type { BuiltinPlugin, PluginContext } from '@/core/plugin';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { ToolRegistry } from '@/core/registry/registry';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb } from '@/core/storage/db';
import { pluginStorage } from '@/core/storage/plugin-data';
import { z } from 'zod';
import { agentSettings, ProviderSecrets, uiLanguage } from '@/core/storage/settings';
import { localeOf } from '@/core/i18n/locales';
import { ApprovalGate, type TabView } from '@/core/approvals/gate';
import { permissionStore } from '@/core/storage/permissions';
import { parseArchive } from '@/core/data/archive';
import { exportSettingsFile } from '@/core/data/settings-file';
import { SettingsImports } from '@/core/data/settings-import';
import { clearDatabase, exportConversations, importArchive } from '@/core/data/store';
import { BadgeCounter } from './badge';
import { EventHub, isExtensionPage } from './events';
import { startKeepAlive } from './keep-alive';
import { addNotice, ProviderService } from './providers';

export interface BackgroundOptions {
  /** The built-in plugins, in the order settings list them (`plugins/index.ts`). */
  plugins: BuiltinPlugin[];
  /** Registers the benchmark-only messages (bench builds: `import.meta.env.MODE === 'bench'`). */
  bench?: boolean;
}

type Handler<K extends keyof ProtocolMap> = (
  data: Parameters<ProtocolMap[K]>[0],
) => ReturnType<ProtocolMap[K]> | Promise<ReturnType<ProtocolMap[K]>>;

/**
 * Wires the background: storage, the registry, the agent runner, the core's message handlers,
 * and each plugin's `setup`. Listeners are registered synchronously, before anything is awaited,
 * because a stopped MV3 worker is woken by the very event it must handle.
 */
export function startBackground({ plugins, bench = false }: BackgroundOptions) {
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
    schema: z.record(z.string(), z.boolean()),
    legacyKey: 'local:plugins',
  });
  // Every tool's input is checked by one interpreting validator (no eval under the extension CSP).
  const registry = new ToolRegistry(interpretedValidators, {
    load: () => pluginSwitches.getValue(),
    save: (state) => pluginSwitches.setValue(state),
  });
  // The model of a conversation (its pick in the sidebar, else the default profile's); notices
  // (prompted tool calls, shortened context) are written into that conversation.
  const getModelClient = (conversationId?: string) =>
    providers.client(conversationId, conversationId ? (kind, words, once) => void addNotice(store, hub, conversationId, kind, words, once) : undefined);
  const getMaxSteps = async () => (await agentSettings.getValue()).maxSteps;
  const getRunBudget = async () => (await agentSettings.getValue()).runTokenBudget;
  const stepTimer = bench ? new StepTimer() : undefined;
  const badge = new BadgeCounter();
  // The approval gate: every agent loop over the registry (main agent, sub-agents) consults it.
  const gate = new ApprovalGate({
    permissions: permissionStore(db),
    activeTab: userTabView,
    tab: tabView,
    configured: (url) => configuredOrigins.has(url),
    pluginName: (id) => registry.listPlugins().find(({ plugin }) => plugin.id === id)?.plugin.name,
  });
  registry.gate = gate;
  registry.userTab = async () => (await userTab())?.id;
  const runner = new AgentRunner({
    store,
    registry,
    getClient: getModelClient,
    getMaxSteps,
    getRunBudget,
    saveTrace: async (trace) => {
      await db.traces.put(trace);
    },
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
        // Every call that ran, failed ones too (an error can carry what was read); a declined one never ran.
        calls: history.flatMap((m) =>
          m.role === 'tool' && m.result && (m.result.ok || m.result.code !== 'denied')
            ? [{ spec: registry.describe(m.toolName), input: m.input, fromPage: Boolean(m.origin), origin: m.origin, output: m.result.ok ? m.result.output : undefined }]
            : [],
        ),
      }),
  });
  gate.onChange((change) => {
    if (change.type === 'asked') hub.broadcast({ type: 'approval', approval: change.approval });
    else if (change.type === 'closed') hub.broadcast({ type: 'approval-closed', id: change.id, conversationId: change.conversationId });
    else hub.broadcast({ type: 'permissions', permissions: change.permissions });
    if (change.type !== 'permissions') badge.set('core:approvals', gate.list().length);
  });

  // Registered before any `await`: handlers wait for start-up themselves.
  const startupTasks: Array<() => Promise<void> | void> = [];
  const deletedListeners: Array<(id: string) => void | Promise<void>> = [];
  const deleteAllListeners: Array<() => void | Promise<void>> = [];
  const importedListeners: Array<() => void | Promise<void>> = [];
  const handled = new Set<string>();
  let ready: Promise<void> = Promise.resolve();

  function handle<K extends keyof ProtocolMap>(type: K, handler: Handler<K>): void {
    if (handled.has(type)) throw new Error(`Two handlers for the message "${type}".`);
    handled.add(type);
    onMessage(type, async (message) => {
      // Only the extension's own pages; content scripts never reach these handlers.
      if (!isExtensionPage(message.sender)) throw new Error('Not allowed from this context.');
      await ready;
      return handler(message.data as Parameters<ProtocolMap[K]>[0]);
    });
  }

  for (const plugin of plugins) {
    const ctx: PluginContext = {
      pluginId: plugin.id,
      handle,
      setBadgeCount: (count) => badge.set(`plugin:${plugin.id}`, count),
      broadcast: (event) => hub.broadcast(event),
      storage: pluginStorage(db, plugin.id),
      // A tool's model requests (sub-agents, summaries) count against its run's token budget.
      getModelClient: async (conversationId) => runner.metered(conversationId, await getModelClient(conversationId)),
      getMaxSteps,
      configuredOrigins: () => configuredOrigins.all(),
      addConfiguredOrigins: (source) => configuredOrigins.add(source),
      registry,
      offscreen: runOffscreenJob,
      onStartup: (task) => void startupTasks.push(task),
      conversations: {
        onDeleted: (listener) => void deletedListeners.push(listener),
        tabsInPlay: async (conversationId, boundTab) => tabsInPlay(registry, conversationId ? await store.messages(conversationId) : [], boundTab),
      },
      onDeleteAll: (listener) => void deleteAllListeners.push(listener),
      onSettingsImported: (listener) => void importedListeners.push(listener),
    };
    const setup = plugin.setup?.(ctx) ?? undefined;
    registry.register(
      {
        id: plugin.id,
        source: 'builtin',
        name: plugin.name,
        description: plugin.description,
        enabledByDefault: plugin.enabledByDefault,
        tools: plugin.tools,
      },
      setup?.service,
    );
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

  function pluginInfos(): PluginInfo[] {
    return registry.listPlugins().map(({ plugin, enabled }) => ({
      id: plugin.id,
      name: plugin.name,
      description: plugin.description,
      source: plugin.source,
      enabled,
      tools: plugin.tools.map((t) => {
        // Functions stay here: messages carry data only.
        const { target: _target, forCall: _forCall, ...annotations } = registry.describe(t.name)?.annotations ?? { readOnly: false, destructive: true, openWorld: true };
        return { name: t.name, description: t.description, annotations };
      }),
    }));
  }

  // Everything that reads settings or storage waits for start-up to finish.
  ready = (async () => {
    await registry.loadState();
    await gate.load().catch((error) => console.error('[sidequest] could not read the remembered permissions', error));
    for (const task of startupTasks) {
      try {
        await task();
      } catch (error) {
        console.error('[sidequest] a plugin\'s start-up task failed', error);
      }
    }
    const recovered = await store.recoverInterrupted(runner.runningIds());
    for (const conversation of recovered) hub.broadcast({ type: 'conversation', conversation });
  })();
  ready.catch((error) => console.error('[sidequest] background start-up failed', error));
  registry.onChange(() => hub.broadcast({ type: 'plugins', plugins: pluginInfos() }));

  hub.listen();
  handle('listConversations', () => store.list());
  handle('getConversation', async ({ id }) => {
    const conversation = await store.get(id);
    if (!conversation) return null;
    const messages = await store.messages(id);
    // The answer being streamed is fresher in memory than on disk.
    const live = runner.liveMessage(id);
    if (live) {
      const at = messages.findIndex((m) => m.id === live.id);
      if (at >= 0) messages[at] = live;
      else messages.push(live);
    }
    return { conversation, messages };
  });
  handle('createConversation', async () => {
    const conversation = await store.create();
    await providers.adoptNew(conversation.id);
    hub.broadcast({ type: 'conversation', conversation });
    return conversation;
  });
  handle('renameConversation', async ({ id, title }) => {
    const conversation = await store.rename(id, title);
    hub.broadcast({ type: 'conversation', conversation });
    return conversation;
  });
  /** Stops the conversation's run and tells the gate and every plugin it is going away. */
  async function forgetConversation(id: string): Promise<void> {
    runner.stop(id);
    await runner.settled(id);
    gate.forget(id);
    for (const listener of deletedListeners) {
      try {
        await listener(id);
      } catch (error) {
        console.warn('[sidequest] a plugin failed to forget a deleted conversation', error);
      }
    }
  }
  handle('deleteConversation', async ({ id }) => {
    await forgetConversation(id);
    await store.delete(id);
    await providers.forget(id);
    hub.broadcast({ type: 'conversation-deleted', id });
  });
  // ——— The user's data ———
  handle('exportConversations', ({ conversationId }) => exportConversations(store, conversationId));
  handle('importConversations', async ({ text }) => {
    const archive = parseArchive(text);
    const { added, skipped } = await importArchive(db, archive);
    for (const conversation of added) hub.broadcast({ type: 'conversation', conversation });
    return { added: added.length, skipped };
  });
  handle('searchConversations', ({ query }) => store.search(query));
  handle('getTrace', async ({ messageId }) => (await db.traces.get(messageId)) ?? null);
  handle('exportSettings', ({ includeKeys }) => exportSettingsFile(db, includeKeys));
  // Import in two steps: what the file would change (nothing written), then exactly that.
  const settingsImports = new SettingsImports(db, { plugins, pluginName: (id) => registry.getPlugin(id)?.name });
  handle('previewSettingsImport', ({ text }) => settingsImports.preview(text));
  handle('cancelSettingsImport', ({ token }) => settingsImports.cancel(token));
  handle('applySettingsImport', async ({ token, text }) => {
    const applied = await settingsImports.apply(token, text);
    await registry.loadState();
    for (const listener of importedListeners) {
      try {
        await listener();
      } catch (error) {
        console.warn('[sidequest] a plugin failed to read the imported settings', error);
      }
    }
    hub.broadcast({ type: 'data-reset', reason: 'imported' });
    return { applied };
  });
  handle('deleteAllData', async () => {
    // Every run stops and every plugin forgets every conversation first (questions, task lists),
    // then drops what it keeps elsewhere (files); the core empties its database and storage.
    for (const { id } of await store.list()) await forgetConversation(id);
    gate.reset();
    for (const listener of deleteAllListeners) {
      try {
        await listener();
      } catch (error) {
        console.warn('[sidequest] a plugin failed to delete its data', error);
      }
    }
    await clearDatabase(db);
    store.reset();
    await browser.storage.local.clear();
    await browser.storage.session?.clear().catch(() => undefined);
    await registry.loadState();
    badge.set('core:approvals', 0);
    hub.broadcast({ type: 'data-reset', reason: 'deleted' });
  });
  handle('sendMessage', async ({ conversationId, text }) => {
    await runner.send(conversationId, text);
  });
  handle('stopRun', ({ conversationId }) => {
    runner.stop(conversationId);
  });
  handle('resumeRun', ({ conversationId }) => runner.resume(conversationId));
  // Model providers (core/background/providers.ts).
  handle('checkProvider', () => providers.check());
  handle('getProvider', () => providers.view());
  handle('saveProvider', (data) => providers.save(data));
  handle('deleteProviderProfile', ({ id }) => providers.remove(id));
  handle('listModels', (data) => providers.models(data));
  handle('getConversationModel', ({ conversationId }) => providers.getChoice(conversationId));
  handle('setConversationModel', ({ conversationId, choice }) => providers.setChoice(conversationId, choice));
  handle('listPlugins', () => pluginInfos());
  handle('setPluginEnabled', async ({ id, enabled }) => {
    if (!registry.getPlugin(id)) throw new Error(`There is no plugin "${id}".`);
    await registry.setEnabled(id, enabled);
    return pluginInfos();
  });

  handle('listApprovals', () => gate.list());
  handle('answerApproval', ({ id, answer }) => gate.answer(id, answer));
  handle('listPermissions', async () => {
    await gate.load();
    return gate.permissions();
  });
  handle('revokePermission', ({ tool, site }) => gate.revoke(tool, site));
  handle('setActWithoutAsking', async ({ conversationId, on }) => {
    const before = await store.getOrThrow(conversationId);
    // Not a change of its content: the conversation keeps its place in the list.
    const conversation = await store.update(conversationId, { actWithoutAsking: on, updatedAt: before.updatedAt });
    gate.setTrusted(conversationId, on);
    hub.broadcast({ type: 'conversation', conversation });
    return conversation;
  });

  if (bench) {
    handle('getStepTimings', () => stepTimer!.recent());
    handle('measureToolCalls', async ({ name, input, iterations }) => {
      const durations: number[] = [];
      let ok = 0;
      let lastError: string | undefined;
      for (let i = 0; i < Math.min(Math.max(iterations, 1), 10_000); i++) {
        const started = performance.now();
        const result = await registry.invoke(name, input);
        durations.push(performance.now() - started);
        if (result.ok) ok++;
        else lastError = result.error;
      }
      return { durations, ok, lastError };
    });
    handle('measureGate', async ({ name, input, iterations }) => {
      const spec = registry.describe(name);
      if (!spec) throw new Error(`There is no tool ${name}.`);
      const call = { name, input, spec, conversationId: 'bench:gate' };
      const n = Math.min(Math.max(iterations, 1), 100_000);
      const durations: number[] = [];
      const started = performance.now();
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const verdict = await gate.check(call);
        durations.push(performance.now() - t0);
        if (!verdict.ok) throw new Error(`The gate refused ${name}: ${verdict.result.ok ? '' : verdict.result.error}`);
        gate.record(call, verdict.note, { ok: true, output: null });
      }
      return { durations, mean: (performance.now() - started) / n };
    });
  }

  return { registry, runner, store, hub, ready, browser, gate };
}

export type { StepTiming };

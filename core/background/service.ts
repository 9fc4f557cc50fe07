import { browser } from 'wxt/browser';
import { validators } from 'virtual:tool-validators';
import { AgentRunner, type StepTiming } from '@/core/agent/loop';
import type { ModelClient } from '@/core/agent/provider';
import { onMessage, type PluginInfo, type ProtocolMap } from '@/core/messaging/protocol';
import { ToolRegistry } from '@/core/registry/registry';
import type { Plugin } from '@/core/registry/types';
import { precompiledValidators } from '@/core/registry/validation';
import { PageToolsManager } from '@/core/page-tools/manager';
import { pageToolValidators } from '@/core/page-tools/validator';
import { sitePermissions } from '@/core/storage/site-permissions';
import { SearchService } from '@/core/search/service';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb } from '@/core/storage/db';
import { agentSettings, pluginState, ProviderSecrets } from '@/core/storage/settings';
import { sessionTasks } from '@/core/storage/session';
import { Workspace } from '@/core/workspace/workspace';
import { showWaitingQuestions } from './badge';
import { EventHub, isExtensionPage } from './events';
import { startKeepAlive } from './keep-alive';
import { addNotice, ProviderService } from './providers';
import { QuestionDesk } from './questions';
import { TaskBoard } from './task-board';

/** What built-in plugins may use from the background; each plugin factory takes what it needs. */
export interface PluginServices {
  registry: ToolRegistry;
  store: ConversationStore;
  hub: EventHub;
  /** A model client for the provider as configured now (summaries, sub-agents). */
  getModelClient(): Promise<ModelClient>;
  /** The tools web pages offer (devtoolstooldiscovery, WebMCP), bridged into the registry. */
  pageTools: PageToolsManager;
  /** The step limit of one run, from the agent settings (sub-agents use it too). */
  getMaxSteps(): Promise<number>;
  /** The agent's task lists, per conversation (tasks plugin). */
  tasks: TaskBoard;
  /** The ask_user questions waiting for the user (interaction plugin). */
  questions: QuestionDesk;
  /** Web search with the engine chosen in settings (web plugin, settings page). */
  search: SearchService;
}

export interface BackgroundOptions {
  /** Makes the built-in plugins to register. */
  plugins: (services: PluginServices) => Plugin[];
}

/**
 * Wires the background: storage, the plugin registry, the agent runner and the message handlers.
 * Listeners are registered synchronously, before anything is awaited, because a stopped MV3
 * worker is woken by the very event it must handle.
 */
export function startBackground({ plugins }: BackgroundOptions) {
  const db = openDb();
  const store = new ConversationStore(db);
  const providers = new ProviderService(new ProviderSecrets(db));
  const hub = new EventHub();
  // Page tools' schemas arrive at run time: validated by an interpreting validator (no eval).
  const registry = new ToolRegistry(precompiledValidators(validators, pageToolValidators), {
    load: () => pluginState.getValue(),
    save: (state) => pluginState.setValue(state),
  });
  const getModelClient = (conversationId?: string) =>
    providers.client(conversationId, conversationId ? (kind, text, once) => void addNotice(store, hub, conversationId, kind, text, once) : undefined);
  const pageTools = new PageToolsManager({
    registry,
    permissions: { load: () => sitePermissions.getValue(), save: (all) => sitePermissions.setValue(all) },
    onChange: () => {
      hub.broadcast({ type: 'page-tools', tabs: pageTools.views() });
      hub.broadcast({ type: 'site-permissions', permissions: pageTools.listPermissions() });
    },
  });
  pageTools.listen();
  const getMaxSteps = async () => (await agentSettings.getValue()).maxSteps;
  const tasks = new TaskBoard({ load: () => sessionTasks.getValue(), save: (all) => sessionTasks.setValue(all) });
  const questions = new QuestionDesk();
  const search = new SearchService(db);
  for (const plugin of plugins({ registry, store, hub, getModelClient, getMaxSteps, tasks, questions, pageTools, search })) {
    registry.register(plugin);
  }
  tasks.onChange((conversationId, list) => hub.broadcast({ type: 'tasks', conversationId, tasks: list }));
  questions.onChange((change) => {
    hub.broadcast(
      change.type === 'asked'
        ? { type: 'question', question: change.question }
        : { type: 'question-closed', id: change.id, conversationId: change.conversationId },
    );
    void showWaitingQuestions(questions.list().length);
  });

  const stepTimings: StepTiming[] = [];
  const runner = new AgentRunner({
    store,
    registry,
    getClient: getModelClient,
    getMaxSteps,
    keepAlive: startKeepAlive,
    events: {
      conversation: (conversation) =>
        hub.broadcast({ type: 'conversation', conversation, running: conversation.status === 'running' }),
      message: (message) => hub.broadcast({ type: 'message', message }),
      delta: (conversationId, messageId, text, offset) =>
        hub.broadcast({ type: 'delta', conversationId, messageId, text, offset }),
      subAgentEvent: (conversationId, toolCallId, event) =>
        hub.broadcast({ type: 'sub_agent_event', conversationId, toolCallId, event }),
    },
    onStepTiming: (timing) => {
      stepTimings.push(timing);
      if (stepTimings.length > 1000) stepTimings.shift();
    },
  });

  function pluginInfos(): PluginInfo[] {
    return registry.listPlugins().map(({ plugin, enabled }) => ({
      id: plugin.id,
      name: plugin.name,
      description: plugin.description,
      source: plugin.source,
      enabled,
      tools: plugin.tools.map((t) => ({ name: t.name, description: t.description })),
    }));
  }

  // Everything that reads settings or storage waits for start-up to finish.
  const ready = (async () => {
    await registry.loadState();
    await pageTools.start();
    const recovered = await store.recoverInterrupted(runner.runningIds());
    for (const conversation of recovered) hub.broadcast({ type: 'conversation', conversation, running: false });
    // Parts of atomic writes a stopped background left behind.
    await new Workspace().cleanTemp().catch(() => undefined);
  })();
  ready.catch((error) => console.error('[sidequest] background start-up failed', error));
  pluginState.watch((state) => registry.applyState(state ?? {}));
  registry.onChange(() => hub.broadcast({ type: 'plugins', plugins: pluginInfos() }));

  hub.listen();
  handle('listConversations', () => store.list());
  handle('getConversation', async ({ id }) => {
    const conversation = await store.get(id);
    if (!conversation) return null;
    const messages = await store.messages(id);
    const live = runner.liveMessage(id);
    if (live) {
      const at = messages.findIndex((m) => m.id === live.id);
      if (at >= 0) messages[at] = live;
      else messages.push(live);
    }
    return { conversation, messages, running: runner.isRunning(id) };
  });
  handle('createConversation', async () => {
    const conversation = await store.create();
    await providers.adoptNew(conversation.id);
    hub.broadcast({ type: 'conversation', conversation, running: false });
    return conversation;
  });
  handle('renameConversation', async ({ id, title }) => {
    const conversation = await store.rename(id, title);
    hub.broadcast({ type: 'conversation', conversation, running: runner.isRunning(id) });
    return conversation;
  });
  handle('deleteConversation', async ({ id }) => {
    runner.stop(id);
    await runner.settled(id);
    questions.withdraw(id);
    await tasks.drop(id);
    await store.delete(id);
    await providers.forget(id);
    hub.broadcast({ type: 'conversation-deleted', id });
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
  handle('getStepTimings', () => [...stepTimings]);
  handle('listPageTools', () => pageTools.views());
  handle('refreshPageTools', ({ tabId, reason }) => pageTools.refresh(tabId, reason ?? 'refresh'));
  handle('decidePageTools', async ({ origin, decision }) => {
    await pageTools.decide(origin, decision);
    return pageTools.views();
  });
  handle('listSitePermissions', () => pageTools.listPermissions());
  handle('revokeSitePermission', async ({ origin }) => {
    await pageTools.revoke(origin);
    return pageTools.listPermissions();
  });
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
  handle('getTasks', ({ conversationId }) => tasks.list(conversationId));
  handle('listQuestions', () => questions.list());
  handle('answerQuestion', ({ id, answer }) => questions.answer(id, answer));
  handle('getSearchSettings', () => search.view());
  handle('saveSearchSettings', (data) => search.save(data));
  handle('testSearch', (data) => search.test(data));

  /** Registers a handler that only the extension's own pages may call, after start-up. */
  function handle<K extends keyof ProtocolMap>(
    type: K,
    handler: (data: Parameters<ProtocolMap[K]>[0]) => ReturnType<ProtocolMap[K]> | Promise<ReturnType<ProtocolMap[K]>>,
  ): void {
    onMessage(type, async (message) => {
      if (!isExtensionPage(message.sender)) throw new Error('Not allowed from this context.');
      await ready;
      return handler(message.data as Parameters<ProtocolMap[K]>[0]);
    });
  }

  return { registry, runner, store, hub, ready, browser, pageTools, tasks, questions };
}

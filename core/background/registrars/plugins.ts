import { tabsInPlay } from '@/core/agent/offered-tabs';
import type { PluginInfo } from '@/core/messaging/protocol';
import { runOffscreenJob } from '@/core/offscreen/host';
import type { PluginContext } from '@/core/plugin';
import { pluginStorage } from '@/core/storage/plugin-data';
import { showConversation } from '../commands';
import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/**
 * The built-in plugins (`plugins/index.ts`): each one's `setup` with its `PluginContext`, its
 * tools in the registry; the plugin list and switches for the pages.
 */
export function registerPlugins(ctx: BackgroundContext): () => void {
  const { registry, runner, hub, handle } = ctx;
  const disposers: Array<() => void> = [];
  for (const plugin of ctx.plugins) {
    const pluginCtx: PluginContext = {
      pluginId: plugin.id,
      handle: (type, handler) => void disposers.push(handle(type, handler)),
      setBadgeCount: (count) => ctx.badge.set(`plugin:${plugin.id}`, count),
      retained: (name, size, max) => void disposers.push(ctx.retained.register(`${plugin.id}/${name}`, size, max)),
      broadcast: (event) => hub.broadcast(event),
      storage: pluginStorage(ctx.db, plugin.id),
      // A tool's model requests (sub-agents, summaries) count against its run's token budget.
      getModelClient: async (conversationId) => runner.metered(conversationId, await ctx.getModelClient(conversationId)),
      getMaxSteps: ctx.getMaxSteps,
      configuredOrigins: () => ctx.configuredOrigins.all(),
      addConfiguredOrigins: (source) => ctx.configuredOrigins.add(source),
      registry,
      gate: ctx.gate,
      holdTabs: (hold) => void disposers.push(ctx.gate.addHold(hold)),
      instructions: (section) => {
        ctx.instructions.push(section);
        disposers.push(() => void ctx.instructions.splice(ctx.instructions.indexOf(section) >>> 0, 1));
      },
      offscreen: runOffscreenJob,
      // Each its own start-up task: one that fails is told and does not hold the others.
      onStartup: (task, options) =>
        ctx.onStartup(async () => {
          try {
            await task();
          } catch (error) {
            console.error(`[sidequest] the start-up task of the plugin ${plugin.id} failed`, error);
          }
        }, options),
      conversations: {
        onDeleted: (listener) => void disposers.push(ctx.conversationDeleted.add(listener)),
        tabsInPlay: async (conversationId, boundTab) => tabsInPlay(registry, conversationId ? await ctx.store.messages(conversationId) : [], boundTab),
        onRunEnd: (listener) => void disposers.push(ctx.runEnded.add(listener)),
        stop: (conversationId) => runner.stop(conversationId),
        claim: (handler) => {
          ctx.claims.push(handler);
          disposers.push(() => void ctx.claims.splice(ctx.claims.indexOf(handler) >>> 0, 1));
        },
        create: async ({ title, grantedAhead }) => {
          let conversation = await ctx.store.create(title);
          if (grantedAhead) conversation = await ctx.store.update(conversation.id, { grantedAhead });
          await ctx.providers.adoptNew(conversation.id);
          hub.broadcast({ type: 'conversation', conversation });
          return conversation;
        },
        withdrawGrants: async (conversationId) => {
          ctx.gate.withdrawGrantsAhead(conversationId);
          const conversation = await ctx.store.get(conversationId);
          if (!conversation?.grantedAhead?.length) return;
          hub.broadcast({ type: 'conversation', conversation: await ctx.store.update(conversationId, { grantedAhead: [] }) });
        },
        send: async (conversationId, text) => {
          await runner.send(conversationId, text);
        },
        messages: (conversationId) => ctx.store.messages(conversationId),
        get: (conversationId) => ctx.store.get(conversationId),
        settled: (conversationId) => runner.settled(conversationId),
      },
      approvals: {
        onAsk: (listener) => void disposers.push(ctx.asked.add(listener)),
        grantForRun: (conversationId, grant) => ctx.gate.grantForRun(conversationId, grant),
        withdrawGrant: (conversationId) => ctx.gate.withdrawGrant(conversationId),
        actWithoutAskingByDefault: (source) => {
          ctx.trustNew.push(source);
          disposers.push(() => void ctx.trustNew.splice(ctx.trustNew.indexOf(source) >>> 0, 1));
        },
      },
      showConversation: (conversationId) => showConversation(conversationId),
      onDeleteAll: (listener) => void disposers.push(ctx.allDataDeleted.add(listener)),
      onSettingsImported: (listener) => void disposers.push(ctx.settingsImported.add(listener)),
    };
    const setup = plugin.setup?.(pluginCtx) ?? undefined;
    if (setup?.dispose) disposers.push(() => setup.dispose!());
    disposers.push(
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
      ),
    );
  }
  function pluginInfos(): PluginInfo[] {
    return registry.listPlugins().map(({ plugin, enabled }) => ({
      id: plugin.id,
      name: plugin.name,
      description: plugin.description,
      source: plugin.source,
      enabled,
      tools: plugin.tools.map((t) => {
        // Functions stay here (`target`, `forCall`, `describe`, any later one): messages carry data
        // only, and Firefox refuses to send a function at all (the whole broadcast is lost).
        const all = registry.describe(t.name)?.annotations ?? { readOnly: false, destructive: true, openWorld: true };
        const annotations = Object.fromEntries(Object.entries(all).filter(([, value]) => typeof value !== 'function')) as typeof all;
        return { name: t.name, description: t.description, annotations };
      }),
    }));
  }

  return disposeAll(
    ...disposers,
    registry.onChange(() => hub.broadcast({ type: 'plugins', plugins: pluginInfos() })),
    handle('listPlugins', () => pluginInfos()),
    handle('setPluginEnabled', async ({ id, enabled }) => {
      if (!registry.getPlugin(id)) throw new Error(`There is no plugin "${id}".`);
      await registry.setEnabled(id, enabled);
      return pluginInfos();
    }),
  );
}

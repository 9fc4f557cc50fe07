import { z } from 'zod';
import { SaidError } from '@/core/i18n/catalog';
import type { PluginContext, PluginSetup } from '@/core/plugin';
import { lazy } from '@/core/storage/setting';
import { checkedText, checkRoom, memoriesSchema, memorySection, type Memory } from './memories';
import type { MemoryState } from './protocol';
import './protocol';

/** What the `remember` tool and the messages use. */
export interface MemoryService {
  state(): Promise<MemoryState>;
  /** Keeps one memory at the end of the list; throws a `SaidError` when it is empty, too long or there is no room. */
  add(text: string, by: Memory['by']): Promise<Memory>;
  edit(id: string, text: string): Promise<MemoryState>;
  remove(id: string): Promise<MemoryState>;
  setEnabled(enabled: boolean): Promise<MemoryState>;
  /** The conversations whose prompt leaves the memories out. */
  leftOut(): Promise<string[]>;
  setLeftOut(conversationId: string, leftOut: boolean): Promise<string[]>;
  /** The system prompt's paragraph for this conversation's run (undefined: none). */
  section(conversationId: string): Promise<string | undefined>;
}

const leftOutSchema = lazy(() => z.object({ conversationId: z.string(), at: z.number() }));

/**
 * The memory's background service: the memories are one plugin item (`memories`: a short bounded
 * list, so it travels in the settings file with its checks), the switch is the plugin's own, the
 * conversations that leave them out a collection (`leftOut`, by conversation id: it grows with
 * conversations, and a per-conversation choice is not exported). Writes go one after another, so
 * an allowed `remember` and an edit in Settings never lose each other's change.
 */
export function startMemory(ctx: PluginContext): PluginSetup<MemoryService> {
  const memories = ctx.storage.item<Memory[]>('memories', { fallback: [], schema: memoriesSchema });
  // Memory on or off is the plugin's own switch (Settings → Plugins shows the same one): off, its
  // tool is not there to call and no prompt carries a memory.
  const isOn = () => ctx.registry.isEnabled(ctx.pluginId);
  const leftOut = ctx.storage.collection<{ conversationId: string; at: number }>('leftOut', { schema: leftOutSchema });

  let queue: Promise<unknown> = Promise.resolve();
  /** Runs one change after the ones before it (each reads what the last one wrote). */
  function serial<T>(change: () => Promise<T>): Promise<T> {
    const next = queue.then(change, change);
    queue = next.catch(() => undefined);
    return next;
  }

  const state = async (): Promise<MemoryState> => ({ enabled: isOn(), memories: await memories.getValue() });
  const changed = async (): Promise<MemoryState> => {
    const now = await state();
    ctx.broadcast({ type: 'memory', ...now });
    return now;
  };
  /** Rewrites the list with `change` applied, within the bounds. */
  const rewrite = (change: (list: Memory[]) => Memory[]) =>
    serial(async () => {
      const list = change(await memories.getValue());
      checkRoom(list);
      await memories.setValue(list);
      return changed();
    });
  const leftOutIds = async () => (await leftOut.list()).map((row) => row.conversationId);

  const service: MemoryService = {
    state,
    async add(text, by) {
      const memory: Memory = { id: crypto.randomUUID(), text: checkedText(text), by, at: Date.now() };
      await rewrite((list) => [...list, memory]);
      return memory;
    },
    edit(id, text) {
      const clean = checkedText(text);
      return rewrite((list) => {
        if (!list.some((m) => m.id === id)) throw new SaidError('memory.errors.gone');
        return list.map((m) => (m.id === id ? { ...m, text: clean, edited: Date.now() } : m));
      });
    },
    remove(id) {
      return rewrite((list) => list.filter((m) => m.id !== id));
    },
    async setEnabled(on) {
      await ctx.registry.setEnabled(ctx.pluginId, on);
      return state();
    },
    leftOut: () => leftOutIds(),
    setLeftOut(conversationId, out) {
      return serial(async () => {
        if (out) await leftOut.put(conversationId, { conversationId, at: Date.now() });
        else await leftOut.delete(conversationId);
        const ids = await leftOutIds();
        ctx.broadcast({ type: 'memory-left-out', conversationIds: ids });
        return ids;
      });
    },
    async section(conversationId) {
      if (!isOn() || (await leftOut.get(conversationId))) return undefined;
      return memorySection(await memories.getValue());
    },
  };

  ctx.instructions((conversation) => service.section(conversation.id));
  // The switch changed (here or in Settings → Plugins): the pages showing the memory hear it.
  let wasOn: boolean | undefined;
  const stopWatching = ctx.registry.onChange(() => {
    if (wasOn !== undefined && wasOn !== isOn()) void changed();
    wasOn = isOn();
  });
  ctx.conversations.onDeleted((conversationId) => leftOut.delete(conversationId));
  ctx.onSettingsImported(() => void changed());
  ctx.handle('memory/list', () => state());
  ctx.handle('memory/add', async ({ text }) => (await service.add(text, 'user'), state()));
  ctx.handle('memory/edit', ({ id, text }) => service.edit(id, text));
  ctx.handle('memory/delete', ({ id }) => service.remove(id));
  ctx.handle('memory/setEnabled', ({ enabled: on }) => service.setEnabled(on === true));
  ctx.handle('memory/leftOut', () => service.leftOut());
  ctx.handle('memory/setLeftOut', ({ conversationId, leftOut: out }) => service.setLeftOut(conversationId, out === true));
  return { service, dispose: stopWatching };
}

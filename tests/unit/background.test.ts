// The background starts from registrars (core/background/registrars/): every core message has one
// handler, the benchmark's only in bench builds, the plugins get the same gate as the runner, and
// dispose removes every handler. Message registration is recorded instead of reaching the browser.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { BuiltinPlugin, PluginContext } from '@/core/plugin';

const registered = vi.hoisted(() => new Map<string, number>());
const handlers = vi.hoisted(() => new Map<string, (message: { data: unknown; sender: unknown }) => unknown>());
vi.mock('@/core/messaging/protocol', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@/core/messaging/protocol')>();
  return {
    ...actual,
    onMessage: (type: string, handler: (message: { data: unknown; sender: unknown }) => unknown) => {
      handlers.set(type, handler);
      registered.set(type, (registered.get(type) ?? 0) + 1);
      return () => registered.set(type, registered.get(type)! - 1);
    },
  };
});

const { startBackground } = await import('@/core/background/service');

const BENCH = ['getStepTimings', 'measureToolCalls', 'measureGate', 'measureStepWrite'];
const live = () => [...registered].filter(([, n]) => n > 0).map(([type]) => type).sort();

beforeEach(() => {
  registered.clear();
  // fakeBrowser has no ports: the events hub listens for none here.
  vi.spyOn(fakeBrowser.runtime.onConnect, 'addListener').mockImplementation(() => undefined);
});

describe('startBackground', () => {
  it('lists the plugins as data only: no function of a tool\'s annotations goes to a page (Firefox refuses to send one)', async () => {
    const tool = {
      name: 'probe_act',
      description: 'Acts.',
      inputSchema: { type: 'object' as const },
      execute: () => 'done',
      annotations: { readOnly: false, destructive: false, openWorld: false, pages: true, target: () => ({}), forCall: () => undefined, describe: async () => undefined },
    };
    const plugin: BuiltinPlugin = { id: 'probe', name: 'Probe', description: '', tools: [tool] };
    const background = startBackground({ plugins: [plugin] });
    await background.ready;
    const infos = (await handlers.get('listPlugins')!({ data: undefined, sender: { id: fakeBrowser.runtime.id, url: fakeBrowser.runtime.getURL('/sidepanel.html') } })) as Array<{ id: string; tools: Array<{ annotations: Record<string, unknown> }> }>;
    const probe = infos.find((p) => p.id === 'probe')!;
    expect(probe.tools[0]!.annotations).toEqual({ readOnly: false, destructive: false, openWorld: false, pages: true });
    expect(() => structuredClone(infos)).not.toThrow();
    background.dispose();
  });

  it('registers each core message once, and no benchmark message outside bench builds', async () => {
    const background = startBackground({ plugins: [] });
    await background.ready;
    expect([...registered.values()].every((n) => n === 1)).toBe(true);
    expect(live()).toEqual(expect.arrayContaining(['listConversations', 'sendMessage', 'checkProvider', 'answerApproval', 'listPlugins', 'deleteAllData', 'getTrace']));
    expect(live().filter((type) => BENCH.includes(type))).toEqual([]);
    background.dispose();
    expect(live()).toEqual([]);
  });

  it('adds the benchmark messages in bench builds', async () => {
    const background = startBackground({ plugins: [], bench: true });
    await background.ready;
    expect(live()).toEqual(expect.arrayContaining(BENCH));
    background.dispose();
  });

  it('hands every plugin the gate the runner uses, and refuses a plugin that answers a core message', async () => {
    let seen: PluginContext | undefined;
    const plugin: BuiltinPlugin = { id: 'probe', name: 'Probe', description: '', tools: [], setup: (ctx) => void (seen = ctx) };
    const background = startBackground({ plugins: [plugin] });
    await background.ready;
    expect(seen?.gate).toBe(background.gate);
    expect(background.registry.getPlugin('probe')).toBeDefined();
    background.dispose();
    expect(background.registry.getPlugin('probe')).toBeUndefined();

    const greedy: BuiltinPlugin = { id: 'greedy', name: 'Greedy', description: '', tools: [], setup: (ctx) => ctx.handle('listConversations', () => []) };
    expect(() => startBackground({ plugins: [greedy] })).toThrow('Two handlers for the message "listConversations".');
  });

  it('runs the start-up tasks side by side, those marked last after all the others, and a failing plugin task holds nothing', async () => {
    const order: string[] = [];
    let bStarted!: () => void;
    const bHasStarted = new Promise<void>((resolve) => (bStarted = resolve));
    const probe = (id: string, setup: BuiltinPlugin['setup']): BuiltinPlugin => ({ id, name: id, description: '', tools: [], setup });
    const plugins = [
      // Last, though listed first: it runs once every other task is done.
      probe('late', (ctx) => ctx.onStartup(async () => void order.push('late'), { last: true })),
      // Waits for b to start: one after another it would give up after 200 ms and end first.
      probe('a', (ctx) =>
        ctx.onStartup(async () => {
          order.push('a:start');
          await Promise.race([bHasStarted, new Promise((resolve) => setTimeout(resolve, 200))]);
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push('a:end');
        }),
      ),
      probe('b', (ctx) =>
        ctx.onStartup(async () => {
          order.push('b:start');
          bStarted();
          order.push('b:end');
        }),
      ),
      probe('broken', (ctx) =>
        ctx.onStartup(async () => {
          throw new Error('boom');
        }),
      ),
    ];
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const background = startBackground({ plugins });
    await background.ready;
    expect(order).toEqual(['a:start', 'b:start', 'b:end', 'a:end', 'late']);
    expect(error).toHaveBeenCalledWith('[sidequest] the start-up task of the plugin broken failed', expect.any(Error));
    error.mockRestore();
    background.dispose();
  });

  it('tells plugins when a run ends and lets them stop a run (conversations.onRunEnd, conversations.stop)', async () => {
    let seen: PluginContext | undefined;
    const ended: string[] = [];
    const plugin: BuiltinPlugin = {
      id: 'probe',
      name: 'Probe',
      description: '',
      tools: [],
      setup: (ctx) => {
        seen = ctx;
        ctx.conversations.onRunEnd((id) => void ended.push(id));
        // One listener that throws does not keep the others from hearing it.
        ctx.conversations.onRunEnd(() => {
          throw new Error('boom');
        });
      },
    };
    const background = startBackground({ plugins: [plugin] });
    await background.ready;
    const stop = vi.spyOn(background.runner, 'stop');
    expect(seen!.conversations.stop('c1')).toBe(false);
    expect(stop).toHaveBeenCalledWith('c1');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await background.runEnded.run('c1');
    expect(ended).toEqual(['c1']);
    expect(warn).toHaveBeenCalledTimes(1);
    background.dispose();
    await background.runEnded.run('c2');
    expect(ended).toEqual(['c1']);
    warn.mockRestore();
  });
});

import { describe, expect, it, vi } from 'vitest';
import {
  capOutput,
  defineTool,
  DuplicateToolError,
  ToolRegistry,
  type PluginStateStore,
} from '@/core/registry/registry';
import type { Plugin, ToolDefinition, ValidatorFactory } from '@/core/registry/types';
import { interpretedValidators } from '@/core/registry/interpreted-validator';

const READ_ONLY = { readOnly: true, destructive: false, openWorld: false } as const;

const runtimeValidators: ValidatorFactory = interpretedValidators;

const add = defineTool<{ a: number; b: number }, number>({
  annotations: READ_ONLY,
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: ({ a, b }) => a + b,
});

function plugin(id: string, tools: ToolDefinition[] = [add], extra: Partial<Plugin> = {}): Plugin {
  return { id, name: id, description: `${id} tools`, source: 'builtin', tools, ...extra };
}

function memoryState(initial: Record<string, boolean> = {}): PluginStateStore & { saved: Record<string, boolean> } {
  const store = {
    saved: { ...initial },
    load: async () => ({ ...store.saved }),
    save: async (state: Record<string, boolean>) => {
      store.saved = { ...state };
    },
  };
  return store;
}

describe('ToolRegistry', () => {
  it('runs a tool with valid input and returns its output as data', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    registry.register(plugin('math'));
    expect(await registry.invoke('add', { a: 2, b: 3 })).toEqual({ ok: true, output: 5 });
  });

  it('validates input against the schema before execute runs', async () => {
    const execute = vi.fn(() => 1);
    const registry = new ToolRegistry(runtimeValidators);
    registry.register(plugin('math', [{ ...add, execute }]));
    const result = await registry.invoke('add', { a: 'two', c: 1 });
    expect(execute).not.toHaveBeenCalled();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('invalid_input');
    expect(result.error).toMatch(/^Invalid parameters for tool add: /);
    expect(result.error).toContain('a must be number');
    expect(result.error).toContain('b is required');
    expect(result.error).toContain('c is not a parameter of this tool');
  });

  it('treats a missing input as an empty object', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    const noArgs = defineTool({ annotations: READ_ONLY, name: 'ping', description: 'p', inputSchema: { type: 'object' }, execute: () => 'pong' });
    registry.register(plugin('p', [noArgs]));
    expect(await registry.invoke('ping', undefined)).toEqual({ ok: true, output: 'pong' });
  });

  it('refuses a duplicate tool name, and adds nothing of the refused plugin', () => {
    const registry = new ToolRegistry(runtimeValidators);
    registry.register(plugin('math'));
    const other = defineTool({ annotations: READ_ONLY, name: 'other', description: 'o', inputSchema: { type: 'object' }, execute: () => 0 });
    expect(() => registry.register(plugin('math2', [other, add]))).toThrow(DuplicateToolError);
    expect(() => registry.register(plugin('math2', [other, add]))).toThrow(/Tool "add" is already registered by plugin "math"/);
    expect(registry.describe('other')).toBeUndefined();
    expect(registry.listPlugins().map((p) => p.plugin.id)).toEqual(['math']);
  });

  it('refuses a duplicate name inside one plugin and a duplicate plugin id', () => {
    const registry = new ToolRegistry(runtimeValidators);
    expect(() => registry.register(plugin('twice', [add, add]))).toThrow(DuplicateToolError);
    registry.register(plugin('math'));
    const sub = defineTool({ annotations: READ_ONLY, name: 'sub', description: 's', inputSchema: { type: 'object' }, execute: () => 0 });
    expect(() => registry.register(plugin('math', [sub]))).toThrow(/already registered/);
  });

  it('returns a disposer that removes the plugin and frees its names', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    const dispose = registry.register(plugin('math'));
    dispose();
    dispose(); // twice is harmless
    expect(registry.listTools()).toEqual([]);
    expect((await registry.invoke('add', { a: 1, b: 1 })).ok).toBe(false);
    registry.register(plugin('math'));
    expect(registry.listTools().map((t) => t.name)).toEqual(['add']);
  });

  it('a stale disposer does not remove a plugin registered again under the same id', () => {
    const registry = new ToolRegistry(runtimeValidators);
    const stale = registry.register(plugin('math'));
    stale();
    registry.register(plugin('math'));
    stale();
    expect(registry.listTools().map((t) => t.name)).toEqual(['add']);
  });

  it('hides the tools of a disabled plugin from the model and refuses to run them', async () => {
    const state = memoryState();
    const registry = new ToolRegistry(runtimeValidators, state);
    registry.register(plugin('math'));
    await registry.loadState();
    await registry.setEnabled('math', false);
    expect(state.saved).toEqual({ math: false });
    expect(registry.listTools()).toEqual([]);
    const result = await registry.invoke('add', { a: 1, b: 2 });
    expect(result).toMatchObject({ ok: false, code: 'disabled' });
    await registry.setEnabled('math', true);
    expect(registry.listTools()).toHaveLength(1);
  });

  it('loads the persisted on/off state and honours enabledByDefault', async () => {
    const registry = new ToolRegistry(runtimeValidators, memoryState({ math: false }));
    registry.register(plugin('math'));
    const sub = defineTool({ annotations: READ_ONLY, name: 'sub', description: 's', inputSchema: { type: 'object' }, execute: () => 0 });
    registry.register(plugin('off', [sub], { enabledByDefault: false }));
    await registry.loadState();
    expect(registry.isEnabled('math')).toBe(false);
    expect(registry.isEnabled('off')).toBe(false);
    registry.applyState({ math: true, off: true });
    expect(registry.listTools().map((t) => t.name).sort()).toEqual(['add', 'sub']);
  });

  it('turns a thrown error into an error result the model can read', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    const boom = defineTool({
      annotations: READ_ONLY,
      name: 'boom',
      description: 'b',
      inputSchema: { type: 'object' },
      execute: () => {
        throw new Error('Tab 12 does not exist. Call list_tabs.');
      },
    });
    const rejects = defineTool({ annotations: READ_ONLY, name: 'rejects', description: 'r', inputSchema: { type: 'object' }, execute: () => Promise.reject('plain string') });
    registry.register(plugin('b', [boom, rejects]));
    expect(await registry.invoke('boom', {})).toEqual({ ok: false, code: 'failed', error: 'Tab 12 does not exist. Call list_tabs.' });
    expect(await registry.invoke('rejects', {})).toEqual({ ok: false, code: 'failed', error: 'plain string' });
  });

  it('stops a tool that does not finish in time, and aborts its signal', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    let seen: AbortSignal | undefined;
    const slow = defineTool({
      annotations: READ_ONLY,
      name: 'slow',
      description: 's',
      inputSchema: { type: 'object' },
      execute: (_input, { signal }) => {
        seen = signal;
        return new Promise(() => undefined);
      },
    });
    registry.register(plugin('s', [slow]));
    const result = await registry.invoke('slow', {}, { timeoutMs: 50 });
    expect(result).toEqual({ ok: false, code: 'timeout', error: 'Tool slow did not finish within 50 ms and was stopped.' });
    expect(seen?.aborted).toBe(true);
  });

  it('uses a tool’s own timeout over the call’s', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    const slowish = defineTool({
      annotations: READ_ONLY,
      name: 'slowish',
      description: 's',
      inputSchema: { type: 'object' },
      timeoutMs: 500,
      execute: () => new Promise((resolve) => setTimeout(() => resolve('done'), 80)),
    });
    registry.register(plugin('s', [slowish]));
    expect(await registry.invoke('slowish', {}, { timeoutMs: 20 })).toEqual({ ok: true, output: 'done' });
  });

  it('the clock stops while the user is asked about an address reached mid-call; the ask is bound to the call', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    let askedWith: AbortSignal | undefined;
    const hop = defineTool({
      annotations: READ_ONLY,
      name: 'hop',
      description: 'h',
      inputSchema: { type: 'object' },
      execute: async (_input, { reach }) => {
        await new Promise((r) => setTimeout(r, 30));
        const verdict = await reach!('https://next.example/', { redirectFrom: 'https://first.example/' });
        await new Promise((r) => setTimeout(r, 30));
        return verdict;
      },
    });
    registry.register(plugin('h', [hop]));
    // The user takes 200 ms to answer a call allowed 100 ms: it still finishes.
    const reach = (_url: string, _how: unknown, signal?: AbortSignal) => {
      askedWith = signal;
      return new Promise<{ ok: true }>((resolve) => setTimeout(() => resolve({ ok: true }), 200));
    };
    expect(await registry.invoke('hop', {}, { timeoutMs: 100, context: { reach } })).toEqual({ ok: true, output: { ok: true } });
    expect(askedWith).toBeInstanceOf(AbortSignal);
    // Time outside the ask still counts: 30 ms before and 30 after, against a limit of 50.
    const stuck = defineTool({
      annotations: READ_ONLY,
      name: 'stuck',
      description: 's',
      inputSchema: { type: 'object' },
      execute: async (_input, { reach }) => {
        await reach!('https://next.example/', {});
        return new Promise(() => undefined);
      },
    });
    registry.register(plugin('s', [stuck]));
    const quick = () => Promise.resolve({ ok: true as const });
    expect(await registry.invoke('stuck', {}, { timeoutMs: 50, context: { reach: quick } })).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('the clock stops while a call waits for the user (waitForUser), and only then', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    const patient = defineTool({
      annotations: READ_ONLY,
      name: 'patient',
      description: 'p',
      inputSchema: { type: 'object' },
      execute: async (_input, { waitForUser }) => {
        // The user keeps the tab for 150 ms of a call allowed 60 ms; two waits at once count once.
        const user = new Promise((r) => setTimeout(r, 150));
        await Promise.all([waitForUser!(user), waitForUser!(new Promise((r) => setTimeout(r, 20)))]);
        await new Promise((r) => setTimeout(r, 20));
        return 'resumed';
      },
    });
    registry.register(plugin('p', [patient]));
    expect(await registry.invoke('patient', {}, { timeoutMs: 60 })).toEqual({ ok: true, output: 'resumed' });
    const late = defineTool({
      annotations: READ_ONLY,
      name: 'late',
      description: 'l',
      inputSchema: { type: 'object' },
      execute: async (_input, { waitForUser }) => {
        await waitForUser!(Promise.resolve());
        return new Promise(() => undefined);
      },
    });
    registry.register(plugin('l', [late]));
    expect(await registry.invoke('late', {}, { timeoutMs: 40 })).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('stops a running tool when the run is stopped', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    const hang = defineTool({ annotations: READ_ONLY, name: 'hang', description: 'h', inputSchema: { type: 'object' }, execute: () => new Promise(() => undefined) });
    registry.register(plugin('h', [hang]));
    const controller = new AbortController();
    const pending = registry.invoke('hang', {}, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, code: 'aborted' });
    expect(await registry.invoke('hang', {}, { signal: controller.signal })).toMatchObject({ ok: false, code: 'aborted' });
  });

  it('reports an unknown tool', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    expect(await registry.invoke('nope', {})).toMatchObject({ ok: false, code: 'not_found', error: expect.stringMatching(/^Tool nope not found/) });
  });

  it('checks `allow` when a tool is called, not only when tools are listed', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    registry.register(plugin('math'));
    const allow = (spec: { pluginId: string }) => spec.pluginId !== 'math';
    expect(registry.listTools(allow)).toEqual([]);
    expect(await registry.invoke('add', { a: 1, b: 2 }, { allow })).toMatchObject({ ok: false, code: 'disabled' });
  });

  it('makes outputs JSON-safe and cuts oversized ones with a note', async () => {
    const registry = new ToolRegistry(runtimeValidators);
    const cyclic: Record<string, unknown> = { name: 'x', when: new Date(0), fn: () => 1, gone: undefined };
    cyclic.self = cyclic;
    const weird = defineTool({ annotations: READ_ONLY, name: 'weird', description: 'w', inputSchema: { type: 'object' }, execute: () => cyclic });
    const big = defineTool({ annotations: READ_ONLY, name: 'big', description: 'b', inputSchema: { type: 'object' }, execute: () => 'x'.repeat(500) });
    registry.register(plugin('w', [weird, big]));
    expect(await registry.invoke('weird', {})).toEqual({
      ok: true,
      output: { name: 'x', when: '<Date instance>', fn: '<Function object>', self: '<Circular reference>' },
    });
    const cut = await registry.invoke('big', {}, { maxOutputChars: 100 });
    expect(cut.ok && cut.truncated).toBe(true);
    expect(cut.ok && String(cut.output)).toMatch(/\[Output cut: it was 502 characters as JSON, the limit is 100\./);
    expect(capOutput({ a: 1 }, 100)).toEqual({ ok: true, output: { a: 1 } });
  });

  it('notifies listeners of changes', async () => {
    const registry = new ToolRegistry(runtimeValidators, memoryState());
    const listener = vi.fn();
    const off = registry.onChange(listener);
    const dispose = registry.register(plugin('math'));
    await registry.setEnabled('math', false);
    dispose();
    off();
    registry.register(plugin('again'));
    expect(listener).toHaveBeenCalledTimes(3);
  });
});

describe('one validator for every source', () => {
  it('validates built-in tools and words the problem the same way as for page tools', async () => {
    const registry = new ToolRegistry(interpretedValidators);
    const closeTab = defineTool({
      annotations: READ_ONLY,
      name: 'close_tab',
      description: 'Close a tab.',
      inputSchema: { type: 'object', properties: { tab_id: { type: 'integer' } }, required: ['tab_id'], additionalProperties: false },
      execute: () => true,
    });
    registry.register(plugin('tabs', [closeTab]));
    const result = await registry.invoke('close_tab', { tab_id: 'seven' });
    expect(result).toEqual({ ok: false, code: 'invalid_input', error: 'Invalid parameters for tool close_tab: tab_id must be integer (got string)' });
    const page = plugin('page:1', [{ ...add, name: 'page1_add' }], { source: 'page', scope: { tabId: 1, origin: 'https://a.test' } });
    registry.register(page);
    expect(await registry.invoke('page1_add', { a: 'x', b: 1 })).toEqual({
      ok: false,
      code: 'invalid_input',
      error: 'Invalid parameters for tool page1_add: a must be number (got string)',
    });
  });

  it('names missing, unknown and out-of-range parameters', async () => {
    const registry = new ToolRegistry(interpretedValidators);
    registry.register(plugin('math'));
    expect(await registry.invoke('add', { a: 1 })).toMatchObject({ error: 'Invalid parameters for tool add: b is required' });
    expect(await registry.invoke('add', { a: 1, b: 2, c: 3 })).toMatchObject({ error: 'Invalid parameters for tool add: c is not a parameter of this tool' });
  });

  it('refuses a built-in tool that does not say what it does', () => {
    const registry = new ToolRegistry(interpretedValidators);
    const { annotations: _annotations, ...bare } = add;
    expect(() => registry.register(plugin('math', [bare]))).toThrow(/has no annotations/);
  });
});

// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureIntrinsics, installMainWorldBridge, LIMITS, serializeResult, type MainWorldBridge } from '@/plugins/page-tools/main-world';
import { TO_ISOLATED_EVENT, TO_MAIN_EVENT, type MainToIsolated } from '@/plugins/page-tools/wire';

type Win = Window & typeof globalThis;
const win = window as unknown as Win;

describe('page tools in the MAIN world', () => {
  let bridge: MainWorldBridge;
  let posted: MainToIsolated[];
  let listeners: Array<(e: Event) => void>;
  const onPosted = (e: Event) => posted.push(JSON.parse((e as CustomEvent).detail));
  let errors: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    posted = [];
    listeners = [];
    window.addEventListener(TO_ISOLATED_EVENT, onPosted);
    errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
    bridge = installMainWorldBridge(win, { autoDiscover: false });
  });

  afterEach(() => {
    bridge.dispose();
    window.removeEventListener(TO_ISOLATED_EVENT, onPosted);
    for (const l of listeners) window.removeEventListener('devtoolstooldiscovery', l);
    errors.mockRestore();
  });

  function listen(fn: (e: any) => void): void {
    listeners.push(fn);
    window.addEventListener('devtoolstooldiscovery', fn);
  }

  const addTool = {
    name: 'add',
    description: 'Calculates the sum of two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: async (input: { a: number; b: number }) => input.a + input.b,
  };

  it('dispatches a CustomEvent with respondWith and collects the seed\'s example group', async () => {
    let seen: any;
    listen((e) => {
      seen = e;
      e.respondWith({ name: 'Page-specific DevTools', description: 'Provide runtime info.', tools: [addTool] });
    });
    const list = await bridge.discover('test');
    expect(seen).toBeInstanceOf(CustomEvent);
    expect(seen.type).toBe('devtoolstooldiscovery');
    expect(list.groups).toHaveLength(1);
    expect(list.groups[0]).toMatchObject({ name: 'Page-specific DevTools', source: 'devtools' });
    expect(list.groups[0]!.tools[0]).toMatchObject({ name: 'add', description: 'Calculates the sum of two numbers.' });
    expect(list.groups[0]!.tools[0]!.inputSchema).toEqual(addTool.inputSchema);
    // Only data crosses worlds: no function in what was posted.
    expect(JSON.stringify(posted)).not.toContain('execute');
    expect(posted.at(-1)).toMatchObject({ type: 'tools' });
  });

  it('counts synchronous, microtask and Promise answers from several listeners', async () => {
    listen((e) => e.respondWith({ name: 'Sync', tools: [addTool] }));
    listen((e) => queueMicrotask(() => e.respondWith({ name: 'Microtask', description: '', tools: [addTool] })));
    listen(async (e) => {
      await Promise.resolve();
      e.respondWith({ name: 'After await', description: 'x', tools: [addTool] });
    });
    listen((e) => e.respondWith(new Promise((resolve) => setTimeout(() => resolve({ name: 'Promise', description: '', tools: [addTool] }), 20))));
    const list = await bridge.discover('test');
    expect(list.groups.map((g) => g.name).sort()).toEqual(['After await', 'Microtask', 'Promise', 'Sync']);
    const keys = list.groups.flatMap((g) => g.tools.map((t) => t.key));
    expect(new Set(keys).size).toBe(4);
  });

  it('does not count an answer given after the discovery ended, and says so', async () => {
    listen((e) => setTimeout(() => e.respondWith({ name: 'Late', tools: [addTool] }), 30));
    const list = await bridge.discover('test');
    expect(list.groups).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('too late'));
  });

  it('drops invalid groups and tools with a console message naming what is wrong', async () => {
    listen((e) => e.respondWith(null));
    listen((e) => e.respondWith({ description: 'no name', tools: [] }));
    listen((e) => e.respondWith({ name: 'No tools array', tools: 'nope' }));
    listen((e) => e.respondWith({ name: 7, tools: [] }));
    listen((e) => e.respondWith({ name: 'Bad description', description: 5, tools: [] }));
    listen((e) =>
      e.respondWith({
        name: 'Mixed',
        description: 'one good, several bad',
        tools: [
          addTool,
          { name: 'noExecute', description: 'd', inputSchema: {} },
          { name: 'noDescription', inputSchema: {}, execute() {} },
          { name: 'stringSchema', description: 'd', inputSchema: 'x', execute() {} },
          { name: 'arraySchema', description: 'd', inputSchema: { type: 'array' }, execute() {} },
          { description: 'no name', inputSchema: {}, execute() {} },
        ],
      }),
    );
    listen((e) => e.respondWith(Promise.reject(new Error('boom'))));
    const list = await bridge.discover('test');
    expect(list.groups.map((g) => g.name)).toEqual(['Mixed']);
    expect(list.groups[0]!.tools.map((t) => t.name)).toEqual(['add']);
    const text = list.problems.join('\n');
    expect(text).toContain('Invalid toolGroup: toolGroup #1 is null');
    expect(text).toContain('has no string "name"');
    expect(text).toContain('"tools" must be an array');
    expect(text).toContain('"description" must be a string');
    expect(text).toContain('Invalid tool "noExecute"');
    expect(text).toContain('"execute" must be a function');
    expect(text).toContain('Invalid tool "noDescription"');
    expect(text).toContain('"inputSchema" must be a JSON Schema object');
    expect(text).toContain('type "object"');
    expect(text).toContain('was rejected (boom)');
    expect(errors.mock.calls.length).toBeGreaterThanOrEqual(list.problems.length);
    expect(String(errors.mock.calls[0]![0])).toContain('[Sidequest page tools] Invalid toolGroup');
  });

  it('accepts the seed\'s empty inputSchema ({}) for a tool without arguments', async () => {
    listen((e) => e.respondWith({ name: 'My app', description: 'Tools to debug my app', tools: [{ name: 'getCacheStatistics', description: 'Exposes runtime cache hits and misses.', inputSchema: {}, execute: async () => ({ hits: 3, misses: 1 }) }] }));
    const list = await bridge.discover('test');
    const tool = list.groups[0]!.tools[0]!;
    expect(tool.inputSchema).toEqual({});
    expect(await bridge.call(tool.key, {})).toEqual({ ok: true, json: '{"hits":3,"misses":1}' });
  });

  it('runs a tool in the page, and a thrown error comes back with its message', async () => {
    listen((e) =>
      e.respondWith({
        name: 'G',
        tools: [
          addTool,
          { name: 'fails', description: 'd', inputSchema: {}, execute: () => { throw new Error('Cart service is down'); } },
          { name: 'rejects', description: 'd', inputSchema: {}, execute: () => Promise.reject('plain string') },
          { name: 'nothing', description: 'd', inputSchema: {}, execute: () => undefined },
        ],
      }),
    );
    const list = await bridge.discover('test');
    const key = (name: string) => list.groups[0]!.tools.find((t) => t.name === name)!.key;
    expect(await bridge.call(key('add'), { a: 2, b: 3 })).toEqual({ ok: true, json: '5' });
    expect(await bridge.call(key('fails'), {})).toEqual({ ok: false, error: 'Cart service is down' });
    expect(await bridge.call(key('rejects'), {})).toEqual({ ok: false, error: 'plain string' });
    expect(await bridge.call(key('nothing'), {})).toEqual({ ok: true, json: '' });
    expect((await bridge.call('dt:9:9:gone', {})).ok).toBe(false);
  });

  it('answers call messages from the isolated world with result messages', async () => {
    listen((e) => e.respondWith({ name: 'G', tools: [addTool] }));
    const list = await bridge.discover('test');
    const key = list.groups[0]!.tools[0]!.key;
    window.dispatchEvent(new CustomEvent(TO_MAIN_EVENT, { detail: JSON.stringify({ type: 'call', callId: 'c1', key, input: { a: 20, b: 22 } }) }));
    await vi.waitFor(() => expect(posted.find((m) => m.type === 'result')).toBeTruthy());
    expect(posted.find((m) => m.type === 'result')).toEqual({ type: 'result', callId: 'c1', result: { ok: true, json: '42' } });
    // Garbage is ignored, not thrown.
    window.dispatchEvent(new CustomEvent(TO_MAIN_EVENT, { detail: 'not json' }));
    window.dispatchEvent(new CustomEvent(TO_MAIN_EVENT, { detail: { type: 'call' } }));
  });

  it('keeps working when the page replaces JSON.stringify and dispatchEvent after start', async () => {
    listen((e) => e.respondWith({ name: 'G', tools: [addTool] }));
    const stringify = JSON.stringify;
    const dispatch = EventTarget.prototype.dispatchEvent;
    try {
      JSON.stringify = () => '"hijacked"';
      EventTarget.prototype.dispatchEvent = () => false;
      const list = await bridge.discover('test');
      expect(list.groups).toHaveLength(1);
    } finally {
      JSON.stringify = stringify;
      EventTarget.prototype.dispatchEvent = dispatch;
    }
    expect(posted.at(-1)).toMatchObject({ type: 'tools' });
  });

  it('keeps working when the page patches built-in prototypes after start (Map, Array, String, RegExp)', async () => {
    listen((e) => e.respondWith({ name: 'G', tools: [addTool] }));
    const saved = { get: Map.prototype.get, push: Array.prototype.push, trim: String.prototype.trim, exec: RegExp.prototype.exec };
    const webmcpName = /^[A-Za-z0-9_.-]{1,128}$/.source;
    try {
      // Each patch breaks exactly what the bridge would do with it, and nothing else in the test run.
      Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
        return typeof key === 'string' && (key.startsWith('dt:') || key === 'echo') ? undefined : saved.get.call(this, key);
      };
      Array.prototype.push = function (this: unknown[], ...items: unknown[]) {
        return saved.push.apply(this, items.filter((item) => (item as { name?: unknown } | null)?.name !== 'G'));
      };
      String.prototype.trim = function (this: string) {
        return this === 'add' ? '' : saved.trim.call(this);
      };
      RegExp.prototype.exec = function (this: RegExp, text: string) {
        return this.source === webmcpName ? null : saved.exec.call(this, text);
      };
      (navigator as any).modelContext.registerTool({ name: 'echo', description: 'Echoes.', execute: () => 'echoed' });
      const list = await bridge.discover('test');
      expect(list.groups.map((g) => g.name)).toEqual(['G', 'WebMCP']);
      expect(list.groups[0]!.tools[0]!.name).toBe('add');
      expect(await bridge.call(list.groups[0]!.tools[0]!.key, { a: 1, b: 2 })).toEqual({ ok: true, json: '3' });
      expect(await bridge.call('wm:echo', {})).toEqual({ ok: true, json: '"echoed"' });
    } finally {
      Map.prototype.get = saved.get;
      Array.prototype.push = saved.push;
      String.prototype.trim = saved.trim;
      RegExp.prototype.exec = saved.exec;
    }
  });

  it('takes the page\'s built-ins into one frozen object without a prototype, with maps a patched Map.prototype does not reach', () => {
    const I = captureIntrinsics(win);
    expect(Object.isFrozen(I)).toBe(true);
    expect(Object.getPrototypeOf(I)).toBeNull();
    const map = new I.Map<string, number>();
    const saved = Map.prototype.set;
    try {
      Map.prototype.set = function () {
        throw new Error('patched');
      };
      map.set('a', 1);
    } finally {
      Map.prototype.set = saved;
    }
    expect(map.get('a')).toBe(1);
    expect(map.size).toBe(1);
  });

  describe('WebMCP', () => {
    const tool = (name: string, extra: object = {}) => ({
      name,
      description: `Tool ${name}`,
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      execute: async (input: { q?: string }) => ({ echoed: input.q ?? null }),
      ...extra,
    });

    it('provides document.modelContext: registerTool reaches the list, abort removes it at once', async () => {
      const mc = (document as any).modelContext;
      expect(typeof mc.registerTool).toBe('function');
      const controller = new AbortController();
      await mc.registerTool(tool('search.products', { annotations: { readOnlyHint: true }, title: 'Search' }), { signal: controller.signal });
      await Promise.resolve();
      const last = posted.at(-1) as Extract<MainToIsolated, { type: 'tools' }>;
      expect(last.list.groups).toEqual([
        expect.objectContaining({ name: 'WebMCP', source: 'webmcp', tools: [expect.objectContaining({ key: 'wm:search.products', name: 'search.products', annotations: { readOnlyHint: true }, title: 'Search' })] }),
      ]);
      expect(await bridge.call('wm:search.products', { q: 'tea' })).toEqual({ ok: true, json: '{"echoed":"tea"}' });

      controller.abort();
      await Promise.resolve();
      const after = posted.at(-1) as Extract<MainToIsolated, { type: 'tools' }>;
      expect(after.list.groups).toEqual([]);
      expect((await bridge.call('wm:search.products', {})).ok).toBe(false);
    });

    it('rejects bad names, duplicates and an already aborted signal, as the spec says', async () => {
      const mc = (document as any).modelContext;
      // The spec: a bad name is an InvalidStateError; a missing required member a TypeError.
      await expect(mc.registerTool(tool('has space'))).rejects.toMatchObject({ name: 'InvalidStateError' });
      await expect(mc.registerTool(tool('x'.repeat(129)))).rejects.toMatchObject({ name: 'InvalidStateError' });
      await expect(mc.registerTool({ name: 'nodesc', execute() {} })).rejects.toThrow(TypeError);
      await mc.registerTool(tool('dup'));
      await expect(mc.registerTool(tool('dup'))).rejects.toMatchObject({ name: 'InvalidStateError' });
      await expect(mc.registerTool(tool('early'), { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
      // Aborted right after the call, before it settled: rejected, and not registered.
      const controller = new AbortController();
      const p = mc.registerTool(tool('quick'), { signal: controller.signal });
      controller.abort(new Error('changed my mind'));
      await expect(p).rejects.toThrow('changed my mind');
      expect((await mc.getTools()).map((t: { name: string }) => t.name)).toEqual(['dup']);
    });

    it('supports the older navigator.modelContext API', async () => {
      const legacy = (navigator as any).modelContext;
      legacy.provideContext({ tools: [tool('a'), tool('b')] });
      const handle = legacy.registerTool(tool('c'));
      await Promise.resolve();
      const names = () => ((posted.at(-1) as any).list.groups[0]?.tools ?? []).map((t: { name: string }) => t.name);
      expect(names()).toEqual(['a', 'b', 'c']);
      legacy.provideContext({ tools: [tool('d')] });
      await Promise.resolve();
      expect(names()).toEqual(['c', 'd']);
      legacy.unregisterTool('d');
      handle.unregister();
      await Promise.resolve();
      expect(names()).toEqual([]);
      legacy.provideContext({ tools: [tool('e')] });
      legacy.clearContext();
      await Promise.resolve();
      expect(names()).toEqual([]);
    });

    it('gives execute a client with an abort signal, which a cancel message aborts', async () => {
      let signal: AbortSignal | undefined;
      await (document as any).modelContext.registerTool({
        name: 'slow',
        description: 'never ends unless cancelled',
        execute: (_input: unknown, client: { signal: AbortSignal }) => {
          signal = client.signal;
          return new Promise((_resolve, reject) => client.signal.addEventListener('abort', () => reject(new Error('cancelled by agent'))));
        },
      });
      window.dispatchEvent(new CustomEvent(TO_MAIN_EVENT, { detail: JSON.stringify({ type: 'call', callId: 's1', key: 'wm:slow', input: {} }) }));
      await vi.waitFor(() => expect(signal).toBeDefined());
      window.dispatchEvent(new CustomEvent(TO_MAIN_EVENT, { detail: JSON.stringify({ type: 'cancel', callId: 's1', reason: 'timeout' }) }));
      await vi.waitFor(() => expect(posted.find((m) => m.type === 'result')).toBeTruthy());
      expect(signal!.aborted).toBe(true);
      expect(posted.find((m) => m.type === 'result')).toEqual({ type: 'result', callId: 's1', result: { ok: false, error: 'cancelled by agent' } });
    });
  });
});

describe('serializeResult: the reference\'s JSON-safe rules', () => {
  it('marks circular references, class instances, functions; references DOM elements', () => {
    class Cart {
      items = [1];
    }
    const state: any = { name: 'state', cart: new Cart(), when: new Date(0), map: new Map([[1, 2]]), fn() {}, nothing: undefined };
    state.self = state;
    const el = document.createElement('div');
    el.id = 'total';
    el.className = 'price big';
    state.el = el;
    const result = serializeResult(state);
    expect(result.ok).toBe(true);
    expect(JSON.parse((result as { json: string }).json)).toEqual({
      name: 'state',
      cart: '<Cart instance>',
      when: '<Date instance>',
      map: '<Map instance>',
      fn: '<Function object>',
      self: '<Circular reference>',
      el: '<div#total.price.big> element',
    });
  });

  it('gives undefined as empty, and cuts a result that is too long with its size', () => {
    expect(serializeResult(undefined)).toEqual({ ok: true, json: '' });
    const big = serializeResult('x'.repeat(LIMITS.resultChars + 10));
    expect(big).toMatchObject({ ok: true, cut: { totalChars: LIMITS.resultChars + 12 } });
    expect((big as { json: string }).json).toHaveLength(LIMITS.resultChars);
  });
});

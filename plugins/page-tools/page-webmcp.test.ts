// @vitest-environment happy-dom
// A WebMCP runtime the page installs over ours (as MCP-B's does): read through its own API, treated
// as untrusted, with the time limits; and the originAgentCluster shim that lets such a runtime
// register in a document whose agent cluster is keyed by site (Firefox).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installMainWorldBridge, LIMITS, type MainWorldBridge } from '@/plugins/page-tools/main-world';
import { TO_ISOLATED_EVENT, type MainToIsolated, type WireGroup } from '@/plugins/page-tools/wire';

type Win = Window & typeof globalThis;
const win = window as unknown as Win;
const RUNTIME_GROUP = 'WebMCP (page runtime)';

/** A page-installed runtime like MCP-B's BrowserMcpServer: listTools() (sync), executeTool(tool, json), toolchange. */
class FakeRuntime extends EventTarget {
  tools: Array<Record<string, unknown>> = [];
  calls: Array<{ tool: any; json: string }> = [];
  answer: (name: string, args: any) => unknown = (name, args) => JSON.stringify({ content: [{ type: 'text', text: `${name}:${JSON.stringify(args)}` }] });
  listTools(): unknown {
    return this.tools.map(({ execute: _e, ...rest }) => rest);
  }
  async executeTool(tool: any, json: string): Promise<unknown> {
    this.calls.push({ tool, json });
    return this.answer(tool.name, JSON.parse(json));
  }
}

/** Puts `value` on document.modelContext as a page script would (replacing ours). */
function install(value: unknown): void {
  Object.defineProperty(document, 'modelContext', { configurable: true, enumerable: true, writable: false, value });
}

const runtimeGroup = (groups: WireGroup[]) => groups.find((g) => g.name === RUNTIME_GROUP);
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a WebMCP runtime the page installed itself', () => {
  let bridge: MainWorldBridge;
  let posted: MainToIsolated[];
  let errors: ReturnType<typeof vi.spyOn>;
  let ours: EventTarget & { registerTool: (tool: unknown) => Promise<void> };
  const onPosted = (e: Event) => posted.push(JSON.parse((e as CustomEvent).detail));

  beforeEach(() => {
    posted = [];
    window.addEventListener(TO_ISOLATED_EVENT, onPosted);
    errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
    bridge = installMainWorldBridge(win, { autoDiscover: false, declarative: false, pageRuntime: { listTimeoutMs: 50, callTimeoutMs: 80 } });
    ours = (document as any).modelContext;
  });

  afterEach(() => {
    bridge.dispose();
    window.removeEventListener(TO_ISOLATED_EVENT, onPosted);
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
    errors.mockRestore();
  });

  it('lists its tools (listTools) and runs one through its executeTool, with a descriptor its executeTool accepts', async () => {
    const runtime = new FakeRuntime();
    runtime.tools.push({
      name: 'add-to-cart',
      title: 'Add to cart',
      description: 'Adds a product to the cart.',
      inputSchema: { type: 'object', properties: { productId: { type: 'string' } }, required: ['productId'] },
      annotations: { readOnlyHint: false, destructiveHint: true },
    });
    install(runtime);
    const list = await bridge.discover('test');
    const group = runtimeGroup(list.groups)!;
    expect(group.source).toBe('webmcp');
    expect(group.tools).toEqual([{
      key: 'pw:add-to-cart',
      name: 'add-to-cart',
      title: 'Add to cart',
      description: 'Adds a product to the cart.',
      inputSchema: { type: 'object', properties: { productId: { type: 'string' } }, required: ['productId'] },
    }]);
    const result = await bridge.call('pw:add-to-cart', { productId: 'tea' }, 'c1');
    expect(result).toEqual({ ok: true, json: JSON.stringify({ content: [{ type: 'text', text: 'add-to-cart:{"productId":"tea"}' }] }) });
    expect(runtime.calls[0]!.json).toBe('{"productId":"tea"}');
    // MCP-B's executeTool wants the RegisteredTool shape getTools() gives: origin and window.
    expect(runtime.calls[0]!.tool).toMatchObject({ name: 'add-to-cart', origin: window.location.origin, window });
    // The page's own use is untouched: same object, its list as before.
    expect((document as any).modelContext).toBe(runtime);
    expect((runtime.listTools() as unknown[]).length).toBe(1);
  });

  it('reads a spec-shaped runtime through getTools() and hands executeTool the very descriptor it listed', async () => {
    const descriptor = { name: 'notes.list', title: '', description: 'Lists notes.', inputSchema: '{"type":"object","properties":{}}', origin: window.location.origin, window };
    const runtime = Object.assign(new EventTarget(), {
      getTools: async () => [descriptor],
      executeTool: vi.fn(async (_tool: unknown, _json: string) => '{"notes":["a"]}'),
    });
    install(runtime);
    const list = await bridge.discover('test');
    expect(runtimeGroup(list.groups)!.tools.map((t) => t.name)).toEqual(['notes.list']);
    expect(await bridge.call('pw:notes.list', {}, 'c1')).toEqual({ ok: true, json: '{"notes":["a"]}' });
    expect(runtime.executeTool.mock.calls[0]![0]).toBe(descriptor);
  });

  it('MCP failures, navigations and thrown errors are failed calls', async () => {
    const runtime = new FakeRuntime();
    runtime.tools.push({ name: 'fail', description: 'Fails.' }, { name: 'gone', description: 'Navigates.' }, { name: 'throw', description: 'Throws.' });
    runtime.answer = (name) => {
      if (name === 'fail') return JSON.stringify({ content: [{ type: 'text', text: 'Out of stock' }], isError: true });
      if (name === 'gone') return null;
      throw new DOMException('Tool not found: throw', 'UnknownError');
    };
    install(runtime);
    await bridge.discover('test');
    expect(await bridge.call('pw:fail', {}, 'a')).toEqual({ ok: false, error: 'Out of stock' });
    expect(await bridge.call('pw:gone', {}, 'b')).toEqual({ ok: false, error: 'The page navigated before the tool finished.' });
    expect(await bridge.call('pw:throw', {}, 'c')).toEqual({ ok: false, error: 'Tool not found: throw' });
  });

  it('skips the tools it mirrored into ours (one entry each), and a name ours has wins', async () => {
    await ours.registerTool({ name: 'shared', description: 'Ours.', execute: () => 'ours' });
    const runtime = new FakeRuntime();
    runtime.tools.push({ name: 'shared', description: 'The page runtime\'s.' }, { name: 'other', description: 'Only there.' });
    install(runtime);
    const list = await bridge.discover('test');
    expect(runtimeGroup(list.groups)!.tools.map((t) => t.name)).toEqual(['other']);
    const webmcp = list.groups.find((g) => g.name === 'WebMCP')!;
    expect(webmcp.tools.map((t) => t.name)).toEqual(['shared']);
    expect(await bridge.call('wm:shared', {}, 'x')).toEqual({ ok: true, json: '"ours"' });
  });

  it('follows its toolchange, posts the new list, and fires no toolchange on ours in answer (MCP-B would echo it)', async () => {
    const runtime = new FakeRuntime();
    runtime.tools.push({ name: 'first', description: 'First.' });
    install(runtime);
    await bridge.discover('test');
    let oursFired = 0;
    ours.addEventListener('toolchange', () => oursFired++);
    posted = [];
    runtime.tools.push({ name: 'second', description: 'Second.' });
    runtime.dispatchEvent(new Event('toolchange'));
    await tick(20);
    const last = posted.filter((m) => m.type === 'tools').at(-1) as Extract<MainToIsolated, { type: 'tools' }>;
    expect(runtimeGroup(last.list.groups)!.tools.map((t) => t.name)).toEqual(['first', 'second']);
    expect(oursFired).toBe(0);
    // An unchanged list after another toolchange posts nothing.
    posted = [];
    runtime.dispatchEvent(new Event('toolchange'));
    await tick(20);
    expect(posted).toEqual([]);
  });

  it('a tool it no longer lists, or a runtime the page removed, cannot be called', async () => {
    const runtime = new FakeRuntime();
    runtime.tools.push({ name: 'once', description: 'Once.' });
    install(runtime);
    await bridge.discover('test');
    install(ours);
    const result = await bridge.call('pw:once', {}, 'x');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/no longer offers this tool/);
    expect(runtime.calls).toEqual([]);
  });

  describe('a hostile runtime', () => {
    it('a modelContext getter that throws, and methods behind throwing getters, are ignored', async () => {
      Object.defineProperty(document, 'modelContext', { configurable: true, get: () => { throw new Error('no'); } });
      expect(runtimeGroup((await bridge.discover('test')).groups)).toBeUndefined();
      install(Object.defineProperty(new EventTarget(), 'listTools', { get: () => { throw new Error('no'); } }));
      expect(runtimeGroup((await bridge.discover('test')).groups)).toBeUndefined();
    });

    it('a listTools that throws, or never answers, is a problem and no tools', async () => {
      const throwing = Object.assign(new EventTarget(), { listTools: () => { throw new Error('boom'); }, executeTool: async () => '' });
      install(throwing);
      let list = await bridge.discover('test');
      expect(runtimeGroup(list.groups)).toBeUndefined();
      expect(list.problems.join('\n')).toMatch(/did not list its tools: boom/);
      install(Object.assign(new EventTarget(), { listTools: () => new Promise(() => undefined), executeTool: async () => '' }));
      list = await bridge.discover('test');
      expect(list.problems.join('\n')).toMatch(/did not list its tools within 50 ms/);
    });

    it('bad entries are dropped alone: names, descriptions, schemas, getters that throw, cycles', async () => {
      const cyclic: Record<string, unknown> = { type: 'object' };
      cyclic.self = cyclic;
      const runtime = new FakeRuntime();
      runtime.listTools = () => [
        null,
        { name: 'has space', description: 'x' },
        { name: 'x'.repeat(129), description: 'x' },
        { name: 'no_description', description: '   ' },
        { name: 'array_schema', description: 'x', inputSchema: { type: 'array' } },
        { name: 'huge_schema', description: 'x', inputSchema: { type: 'object', description: 'y'.repeat(LIMITS.schemaChars) } },
        { name: 'bad_json', description: 'x', inputSchema: '{nope' },
        { name: 'cycle', description: 'x', inputSchema: cyclic },
        Object.defineProperty({ description: 'x' }, 'name', { get: () => { throw new Error('trap'); } }),
        { name: 'long', description: 'd'.repeat(LIMITS.description + 100) },
        { name: 'good', description: 'Fine.', inputSchema: { type: 'object', properties: {} } },
      ];
      install(runtime);
      const list = await bridge.discover('test');
      const tools = runtimeGroup(list.groups)!.tools;
      expect(tools.map((t) => t.name)).toEqual(['long', 'good']);
      expect(tools[0]!.description.length).toBe(LIMITS.description);
      expect(list.problems.filter((p) => p.includes('left out'))).toHaveLength(9);
    });

    it('a huge list is cut to the page limit, with a problem', async () => {
      const runtime = new FakeRuntime();
      runtime.listTools = () => Array.from({ length: 5000 }, (_, i) => ({ name: `t${i}`, description: 'x' }));
      install(runtime);
      const list = await bridge.discover('test');
      expect(runtimeGroup(list.groups)!.tools).toHaveLength(LIMITS.toolsPerPage);
      expect(list.problems.join('\n')).toMatch(/listed 5000 tools; only the first 1024 were read/);
      expect(list.problems.join('\n')).toMatch(/more than 256 tools/);
    });

    it('an executeTool that never answers times out cleanly; Stop cancels it at once', async () => {
      const runtime = new FakeRuntime();
      runtime.tools.push({ name: 'hang', description: 'Never answers.' });
      runtime.executeTool = () => new Promise(() => undefined);
      install(runtime);
      await bridge.discover('test');
      const started = performance.now();
      const result = await bridge.call('pw:hang', {}, 'h1');
      expect(result).toEqual({ ok: false, error: 'The page\'s tool did not answer within 0.08 s and was given up.' });
      expect(performance.now() - started).toBeLessThan(1000);
      const pending = bridge.call('pw:hang', {}, 'h2');
      bridge.cancel('h2', 'Stopped by the user');
      expect(await pending).toEqual({ ok: false, error: 'Stopped by the user' });
    });

    it('a result too long is cut like any page result', async () => {
      const runtime = new FakeRuntime();
      runtime.tools.push({ name: 'big', description: 'Big.' });
      runtime.answer = () => JSON.stringify({ text: 'z'.repeat(LIMITS.resultChars * 2) });
      install(runtime);
      await bridge.discover('test');
      const result = await bridge.call('pw:big', {}, 'b');
      expect(result.ok && result.cut?.totalChars).toBeGreaterThan(LIMITS.resultChars);
    });
  });
});

describe('originAgentCluster while a page runtime is in place', () => {
  let bridge: MainWorldBridge | undefined;
  afterEach(() => {
    bridge?.dispose();
    delete (window as any).originAgentCluster;
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
  });

  it('reads true only while a page-installed runtime is on document.modelContext, in a site-keyed document', () => {
    // Firefox's answer without Origin-Agent-Cluster: ?1.
    Object.defineProperty(window, 'originAgentCluster', { configurable: true, enumerable: true, get: () => false });
    bridge = installMainWorldBridge(win, { autoDiscover: false, declarative: false });
    const ours = (document as any).modelContext;
    expect((window as any).originAgentCluster).toBe(false);
    const runtime = new FakeRuntime();
    install(runtime);
    expect((window as any).originAgentCluster).toBe(true);
    install(ours);
    expect((window as any).originAgentCluster).toBe(false);
  });

  it('leaves an origin-keyed document (Chromium) alone', () => {
    Object.defineProperty(window, 'originAgentCluster', { configurable: true, enumerable: true, get: () => true });
    const before = Object.getOwnPropertyDescriptor(window, 'originAgentCluster');
    bridge = installMainWorldBridge(win, { autoDiscover: false, declarative: false });
    expect(Object.getOwnPropertyDescriptor(window, 'originAgentCluster')).toEqual(before);
  });
});

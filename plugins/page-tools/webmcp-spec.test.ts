// @vitest-environment happy-dom
// WebMCP as specified now (webmachinelearning/webmcp index.bs): document.modelContext is an
// EventTarget with registerTool(tool, {signal, exposedTo}), ontoolchange/toolchange and Chrome's
// getTools(); the registration rules and errors in the spec's order; the older navigator API too.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorShaped, installMainWorldBridge, type MainWorldBridge } from '@/plugins/page-tools/main-world';
import { TO_ISOLATED_EVENT, type MainToIsolated } from '@/plugins/page-tools/wire';

type Win = Window & typeof globalThis;
const win = window as unknown as Win;

describe('WebMCP as the spec says now', () => {
  let bridge: MainWorldBridge;
  let posted: MainToIsolated[];
  const onPosted = (e: Event) => posted.push(JSON.parse((e as CustomEvent).detail));
  let errors: ReturnType<typeof vi.spyOn>;
  let mc: any;

  beforeEach(() => {
    posted = [];
    window.addEventListener(TO_ISOLATED_EVENT, onPosted);
    errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
    bridge = installMainWorldBridge(win, { autoDiscover: false });
    mc = (document as any).modelContext;
  });

  afterEach(() => {
    bridge.dispose();
    window.removeEventListener(TO_ISOLATED_EVENT, onPosted);
    errors.mockRestore();
  });

  const tool = (name: string, extra: object = {}) => ({ name, description: `Tool ${name}`, execute: async () => 'ok', ...extra });

  it('is an EventTarget: toolchange fires (listener and ontoolchange) before registerTool resolves, and again on abort', async () => {
    expect(mc).toBeInstanceOf(EventTarget);
    expect(Object.prototype.toString.call(mc)).toBe('[object ModelContext]');
    const order: string[] = [];
    mc.addEventListener('toolchange', () => order.push('listener'));
    mc.ontoolchange = () => order.push('handler');
    const controller = new AbortController();
    const p = mc.registerTool(tool('a'), { signal: controller.signal }).then(() => order.push('resolved'));
    order.push('sync');
    await p;
    expect(order).toEqual(['sync', 'listener', 'handler', 'resolved']);
    controller.abort();
    await new Promise((r) => setTimeout(r, 20));
    expect(order.slice(4)).toEqual(['listener', 'handler']);
    expect(await mc.getTools()).toEqual([]);
  });

  it('rejects in the spec\'s order: missing members (TypeError), a taken name, an empty name or description, a bad name (InvalidStateError)', async () => {
    await expect(mc.registerTool({ description: 'd', execute() {} })).rejects.toThrow(TypeError);
    await expect(mc.registerTool({ name: 'x', execute() {} })).rejects.toThrow(TypeError);
    await expect(mc.registerTool({ name: 'x', description: 'd' })).rejects.toThrow(TypeError);
    await expect(mc.registerTool('not a dictionary')).rejects.toThrow(TypeError);
    await mc.registerTool(tool('taken'));
    // A taken name is checked before the name's characters and the description.
    await expect(mc.registerTool({ name: 'taken', description: '', execute() {} })).rejects.toMatchObject({ name: 'InvalidStateError' });
    await expect(mc.registerTool(tool(''))).rejects.toMatchObject({ name: 'InvalidStateError' });
    await expect(mc.registerTool({ name: 'ok', description: '', execute() {} })).rejects.toMatchObject({ name: 'InvalidStateError' });
    for (const bad of ['has space', 'ü', 'a/b', 'x'.repeat(129)]) await expect(mc.registerTool(tool(bad))).rejects.toMatchObject({ name: 'InvalidStateError' });
    for (const good of ['a', 'a.b-c_D9', 'x'.repeat(128)]) await expect(mc.registerTool(tool(good))).resolves.toBeUndefined();
  });

  it('rejects a schema JSON cannot hold with the serializer\'s own error, and an aborted signal with its reason', async () => {
    const cyclic: any = { type: 'object' };
    cyclic.self = cyclic;
    await expect(mc.registerTool(tool('cyclic', { inputSchema: cyclic }))).rejects.toThrow(TypeError);
    await expect(mc.registerTool(tool('undef', { inputSchema: { toJSON: () => undefined } }))).rejects.toThrow(TypeError);
    await expect(mc.registerTool(tool('early'), { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
    await expect(mc.registerTool(tool('badsignal'), { signal: 'no' })).rejects.toThrow(TypeError);
  });

  it('validates exposedTo (a potentially trustworthy origin, else SecurityError) and accepts it', async () => {
    await expect(mc.registerTool(tool('e1'), { exposedTo: ['https://partner.example', 'http://localhost:3000', 'http://127.0.0.1:8080'] })).resolves.toBeUndefined();
    await expect(mc.registerTool(tool('e2'), { exposedTo: ['http://partner.example'] })).rejects.toMatchObject({ name: 'SecurityError' });
    await expect(mc.registerTool(tool('e3'), { exposedTo: ['not a url'] })).rejects.toMatchObject({ name: 'SecurityError' });
    await expect(mc.registerTool(tool('e4'), { exposedTo: 'https://a.example' })).rejects.toThrow(TypeError);
    expect((await mc.getTools()).map((t: { name: string }) => t.name)).toEqual(['e1']);
  });

  it('getTools lists the tools with title, annotations and the schema as a JSON string; title and hints reach the list as claims', async () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    await mc.registerTool(tool('search', { title: 'Search', inputSchema: schema, annotations: { readOnlyHint: true, untrustedContentHint: true } }));
    await mc.registerTool(tool('plain'));
    const tools = await mc.getTools();
    expect(tools).toEqual([
      { name: 'search', title: 'Search', description: 'Tool search', inputSchema: JSON.stringify(schema), annotations: { readOnlyHint: true, untrustedContentHint: true }, origin: location.origin },
      { name: 'plain', description: 'Tool plain', inputSchema: '', annotations: { readOnlyHint: false, untrustedContentHint: false }, origin: location.origin },
    ]);
    const list = (posted.at(-1) as Extract<MainToIsolated, { type: 'tools' }>).list;
    expect(list.groups[0]!.tools[0]).toMatchObject({ name: 'search', title: 'Search', annotations: { readOnlyHint: true, untrustedContentHint: true } });
  });

  it('keeps the older navigator.modelContext working beside it, on the same tools', async () => {
    const legacy = (navigator as any).modelContext;
    legacy.provideContext({ tools: [tool('old')] });
    expect(() => legacy.registerTool(tool('old'))).toThrow(/already registered/);
    expect((await mc.getTools()).map((t: { name: string }) => t.name)).toEqual(['old']);
    legacy.clearContext();
    expect(await mc.getTools()).toEqual([]);
    // provideContext, clearContext and unregisterTool are not on document.modelContext any more.
    expect(mc.provideContext).toBeUndefined();
    expect(mc.clearContext).toBeUndefined();
    expect(mc.unregisterTool).toBeUndefined();
  });

  it('a result shaped {error: …} is a failure; {error: null} and class instances are results', async () => {
    expect(errorShaped({ error: 'No fiber found' })).toBe('No fiber found');
    expect(errorShaped({ error: { message: 'boom' } })).toBe('boom');
    expect(errorShaped({ error: null, data: 1 })).toBeUndefined();
    expect(errorShaped({ ok: true })).toBeUndefined();
    expect(errorShaped(new (class { error = 'x'; })())).toBeUndefined();
    await mc.registerTool(tool('fails', { execute: async () => ({ error: 'Renderer not found' }) }));
    expect(await bridge.call('wm:fails', {})).toEqual({ ok: false, error: 'Renderer not found' });
  });

  it('hands execute the real element for an x-mcp-type HTMLElement parameter, and returns elements as references', async () => {
    document.body.innerHTML = '<button id="go">Go</button>';
    let received: unknown;
    await mc.registerTool(tool('pick', {
      inputSchema: { type: 'object', properties: { target: { type: 'object', 'x-mcp-type': 'HTMLElement' } }, required: ['target'] },
      execute: async ({ target }: { target: Element }) => {
        received = target;
        return { same: target };
      },
    }));
    const bySelector = await bridge.call('wm:pick', { target: '#go' });
    expect(received).toBe(document.getElementById('go'));
    expect(bySelector.ok).toBe(true);
    const ref = JSON.parse((bySelector as { json: string }).json).same.ref as string;
    received = undefined;
    expect((await bridge.call('wm:pick', { target: ref })).ok).toBe(true);
    expect(received).toBe(document.getElementById('go'));
    document.getElementById('go')!.remove();
    expect(await bridge.call('wm:pick', { target: ref })).toEqual({ ok: false, error: expect.stringMatching(/is stale/) });
  });
});

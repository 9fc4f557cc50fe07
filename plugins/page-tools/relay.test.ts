// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installMainWorldBridge, type MainWorldBridge } from '@/plugins/page-tools/main-world';
import { startRelay, type RelayPort, type RelayRuntime } from '@/plugins/page-tools/relay';
import { PAGE_TOOLS_PORT, REFRESH_MESSAGE } from '@/plugins/page-tools/wire';

type Win = Window & typeof globalThis;

/** A runtime whose ports record what the relay sends, and let the test play the background. */
function fakeRuntime() {
  const ports: Array<RelayPort & { sent: any[]; receive(message: any): void; drop(): void; name: string }> = [];
  let onRuntimeMessage: ((message: any, sender: unknown) => Promise<unknown> | undefined) | undefined;
  const runtime: RelayRuntime = {
    connect({ name }) {
      const messageListeners: Array<(m: any) => void> = [];
      const disconnectListeners: Array<() => void> = [];
      const port = {
        name,
        sent: [] as any[],
        postMessage(message: unknown) {
          port.sent.push(JSON.parse(JSON.stringify(message)));
        },
        disconnect() {},
        onMessage: { addListener: (fn: (m: any) => void) => messageListeners.push(fn) },
        onDisconnect: { addListener: (fn: () => void) => disconnectListeners.push(fn) },
        receive: (message: any) => messageListeners.forEach((fn) => fn(message)),
        drop: () => disconnectListeners.forEach((fn) => fn()),
      };
      ports.push(port);
      return port;
    },
    onMessage: { addListener: (fn) => (onRuntimeMessage = fn) },
  };
  return { runtime, ports, ask: (message: any) => onRuntimeMessage!(message, {}) };
}

describe('the isolated relay', () => {
  let bridge: MainWorldBridge;
  let relay: { dispose(): void };
  let fake: ReturnType<typeof fakeRuntime>;
  const listeners: Array<(e: any) => void> = [];
  const listen = (fn: (e: any) => void) => {
    listeners.push(fn);
    window.addEventListener('devtoolstooldiscovery', fn);
  };

  beforeEach(() => {
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
    fake = fakeRuntime();
    bridge = installMainWorldBridge(window as unknown as Win, { autoDiscover: false });
    relay = startRelay(window, fake.runtime);
  });

  afterEach(() => {
    relay.dispose();
    bridge.dispose();
    for (const l of listeners.splice(0)) window.removeEventListener('devtoolstooldiscovery', l);
  });

  it('opens no port for a page without tools, and answers a refresh with an empty list', async () => {
    await bridge.discover('page loaded');
    expect(fake.ports).toHaveLength(0);
    const list = (await fake.ask({ type: REFRESH_MESSAGE, reason: 'user refresh' })) as any;
    expect(list.groups).toEqual([]);
    expect(fake.ports).toHaveLength(0);
    expect(fake.ask({ type: 'something else' })).toBeUndefined();
  });

  it('opens the port once tools appear, relays the list (never the functions), and carries calls both ways', async () => {
    listen((e) => e.respondWith({ name: 'G', description: '', tools: [{ name: 'add', description: 'sum', inputSchema: {}, execute: ({ a, b }: any) => a + b }] }));
    const list = (await fake.ask({ type: REFRESH_MESSAGE, reason: 'user refresh' })) as any;
    expect(list.groups[0].tools[0].name).toBe('add');
    expect(fake.ports).toHaveLength(1);
    const port = fake.ports[0]!;
    expect(port.name).toBe(PAGE_TOOLS_PORT);
    const tools = port.sent.find((m) => m.type === 'tools');
    expect(tools).toMatchObject({ type: 'tools', url: location.href });
    expect(JSON.stringify(tools)).not.toContain('a + b');

    port.receive({ type: 'call', callId: '7', key: list.groups[0].tools[0].key, input: { a: 40, b: 2 } });
    await vi.waitFor(() => expect(port.sent.find((m) => m.type === 'result')).toEqual({ type: 'result', callId: '7', result: { ok: true, json: '42' } }));
  });

  it('reconnects when the background asks again after its port dropped (a restarted worker)', async () => {
    listen((e) => e.respondWith({ name: 'G', tools: [{ name: 't', description: 'd', inputSchema: {}, execute: () => 1 }] }));
    await fake.ask({ type: REFRESH_MESSAGE, reason: 'load' });
    fake.ports[0]!.drop();
    await fake.ask({ type: REFRESH_MESSAGE, reason: 'extension started' });
    expect(fake.ports).toHaveLength(2);
    expect(fake.ports[1]!.sent.some((m) => m.type === 'tools')).toBe(true);
  });

  it('ignores forged or malformed events from the page', async () => {
    window.dispatchEvent(new CustomEvent('sidequest:page-tools:to-isolated', { detail: JSON.stringify({ type: 'tools', list: { nope: true } }) }));
    window.dispatchEvent(new CustomEvent('sidequest:page-tools:to-isolated', { detail: '{bad json' }));
    window.dispatchEvent(new CustomEvent('sidequest:page-tools:to-isolated', { detail: JSON.stringify({ type: 'result', callId: 1, result: {} }) }));
    expect(fake.ports).toHaveLength(0);
  });
});

describe('discovery after navigation', () => {
  it('asks again after an SPA route change (pushState, popstate)', async () => {
    const posted: any[] = [];
    const onPosted = (e: Event) => posted.push(JSON.parse((e as CustomEvent).detail));
    window.addEventListener('sidequest:page-tools:to-isolated', onPosted);
    const bridge = installMainWorldBridge(window as unknown as Win, { webmcp: false });
    try {
      await vi.waitFor(() => expect(posted.some((m) => m.list?.reason === 'page loaded')).toBe(true));
      history.pushState({}, '', '/next-route');
      await vi.waitFor(() => expect(posted.some((m) => m.list?.reason === 'route change')).toBe(true));
      posted.length = 0;
      window.dispatchEvent(new PopStateEvent('popstate'));
      await vi.waitFor(() => expect(posted.some((m) => m.list?.reason === 'route change')).toBe(true));
    } finally {
      bridge.dispose();
      window.removeEventListener('sidequest:page-tools:to-isolated', onPosted);
    }
  });
});

describe('the relay as a trust boundary', () => {
  let fake: ReturnType<typeof fakeRuntime>;
  let relay: { dispose(): void };
  beforeEach(() => {
    fake = fakeRuntime();
    relay = startRelay(window, fake.runtime);
  });
  afterEach(() => relay.dispose());

  it('a page forging its events cannot push an oversized or unchecked list past the relay', async () => {
    const forge = (detail: string) => window.dispatchEvent(new CustomEvent('sidequest:page-tools:to-isolated', { detail }));
    const tools = Array.from({ length: 20_000 }, (_, i) => ({ key: `k${i}`, name: `t${i}\n[System]`, description: 'd', inputSchema: { type: 'object' } }));
    // Over 4 MB: dropped unread, no port opened.
    forge(JSON.stringify({ type: 'tools', list: { groups: [{ name: 'G', description: 'x'.repeat(4_100_000), source: 'devtools', tools: tools.slice(0, 1) }], problems: [], reason: 'forged', discoveryMs: 0 } }));
    expect(fake.ports).toHaveLength(0);
    // 20 000 tools: cleaned to 256, one-line names, before anything crosses.
    forge(JSON.stringify({ type: 'tools', list: { groups: [{ name: 'G', description: '', source: 'devtools', tools }], problems: [], reason: 'forged', discoveryMs: 0 } }));
    const sent = fake.ports[0]!.sent.at(-1);
    expect(sent.type).toBe('tools');
    expect(sent.list.groups[0].tools).toHaveLength(256);
    expect(sent.list.groups[0].tools[0].name).toBe('t0 (System)');
    expect(sent.list.problems[0]).toMatch(/19744 more tools were dropped/);
  });
});

// @vitest-environment happy-dom
// Same-origin child frames: the top frame's bridge asks each child's bridge during discovery and
// routes calls to it; cross-origin children and malformed answers are left out. happy-dom has no
// real frames, so the children here are stand-ins with the shape a child window has.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BRIDGE_KEY, installMainWorldBridge, type MainWorldBridge } from '@/plugins/page-tools/main-world';
import type { WireToolList } from '@/plugins/page-tools/wire';

type Win = Window & typeof globalThis;
const win = window as unknown as Win;

function child(origin: string, path: string, bridge: Partial<MainWorldBridge> | undefined) {
  return { location: { origin, href: `${origin}${path}` }, ...(bridge ? { [BRIDGE_KEY]: bridge } : {}) };
}

const childList: WireToolList = {
  groups: [{ name: 'WebMCP', description: 'd', source: 'webmcp', tools: [{ key: 'wm:echo', name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } }] }],
  problems: ['one tool was dropped'],
  reason: 'parent frame asked',
  discoveryMs: 1,
};

describe('same-origin frames', () => {
  let bridge: MainWorldBridge;
  let errors: ReturnType<typeof vi.spyOn>;
  const calls: Array<{ key: string; input: unknown }> = [];

  beforeEach(() => {
    errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    delete (document as any).modelContext;
    delete (navigator as any).modelContext;
    const frames = {
      length: 4,
      0: child(location.origin, '/child.html', {
        discover: async () => childList,
        call: async (key: string, input: Record<string, unknown>) => {
          calls.push({ key, input });
          return { ok: true as const, json: '"from the child"' };
        },
        cancel: () => undefined,
      }),
      1: child('https://other.example', '/ad.html', { discover: async () => childList }),
      2: child(location.origin, '/nonsense.html', { discover: async () => ({ groups: 'nope' }) as unknown as WireToolList }),
      3: child(location.origin, '/plain.html', undefined),
    };
    Object.defineProperty(window, 'frames', { value: frames, configurable: true });
    bridge = installMainWorldBridge(win, { autoDiscover: false });
  });

  afterEach(() => {
    bridge.dispose();
    delete (window as any).frames;
    errors.mockRestore();
  });

  it('takes the tools of same-origin children only, marked with the frame, and routes calls to the right child', async () => {
    const list = await bridge.discover('test');
    expect(list.groups).toEqual([
      expect.objectContaining({ name: 'WebMCP', frame: `${location.origin}/child.html`, tools: [expect.objectContaining({ key: 'fr1|wm:echo', name: 'echo' })] }),
    ]);
    expect(list.problems).toEqual([`In a frame (${location.origin}/child.html): one tool was dropped`]);
    expect(await bridge.call('fr1|wm:echo', { text: 'hi' })).toEqual({ ok: true, json: '"from the child"' });
    expect(calls).toEqual([{ key: 'wm:echo', input: { text: 'hi' } }]);
    // An id no child has, or a child now showing another site: a clear error, never another frame.
    expect((await bridge.call('fr9|wm:echo', {})).ok).toBe(false);
    (window.frames as any)[0].location.origin = 'https://elsewhere.example';
    expect(await bridge.call('fr1|wm:echo', {})).toEqual({ ok: false, error: expect.stringMatching(/frame that offered this tool is gone or now shows another site/) });
  });

  it('puts its own bridge on the window for a same-origin parent to find', () => {
    expect((window as any)[BRIDGE_KEY]).toBe(bridge);
  });
});

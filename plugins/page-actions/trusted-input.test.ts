import { describe, expect, it, vi } from 'vitest';
import { cdpCommands, keyCommands, modifierMask } from './cdp-input';
import { createTrustedInput, IDLE_DETACH_MS, type DebuggerPort, type Sender } from './trusted-input';

/** The debugger boundary, faked: what was attached, detached and sent, and the tab's address. */
function fakePort(overrides: Partial<DebuggerPort> = {}) {
  const sent: Array<{ tabId: number; method: string; params: Record<string, unknown> }> = [];
  const attached: number[] = [];
  const detached: number[] = [];
  let detachListener: ((tabId: number, reason: string) => void) | undefined;
  const urls = new Map<number, string>([[7, 'https://shop.example/cart']]);
  const port: DebuggerPort = {
    granted: async () => true,
    attach: async (tabId) => void attached.push(tabId),
    detach: async (tabId) => void detached.push(tabId),
    send: async (tabId, method, params) => void sent.push({ tabId, method, params }),
    onDetach: (listener) => {
      detachListener = listener;
      return () => undefined;
    },
    tabUrl: async (tabId) => urls.get(tabId),
    ...overrides,
  };
  return { port, sent, attached, detached, urls, chromeDetached: (tabId: number, reason: string) => detachListener?.(tabId, reason) };
}

const AGENT: Sender = { id: 'ext', frameId: 0, url: 'https://shop.example/cart', tab: { id: 7 } };

function setup(overrides: Partial<DebuggerPort> = {}, enabled = true) {
  const fake = fakePort(overrides);
  const trusted = createTrustedInput({ port: fake.port, enabled: async () => enabled, runtimeId: 'ext', supported: true });
  return { ...fake, trusted };
}

describe('trusted input: the CDP commands', () => {
  it('a click is a move to the point, then press and release there, in CSS pixels', () => {
    expect(cdpCommands({ kind: 'click', x: 120.456, y: 80, button: 'left' })).toEqual([
      { method: 'Input.dispatchMouseEvent', params: { type: 'mouseMoved', x: 120.46, y: 80, modifiers: 0, button: 'none', buttons: 0 } },
      { method: 'Input.dispatchMouseEvent', params: { type: 'mousePressed', x: 120.46, y: 80, modifiers: 0, button: 'left', buttons: 1, clickCount: 1 } },
      { method: 'Input.dispatchMouseEvent', params: { type: 'mouseReleased', x: 120.46, y: 80, modifiers: 0, button: 'left', buttons: 0, clickCount: 1 } },
    ]);
  });

  it('a double click counts 1 then 2; a right click with Control and Shift held carries their bits', () => {
    const double = cdpCommands({ kind: 'click', x: 5, y: 6, clicks: 2 });
    expect(double.map((c) => `${c.params.type}:${c.params.clickCount ?? ''}`)).toEqual(['mouseMoved:', 'mousePressed:1', 'mouseReleased:1', 'mousePressed:2', 'mouseReleased:2']);
    const right = cdpCommands({ kind: 'click', x: 5, y: 6, button: 'right', modifiers: ['Control', 'Shift'] });
    expect(right[1]!.params).toMatchObject({ button: 'right', buttons: 2, modifiers: 2 | 8 });
    expect(modifierMask(['Alt', 'Meta'])).toBe(1 | 4);
    expect(() => modifierMask(['Hyper'])).toThrow(/not a modifier/);
  });

  it('a hover is one move; a drag presses at the first point, moves with the button held, releases at the last', () => {
    expect(cdpCommands({ kind: 'hover', x: 1, y: 2 })).toEqual([{ method: 'Input.dispatchMouseEvent', params: { type: 'mouseMoved', x: 1, y: 2, button: 'none', buttons: 0 } }]);
    const drag = cdpCommands({ kind: 'drag', path: [{ x: 10, y: 10 }, { x: 20, y: 10 }, { x: 30, y: 12 }] });
    expect(drag.map((c) => [c.params.type, c.params.x, c.params.buttons])).toEqual([
      ['mouseMoved', 10, 0],
      ['mousePressed', 10, 1],
      ['mouseMoved', 20, 1],
      ['mouseMoved', 30, 1],
      ['mouseReleased', 30, 0],
    ]);
    expect(() => cdpCommands({ kind: 'drag', path: [{ x: 1, y: 1 }] })).toThrow(/2 to 64 points/);
  });

  it('refuses points that are not numbers of a viewport', () => {
    expect(() => cdpCommands({ kind: 'click', x: Number.NaN, y: 1 })).toThrow(/not a point/);
    expect(() => cdpCommands({ kind: 'hover', x: 1e9, y: 1 })).toThrow(/not a point/);
    expect(() => cdpCommands({ kind: 'click', x: '5' as unknown as number, y: 1 })).toThrow(/not a point/);
    expect(() => cdpCommands({ kind: 'evaluate' } as never)).toThrow(/unknown command/);
  });

  it('Enter types "\\r" with its key down; a letter types itself; Tab and arrows are raw key downs', () => {
    const enter = keyCommands('Enter');
    expect(enter).toEqual([
      { method: 'Input.dispatchKeyEvent', params: { type: 'keyDown', modifiers: 0, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13, text: '\r', unmodifiedText: '\r' } },
      { method: 'Input.dispatchKeyEvent', params: { type: 'keyUp', modifiers: 0, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13 } },
    ]);
    expect(keyCommands('a')[0]!.params).toMatchObject({ type: 'keyDown', key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, text: 'a' });
    expect(keyCommands('ArrowDown')[0]!.params).toMatchObject({ type: 'rawKeyDown', key: 'ArrowDown', code: 'ArrowDown', windowsVirtualKeyCode: 40 });
    expect(keyCommands('Tab')[0]!.params).not.toHaveProperty('text');
  });

  it('modifiers go down first and up last, each event carrying what is held; a shortcut types nothing', () => {
    const events = keyCommands('Control+Shift+a').map((c) => [c.params.type, c.params.key, c.params.modifiers, c.params.text]);
    expect(events).toEqual([
      ['rawKeyDown', 'Control', 2, undefined],
      ['rawKeyDown', 'Shift', 10, undefined],
      ['rawKeyDown', 'A', 10, undefined],
      ['keyUp', 'A', 10, undefined],
      ['keyUp', 'Shift', 2, undefined],
      ['keyUp', 'Control', 0, undefined],
    ]);
    expect(keyCommands('Shift+a')[1]!.params).toMatchObject({ type: 'keyDown', key: 'A', text: 'A', modifiers: 8 });
    expect(() => keyCommands('Hyper+x')).toThrow(/not a modifier/);
    expect(() => keyCommands('\u0007')).toThrow(/control character/);
  });

  it('text is Input.insertText; empty text sends nothing', () => {
    expect(cdpCommands({ kind: 'text', text: 'héllo 👋' })).toEqual([{ method: 'Input.insertText', params: { text: 'héllo 👋' } }]);
    expect(cdpCommands({ kind: 'text', text: '' })).toEqual([]);
    expect(() => cdpCommands({ kind: 'text', text: 'x'.repeat(100_001) })).toThrow(/too long/);
  });
});

describe('trusted input: attaching, the window, and who may ask', () => {
  it('off: nothing is attached and the action goes on with synthetic events, without a word', async () => {
    const { trusted, attached } = setup({}, false);
    expect(await trusted.begin(7, 'https://shop.example/cart')).toEqual({ trusted: false });
    expect(attached).toEqual([]);
  });

  it('on: attaches once per tab, delivers only during the action, only Input.* commands', async () => {
    const { trusted, attached, sent } = setup();
    expect(await trusted.begin(7, 'https://shop.example/cart')).toEqual({ trusted: true });
    await trusted.deliver(AGENT, { kind: 'click', x: 10, y: 20 });
    trusted.end(7);
    expect(await trusted.begin(7, 'https://shop.example/cart')).toEqual({ trusted: true });
    await trusted.deliver(AGENT, { kind: 'key', key: 'Enter' });
    trusted.end(7);
    expect(attached).toEqual([7]);
    expect(sent.every((c) => c.tabId === 7 && /^Input\.(dispatchMouseEvent|dispatchKeyEvent|insertText)$/.test(c.method))).toBe(true);
    expect(sent).toHaveLength(5);
    // After the action: refused, nothing sent.
    await expect(trusted.deliver(AGENT, { kind: 'click', x: 1, y: 1 })).rejects.toThrow(/No approved action/);
    expect(sent).toHaveLength(5);
  });

  it('refuses another tab, a frame, another extension, and a page of another site than the approved one', async () => {
    const { trusted, sent } = setup();
    await trusted.begin(7, 'https://shop.example/cart');
    await expect(trusted.deliver({ ...AGENT, tab: { id: 8 } }, { kind: 'click', x: 1, y: 1 })).rejects.toThrow(/No approved action/);
    await expect(trusted.deliver({ ...AGENT, frameId: 3 }, { kind: 'click', x: 1, y: 1 })).rejects.toThrow(/page agent/);
    await expect(trusted.deliver({ ...AGENT, id: 'other' }, { kind: 'click', x: 1, y: 1 })).rejects.toThrow(/page agent/);
    await expect(trusted.deliver({ ...AGENT, url: 'https://evil.example/' }, { kind: 'click', x: 1, y: 1 })).rejects.toThrow(/not the page the action was approved for/);
    expect(sent).toEqual([]);
  });

  it('checks the tab still shows the approved site right before each command', async () => {
    const { trusted, sent, urls } = setup();
    await trusted.begin(7, 'https://shop.example/cart');
    urls.set(7, 'https://bank.example/transfer');
    await expect(trusted.deliver(AGENT, { kind: 'click', x: 1, y: 1 })).rejects.toThrow(/left the site/);
    expect(sent).toEqual([]);
    // A same-site address is fine (a hash, another path).
    urls.set(7, 'https://shop.example/checkout#pay');
    await trusted.deliver(AGENT, { kind: 'hover', x: 1, y: 1 });
    expect(sent).toHaveLength(1);
  });

  it('a failed attach (another debugger) falls back to synthetic events and says so; a missing permission too', async () => {
    const busy = setup({ attach: async () => Promise.reject(new Error('Another debugger is already attached to the tab with id: 7.')) });
    const delivery = await busy.trusted.begin(7, 'https://shop.example/');
    expect(delivery.trusted).toBe(false);
    expect(delivery.note).toMatch(/did not let the extension attach its debugger.*Another debugger.*synthetic events were used/);
    const missing = setup({ granted: async () => false });
    expect((await missing.trusted.begin(7, 'https://shop.example/')).note).toMatch(/does not have Chrome's "debugger" permission.*synthetic/);
    expect(missing.attached).toEqual([]);
  });

  it('detaches on release (run end, take-over, tab closed), after an idle time, and never re-attaches a tab whose bar the user closed until its run ends', async () => {
    vi.useFakeTimers();
    try {
      const { trusted, attached, detached, chromeDetached } = setup();
      await trusted.begin(7, 'https://shop.example/');
      trusted.end(7);
      await trusted.release(7);
      expect(detached).toEqual([7]);
      expect(trusted.attachedTabs).toBe(0);
      await trusted.begin(7, 'https://shop.example/');
      trusted.end(7);
      await vi.advanceTimersByTimeAsync(IDLE_DETACH_MS + 10);
      expect(detached).toEqual([7, 7]);
      await trusted.begin(7, 'https://shop.example/');
      chromeDetached(7, 'canceled_by_user');
      await expect(trusted.deliver(AGENT, { kind: 'click', x: 1, y: 1 })).rejects.toThrow(/no longer attached/);
      trusted.end(7);
      expect((await trusted.begin(7, 'https://shop.example/')).note).toMatch(/closed Chrome's debugging bar/);
      await trusted.release(7, { runEnded: true });
      expect((await trusted.begin(7, 'https://shop.example/')).trusted).toBe(true);
      expect(attached).toEqual([7, 7, 7, 7]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a release during the action (Stop) refuses what the page agent still asks for', async () => {
    const { trusted, sent } = setup();
    await trusted.begin(7, 'https://shop.example/');
    await trusted.release(7, { runEnded: true });
    await expect(trusted.deliver(AGENT, { kind: 'key', key: 'Enter' })).rejects.toThrow(/No approved action|no longer attached/);
    expect(sent).toEqual([]);
  });

  it('Firefox: never used', async () => {
    const fake = fakePort();
    const trusted = createTrustedInput({ port: fake.port, enabled: async () => true, runtimeId: 'ext', supported: false });
    expect(await trusted.begin(7, 'https://shop.example/')).toEqual({ trusted: false });
    expect(fake.attached).toEqual([]);
  });
});

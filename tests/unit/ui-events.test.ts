import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';

/** A port the test drops at will, as Chrome does when it stops the worker. */
interface FakePort {
  drop(): void;
  send(message: unknown): void;
}

let ports: FakePort[];

beforeEach(() => {
  vi.useFakeTimers();
  vi.resetModules();
  ports = [];
  vi.spyOn(fakeBrowser.runtime, 'connect').mockImplementation(() => {
    const onDisconnect: Array<() => void> = [];
    const onMessage: Array<(message: unknown) => void> = [];
    ports.push({ drop: () => onDisconnect.forEach((fn) => fn()), send: (message) => onMessage.forEach((fn) => fn(message)) });
    return {
      onDisconnect: { addListener: (fn: () => void) => onDisconnect.push(fn) },
      onMessage: { addListener: (fn: (message: unknown) => void) => onMessage.push(fn) },
      disconnect: () => undefined,
    } as unknown as ReturnType<typeof fakeBrowser.runtime.connect>;
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** How long after a drop the page connects again (ms), stepping the clock 10 ms at a time. */
async function reconnectDelay(): Promise<number> {
  const before = ports.length;
  ports.at(-1)!.drop();
  for (let waited = 0; waited <= 10_000; waited += 10) {
    if (ports.length > before) return waited;
    await vi.advanceTimersByTimeAsync(10);
  }
  throw new Error('The page never connected again.');
}

describe('the pages’ events port (core/ui/events.ts)', () => {
  it('reconnects 200 ms after a working connection drops, however many idle stops came before', async () => {
    const { subscribe } = await import('@/core/ui/events');
    const reloads = vi.fn();
    subscribe(() => undefined, reloads);
    expect(ports).toHaveLength(1);
    // Chrome stops an idle worker every 30 s: nothing came over the port in between.
    for (let stop = 0; stop < 6; stop++) {
      await vi.advanceTimersByTimeAsync(30_000);
      expect(await reconnectDelay()).toBe(200);
    }
    expect(reloads).toHaveBeenCalledTimes(6);
  });

  it('backs off while connections drop at once (a background that fails at start), and waits the least again after one that worked', async () => {
    const { subscribe } = await import('@/core/ui/events');
    subscribe(() => undefined);
    const delays = [];
    for (let i = 0; i < 6; i++) delays.push(await reconnectDelay());
    expect(delays).toEqual([200, 400, 800, 1600, 3200, 5000]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await reconnectDelay()).toBe(200);
  });

  it('waits the least again once an event came over the port', async () => {
    const { subscribe } = await import('@/core/ui/events');
    const events: unknown[] = [];
    subscribe((event) => events.push(event));
    expect(await reconnectDelay()).toBe(200);
    expect(await reconnectDelay()).toBe(400);
    ports.at(-1)!.send({ type: 'conversation-deleted', id: 'c1' });
    expect(events).toHaveLength(1);
    expect(await reconnectDelay()).toBe(200);
  });
});

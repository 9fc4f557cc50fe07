// Streamed text reaches the pages as at most one `delta` event per conversation per frame
// (core/background/delta-coalescer.ts, used by the EventHub): joined, never dropped or reordered,
// sent before any other event of its conversation. A fake clock drives the timers.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { DeltaCoalescer, type CoalescerClock, type DeltaEvent, DELTA_INTERVAL_MS } from '@/core/background/delta-coalescer';
import { EventHub } from '@/core/background/events';
import { EVENTS_PORT, type UiEvent } from '@/core/messaging/protocol';
import type { AssistantMessage } from '@/core/storage/db';

const INTERVAL = 16;

/** A clock whose time moves only when told; timers run in time order. */
function fakeClock() {
  let time = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock: CoalescerClock = {
    now: () => time,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { at: time + Math.max(0, ms), fn });
      return id;
    },
    clearTimeout: (id) => void timers.delete(id as number),
  };
  /** Moves time to `to`, running the timers due on the way. */
  const advance = (to: number) => {
    for (;;) {
      const due = [...timers].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      timers.delete(due[0]);
      time = Math.max(time, due[1].at);
      due[1].fn();
    }
    time = Math.max(time, to);
  };
  return { clock, advance, pending: () => timers.size };
}

const delta = (conversationId: string, messageId: string, text: string, offset: number): DeltaEvent => ({ type: 'delta', conversationId, messageId, text, offset });

/** Cuts a text into pieces of 1–9 characters (deterministic). */
function pieces(text: string, seed = 1): string[] {
  const out: string[] = [];
  let s = seed;
  for (let i = 0; i < text.length; ) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const n = 1 + (s % 9);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const TEXT = 'The sidebar agent reads each page and answers with short clear notes. '.repeat(20);

/** Applies deltas as the chat store does: by offset, no gap, no repeat. */
function applyAll(events: DeltaEvent[], start = ''): string {
  let text = start;
  for (const e of events) {
    if (text.length < e.offset || text.length >= e.offset + e.text.length) continue;
    text += e.text.slice(text.length - e.offset);
  }
  return text;
}

describe('DeltaCoalescer', () => {
  it('sends a piece at once after a quiet interval, then at most one event per interval, the text whole and in order', () => {
    const { clock, advance } = fakeClock();
    const sent: Array<DeltaEvent & { at: number }> = [];
    const coalescer = new DeltaCoalescer((e) => sent.push({ ...e, at: clock.now() }), INTERVAL, clock);
    const parts = pieces(TEXT);
    let offset = 0;
    for (const [i, part] of parts.entries()) {
      advance(i * 2); // a piece every 2 ms: ~500 a second
      coalescer.push(delta('a', 'm', part, offset));
      offset += part.length;
      if (i === 0) expect(sent).toHaveLength(1); // the first piece did not wait
    }
    advance(parts.length * 2 + INTERVAL);
    expect(coalescer.waitingCount).toBe(0);
    // ~16 times fewer events than pieces.
    expect(sent.length).toBeLessThanOrEqual(Math.ceil((parts.length * 2) / INTERVAL) + 2);
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL);
    // Contiguous: each event starts where the one before ended.
    let at = 0;
    for (const e of sent) {
      expect(e.offset).toBe(at);
      at += e.text.length;
    }
    expect(sent.map((e) => e.text).join('')).toBe(TEXT);
    // No piece waited longer than an interval.
    expect(sent.every((e, i) => i === 0 || e.at - sent[i - 1]!.at <= INTERVAL)).toBe(true);
  });

  it('keeps a slow stream as it is: pieces farther apart than the interval go at once', () => {
    const { clock, advance } = fakeClock();
    const sent: DeltaEvent[] = [];
    const coalescer = new DeltaCoalescer((e) => sent.push(e), INTERVAL, clock);
    advance(0);
    coalescer.push(delta('a', 'm', 'one ', 0));
    advance(40);
    coalescer.push(delta('a', 'm', 'two', 4));
    expect(sent.map((e) => e.text)).toEqual(['one ', 'two']);
  });

  it('sends what waits first when a piece does not continue it (another message, a gap)', () => {
    const { clock, advance } = fakeClock();
    const sent: DeltaEvent[] = [];
    const coalescer = new DeltaCoalescer((e) => sent.push(e), INTERVAL, clock);
    coalescer.push(delta('a', 'm1', 'Hel', 0)); // at once
    coalescer.push(delta('a', 'm1', 'lo', 3)); // waits
    coalescer.push(delta('a', 'm2', 'Next', 0)); // another message: 'lo' goes first
    expect(sent.map((e) => [e.messageId, e.text, e.offset])).toEqual([['m1', 'Hel', 0], ['m1', 'lo', 3]]);
    advance(INTERVAL);
    expect(sent.at(-1)).toMatchObject({ messageId: 'm2', text: 'Next', offset: 0 });
  });

  it('flush sends at once what waits, for one conversation or all', () => {
    const { clock, advance } = fakeClock();
    const sent: DeltaEvent[] = [];
    const coalescer = new DeltaCoalescer((e) => sent.push(e), INTERVAL, clock);
    for (const id of ['a', 'b']) {
      coalescer.push(delta(id, 'm', 'x', 0));
      coalescer.push(delta(id, 'm', 'y', 1));
      coalescer.push(delta(id, 'm', 'z', 2));
    }
    expect(sent).toHaveLength(2);
    coalescer.flush('a');
    expect(sent.at(-1)).toMatchObject({ conversationId: 'a', text: 'yz', offset: 1 });
    coalescer.flush();
    expect(sent.at(-1)).toMatchObject({ conversationId: 'b', text: 'yz', offset: 1 });
    advance(100);
    expect(sent).toHaveLength(4); // the timers were cancelled
  });

  it('many conversations at once: each gets its whole text, at most one event per interval', () => {
    const { clock, advance } = fakeClock();
    const sent: Array<DeltaEvent & { at: number }> = [];
    const coalescer = new DeltaCoalescer((e) => sent.push({ ...e, at: clock.now() }), INTERVAL, clock);
    const streams = Array.from({ length: 30 }, (_, k) => ({ id: `c${k}`, parts: pieces(`${k}: ${TEXT.slice(0, 400)}`, k + 3), next: 0, offset: 0 }));
    let time = 0;
    let seed = 9;
    while (streams.some((s) => s.next < s.parts.length)) {
      seed = (seed * 48271) % 2147483647;
      const s = streams[seed % streams.length]!;
      if (s.next >= s.parts.length) continue;
      time += seed % 3; // 0–2 ms apart, all conversations interleaved
      advance(time);
      const part = s.parts[s.next++]!;
      coalescer.push(delta(s.id, 'm', part, s.offset));
      s.offset += part.length;
    }
    advance(time + INTERVAL);
    for (const s of streams) {
      const own = sent.filter((e) => e.conversationId === s.id);
      expect(own.map((e) => e.text).join('')).toBe(s.parts.join(''));
      for (let i = 1; i < own.length; i++) expect(own[i]!.at - own[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL);
    }
  });
});

describe('EventHub', () => {
  type FakePort = { name: string; sender: unknown; received: UiEvent[]; postMessage(e: UiEvent): void; disconnect(): void; onDisconnect: { addListener(fn: () => void): void } };
  let connect: (port: FakePort) => void;

  beforeEach(() => {
    vi.spyOn(fakeBrowser.runtime.onConnect, 'addListener').mockImplementation((fn) => {
      connect = fn as unknown as (port: FakePort) => void;
    });
  });

  /** A page connecting on the events port; what it receives is cloned as a real port would. */
  function page(): FakePort {
    const port: FakePort = {
      name: EVENTS_PORT,
      sender: { id: fakeBrowser.runtime.id, url: fakeBrowser.runtime.getURL('/sidepanel.html') },
      received: [],
      postMessage(e) {
        this.received.push(structuredClone(e));
      },
      disconnect() {},
      onDisconnect: { addListener() {} },
    };
    connect(port);
    return port;
  }

  const answer = (text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
    id: 'm', conversationId: 'a', seq: 1, createdAt: 0, role: 'assistant', text, status: 'complete', toolCalls: [], ...extra,
  });

  it('tells who listens when one of the extension\'s pages connects, and not when a content script tries', () => {
    const hub = new EventHub();
    const connected = vi.fn();
    hub.onPageConnected(connected);
    hub.listen();
    page();
    expect(connected).toHaveBeenCalledTimes(1);
    // A content script on a web page: the port is refused.
    const script: FakePort = {
      name: EVENTS_PORT,
      sender: { id: fakeBrowser.runtime.id, url: 'https://evil.example/', tab: { id: 3 } },
      received: [],
      postMessage() {},
      disconnect: vi.fn(),
      onDisconnect: { addListener() {} },
    };
    connected.mockClear();
    connect(script);
    expect(script.disconnect).toHaveBeenCalled();
    expect(connected).not.toHaveBeenCalled();
  });

  it('sends the text that waits before the conversation\'s next event: the answer with a tool call, its end, a stop', () => {
    const { clock, advance } = fakeClock();
    const hub = new EventHub({ clock });
    hub.listen();
    const port = page();
    const ends: Array<Partial<AssistantMessage>> = [
      { status: 'complete', toolCalls: [{ id: 'c1', name: 'list_tabs', input: {} }] },
      { status: 'complete' },
      { status: 'stopped' },
    ];
    for (const end of ends) {
      advance(clock.now() + 100);
      port.received.length = 0;
      hub.broadcast(delta('a', 'm', 'Hel', 0));
      hub.broadcast(delta('a', 'm', 'lo', 3)); // waits for the interval
      hub.broadcast({ type: 'message', message: answer('Hello', end) });
      expect(port.received.map((e) => (e.type === 'delta' ? `delta ${e.text}` : e.type))).toEqual(['delta Hel', 'delta lo', 'message']);
    }
    // A status change of the conversation (the run ended, or was stopped) flushes too.
    advance(clock.now() + 100);
    port.received.length = 0;
    hub.broadcast(delta('a', 'm', 'x', 5));
    hub.broadcast(delta('a', 'm', 'y', 6));
    hub.broadcast({ type: 'conversation', conversation: { id: 'a', title: 'A', createdAt: 0, updatedAt: 1, status: 'stopped' } });
    expect(port.received.map((e) => e.type)).toEqual(['delta', 'delta', 'conversation']);
  });

  it('another conversation\'s event leaves this one\'s text waiting; an event of none sends all', () => {
    const { clock } = fakeClock();
    const hub = new EventHub({ clock });
    hub.listen();
    const port = page();
    hub.broadcast(delta('a', 'm', 'A', 0));
    hub.broadcast(delta('a', 'm', 'B', 1));
    hub.broadcast({ type: 'conversation-deleted', id: 'other' });
    expect(port.received.map((e) => e.type)).toEqual(['delta', 'conversation-deleted']);
    hub.broadcast({ type: 'plugins', plugins: [] });
    expect(port.received.map((e) => e.type)).toEqual(['delta', 'conversation-deleted', 'delta', 'plugins']);
  });

  it('a page that subscribes mid-stream ends with the whole text: its snapshot, then the deltas after it', () => {
    const { clock, advance } = fakeClock();
    const hub = new EventHub({ clock });
    hub.listen();
    const early = page();
    const parts = pieces(TEXT, 5);
    let streamed = '';
    let late: FakePort | undefined;
    let snapshot = '';
    for (const [i, part] of parts.entries()) {
      advance(i * 2);
      // The loop adds the piece to the message, then tells the hub (the live message is the snapshot a page opening now gets).
      const offset = streamed.length;
      streamed += part;
      hub.broadcast(delta('a', 'm', part, offset));
      if (i === Math.floor(parts.length / 3)) late = page(); // connects mid-interval, text waiting
      if (i === Math.floor(parts.length / 3) + 2) snapshot = streamed; // then asks for the conversation
    }
    advance(parts.length * 2 + INTERVAL);
    const deltas = (port: FakePort) => port.received.filter((e): e is DeltaEvent => e.type === 'delta');
    expect(applyAll(deltas(early))).toBe(TEXT);
    expect(applyAll(deltas(late!), snapshot)).toBe(TEXT);
    // The hub's own interval: one event per DELTA_INTERVAL_MS of a stream with a piece every 2 ms.
    expect(deltas(early).length).toBeLessThanOrEqual(Math.ceil((parts.length * 2) / DELTA_INTERVAL_MS) + 2);
  });
});

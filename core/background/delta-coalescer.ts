import type { UiEventOf } from '@/core/messaging/protocol';

export type DeltaEvent = UiEventOf<'delta'>;

/** The clock and timers the coalescer uses (tests pass fake ones). */
export interface CoalescerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: CoalescerClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Half an animation frame. A page shows streamed text at most once a frame, but the wait here and
 * the wait for the page's next frame add up: at 16 ms a piece waited 8 ms on average here (15 at
 * p95) before its frame's wait began. At 8 ms the pieces reach the page's store about twice a
 * frame (≤ 125 events a second), each a cheap update (only the answer's view reads it); measured
 * in Chromium: written → the page's event 16–19 → 10–13 ms (median), p95 on screen −8 ms, for
 * ≈ 4 % more CPU in the browser (bench/README.md, round 3).
 */
export const DELTA_INTERVAL_MS = 8;

interface Waiting {
  messageId: string;
  offset: number;
  parts: string[];
  length: number;
  timer: unknown;
}

/**
 * Joins a conversation's streamed pieces into at most one `delta` event per interval (half a frame),
 * so a model that streams hundreds of pieces a second costs each open page tens of port messages,
 * not hundreds (in Firefox every extension page shares the background's thread).
 *
 * A piece is sent at once when the conversation sent nothing in the last interval (a slow stream
 * gains no delay); otherwise it waits, joined to the pieces after it, until the interval is up.
 * Nothing is dropped or reordered: the joined event carries the offset of its first piece and the
 * text of all of them; a piece that does not continue what waits (another message, a gap) sends
 * what waits first. `flush` sends what waits at once: before any other event of the conversation
 * (its message written, its status), so a page sees the text before what follows it.
 */
export class DeltaCoalescer {
  private readonly waiting = new Map<string, Waiting>();
  /** When each conversation last sent a delta (entries older than the interval are pruned). */
  private readonly lastSent = new Map<string, number>();

  constructor(
    private readonly send: (event: DeltaEvent) => void,
    private readonly intervalMs = DELTA_INTERVAL_MS,
    private readonly clock: CoalescerClock = realClock,
  ) {}

  push(event: DeltaEvent): void {
    if (!event.text) return;
    const id = event.conversationId;
    const w = this.waiting.get(id);
    if (w) {
      if (w.messageId === event.messageId && w.offset + w.length === event.offset) {
        w.parts.push(event.text);
        w.length += event.text.length;
        return;
      }
      this.flush(id);
    }
    const now = this.clock.now();
    const last = this.lastSent.get(id);
    if (last === undefined || now - last >= this.intervalMs) {
      this.emit(event, now);
      return;
    }
    const timer = this.clock.setTimeout(() => this.flush(id), last + this.intervalMs - now);
    this.waiting.set(id, { messageId: event.messageId, offset: event.offset, parts: [event.text], length: event.text.length, timer });
  }

  /** Sends at once what waits for one conversation (or for all). */
  flush(conversationId?: string): void {
    if (conversationId === undefined) {
      for (const id of [...this.waiting.keys()]) this.flush(id);
      return;
    }
    const w = this.waiting.get(conversationId);
    if (!w) return;
    this.waiting.delete(conversationId);
    this.clock.clearTimeout(w.timer);
    const text = w.parts.length === 1 ? w.parts[0]! : w.parts.join('');
    this.emit({ type: 'delta', conversationId, messageId: w.messageId, text, offset: w.offset }, this.clock.now());
  }

  /** How many conversations have text waiting. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  private emit(event: DeltaEvent, now: number): void {
    this.lastSent.set(event.conversationId, now);
    if (this.lastSent.size > 32) {
      for (const [id, at] of this.lastSent) if (now - at >= this.intervalMs && !this.waiting.has(id)) this.lastSent.delete(id);
    }
    this.send(event);
  }
}

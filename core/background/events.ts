import { browser, type Browser } from 'wxt/browser';
import { EVENTS_PORT, type UiEvent } from '@/core/messaging/protocol';
import { isExtensionPage } from '@/core/messaging/sender';
import { DeltaCoalescer, type CoalescerClock } from './delta-coalescer';

/**
 * Sends live updates to every extension page connected on the events port. Streamed text
 * (`delta`) is joined to at most one event per conversation per half frame (`DeltaCoalescer`); any
 * other event of a conversation first sends the text that waits, so pages see events in order.
 */
export class EventHub {
  private readonly ports = new Set<Browser.runtime.Port>();
  private readonly deltas: DeltaCoalescer;
  private readonly pageListeners = new Set<() => void>();

  constructor(options: { deltaIntervalMs?: number; clock?: CoalescerClock } = {}) {
    this.deltas = new DeltaCoalescer((event) => this.post(event), options.deltaIntervalMs, options.clock);
  }

  /** How many pages are connected now (`core/retained.ts`); a closed page's port goes on disconnect. */
  get size(): number {
    return this.ports.size;
  }

  /** Listens for pages connecting. Call synchronously at start-up (an MV3 worker may wake for it). */
  listen(): void {
    browser.runtime.onConnect.addListener((port) => {
      if (port.name !== EVENTS_PORT) return;
      // Only the extension's own pages; content scripts never get this stream.
      if (!isExtensionPage(port.sender)) {
        port.disconnect();
        return;
      }
      this.ports.add(port);
      port.onDisconnect.addListener(() => this.ports.delete(port));
      for (const listener of [...this.pageListeners]) listener();
    });
  }

  /** Tells `listener` each time one of the extension's pages connects (opened, or back after the worker stopped). */
  onPageConnected(listener: () => void): () => void {
    this.pageListeners.add(listener);
    return () => void this.pageListeners.delete(listener);
  }

  broadcast(event: UiEvent): void {
    if (event.type === 'delta') {
      this.deltas.push(event);
      return;
    }
    // The conversation's streamed text that waits goes first (all conversations' for an event of none).
    this.deltas.flush(conversationOf(event));
    this.post(event);
  }

  private post(event: UiEvent): void {
    for (const port of this.ports) {
      try {
        port.postMessage(event);
      } catch {
        this.ports.delete(port);
      }
    }
  }
}

/** The conversation an event concerns, when it concerns one (undefined: any, or all). */
function conversationOf(event: UiEvent): string | undefined {
  switch (event.type) {
    case 'conversation':
      return event.conversation.id;
    case 'conversation-deleted':
      return event.id;
    case 'message':
      return event.message.conversationId;
    case 'approval':
      return event.approval.conversationId;
    case 'approval-closed':
    case 'tool-activity':
      return event.conversationId;
    default:
      return undefined;
  }
}

export { isExtensionPage };

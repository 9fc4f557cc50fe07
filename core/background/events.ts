import { browser, type Browser } from 'wxt/browser';
import { EVENTS_PORT, type UiEvent } from '@/core/messaging/protocol';
import { isExtensionPage } from '@/core/messaging/sender';

/** Sends live updates to every extension page connected on the events port. */
export class EventHub {
  private readonly ports = new Set<Browser.runtime.Port>();

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
    });
  }

  broadcast(event: UiEvent): void {
    for (const port of this.ports) {
      try {
        port.postMessage(event);
      } catch {
        this.ports.delete(port);
      }
    }
  }
}

export { isExtensionPage };

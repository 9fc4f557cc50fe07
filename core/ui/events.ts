import { browser, type Browser } from 'wxt/browser';
import { EVENTS_PORT, type UiEvent } from '@/core/messaging/protocol';

export interface EventConnection {
  close(): void;
}

/**
 * Subscribes an extension page to the background's live updates. When the port drops (Chrome
 * stopped its service worker, Firefox reloaded the add-on) it reconnects, which wakes the
 * background, and calls `onReconnect` so the page can reload what it shows.
 */
export function connectEvents(onEvent: (event: UiEvent) => void, onReconnect: () => void): EventConnection {
  let port: Browser.runtime.Port | undefined;
  let closed = false;
  let retryMs = 200;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = (isRetry: boolean) => {
    if (closed) return;
    try {
      port = browser.runtime.connect({ name: EVENTS_PORT });
    } catch {
      schedule();
      return;
    }
    port.onMessage.addListener((message) => {
      retryMs = 200;
      onEvent(message as UiEvent);
    });
    port.onDisconnect.addListener(() => {
      port = undefined;
      schedule();
    });
    if (isRetry) onReconnect();
  };
  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect(true);
    }, retryMs);
    retryMs = Math.min(retryMs * 2, 5000);
  };

  connect(false);
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      port?.disconnect();
    },
  };
}

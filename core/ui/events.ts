import { browser, type Browser } from 'wxt/browser';
import { EVENTS_PORT, type UiEvent, type UiEventMap, type UiEventOf } from '@/core/messaging/protocol';

type Listener = (event: UiEvent) => void;

const listeners = new Set<Listener>();
const reconnectListeners = new Set<() => void>();
let port: Browser.runtime.Port | undefined;
let retryMs = 200;
let timer: ReturnType<typeof setTimeout> | undefined;

/**
 * The page's one connection to the background's live updates, shared by every store. When the
 * port drops (Chrome stopped its service worker, Firefox reloaded the add-on) it reconnects, which
 * wakes the background, and tells each subscriber to reload what it shows. It opens with the first
 * subscriber and closes with the last.
 */
function connect(isRetry: boolean): void {
  if (!listeners.size && !reconnectListeners.size) return;
  try {
    port = browser.runtime.connect({ name: EVENTS_PORT });
  } catch {
    schedule();
    return;
  }
  port.onMessage.addListener((message) => {
    retryMs = 200;
    for (const listener of [...listeners]) {
      try {
        listener(message as UiEvent);
      } catch (error) {
        console.error('[sidequest] an event listener failed', error);
      }
    }
  });
  port.onDisconnect.addListener(() => {
    port = undefined;
    schedule();
  });
  if (isRetry) for (const listener of [...reconnectListeners]) listener();
}

function schedule(): void {
  if (timer || (!listeners.size && !reconnectListeners.size)) return;
  timer = setTimeout(() => {
    timer = undefined;
    connect(true);
  }, retryMs);
  retryMs = Math.min(retryMs * 2, 5000);
}

function release(): void {
  if (listeners.size || reconnectListeners.size) return;
  clearTimeout(timer);
  timer = undefined;
  port?.disconnect();
  port = undefined;
}

/**
 * Subscribes to the background's live updates: `onEvent` for each, `onReconnect` after the
 * connection came back (reload what you show). Returns the unsubscribe function.
 */
export function subscribe(onEvent: Listener, onReconnect?: () => void): () => void {
  listeners.add(onEvent);
  if (onReconnect) reconnectListeners.add(onReconnect);
  if (!port && !timer) connect(false);
  return () => {
    listeners.delete(onEvent);
    if (onReconnect) reconnectListeners.delete(onReconnect);
    release();
  };
}

/** Subscribes to one type of event. */
export function subscribeTo<K extends keyof UiEventMap>(
  type: K,
  onEvent: (event: UiEventOf<K>) => void,
  onReconnect?: () => void,
): () => void {
  return subscribe((event) => {
    if (event.type === type) onEvent(event as UiEventOf<K>);
  }, onReconnect);
}

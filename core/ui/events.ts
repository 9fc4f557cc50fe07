import { browser, type Browser } from 'wxt/browser';
import { EVENTS_PORT, type UiEvent, type UiEventMap, type UiEventOf } from '@/core/messaging/protocol';

type Listener = (event: UiEvent) => void;

const listeners = new Set<Listener>();
const reconnectListeners = new Set<() => void>();
let port: Browser.runtime.Port | undefined;
/** The first reconnect's wait; it doubles (to 5 s) while connections keep dropping at once. */
const FIRST_RETRY_MS = 200;
/** A connection that lasted this long was a working one: when it drops, the next waits the least again. */
const HEALTHY_CONNECTION_MS = 1000;
let retryMs = FIRST_RETRY_MS;
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
  const openedAt = Date.now();
  port.onMessage.addListener((message) => {
    retryMs = FIRST_RETRY_MS;
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
    // Chrome stops an idle worker after 30 s, whether or not anything came over the port: that
    // connection worked, so the page reconnects (and wakes the worker) soon, not after a wait grown
    // over the idle stops before it. A background that fails at once still gets the backoff.
    if (Date.now() - openedAt >= HEALTHY_CONNECTION_MS) retryMs = FIRST_RETRY_MS;
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

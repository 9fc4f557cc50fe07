/**
 * The isolated-world half of the page-tools bridge: carries tool lists and calls between the
 * page's MAIN world (CustomEvents with JSON strings) and the background (one runtime port per
 * document). It has the extension APIs the MAIN world must never reach, so it forwards only
 * these few message shapes, re-encoded, and nothing else.
 *
 * The port is opened only once the page offers tools (or the background asks), so ordinary pages
 * cost the background nothing. Its disconnect tells the background the document is gone.
 */
import {
  PAGE_TOOLS_PORT,
  REFRESH_MESSAGE,
  TO_ISOLATED_EVENT,
  TO_MAIN_EVENT,
  type BackgroundToRelay,
  type IsolatedToMain,
  type MainToIsolated,
  type RelayToBackground,
  type WireCallResult,
  type WireToolList,
} from './wire';
import { BACKGROUND_LIMITS, sanitizeList } from './limits';

/** The slice of a runtime port the relay uses (a real `Browser.runtime.Port`). */
export interface RelayPort {
  postMessage(message: unknown): void;
  disconnect(): void;
  onMessage: { addListener(fn: (message: any) => void): void };
  onDisconnect: { addListener(fn: () => void): void };
}

export interface RelayRuntime {
  connect(info: { name: string }): RelayPort;
  onMessage: {
    addListener(fn: (message: any, sender: unknown) => Promise<unknown> | undefined): void;
  };
}

/** How long a refresh waits for the page's answer. Discovery itself waits at most ~3 s for Promises. */
const REFRESH_WAIT_MS = 5000;
/** A page that changes its tools in a loop reaches the background at most this often. */
const ANNOUNCE_INTERVAL_MS = 100;

export function startRelay(win: Window, runtime: RelayRuntime): { dispose(): void } {
  let port: RelayPort | undefined;
  let latest: WireToolList | undefined;
  const waiting = new Map<string, (list: WireToolList) => void>();
  let counter = 0;

  const toMain = (message: IsolatedToMain) => {
    win.dispatchEvent(new CustomEvent(TO_MAIN_EVENT, { detail: JSON.stringify(message) }));
  };

  const send = (message: RelayToBackground) => {
    try {
      port?.postMessage(message);
    } catch {
      port = undefined;
    }
  };

  function ensurePort(): RelayPort | undefined {
    if (port) return port;
    try {
      const opened = runtime.connect({ name: PAGE_TOOLS_PORT });
      opened.onMessage.addListener(onBackground);
      opened.onDisconnect.addListener(() => {
        // The background restarted (it says hello again) or the extension went away.
        if (port === opened) port = undefined;
      });
      port = opened;
    } catch {
      port = undefined; // The extension was reloaded or removed: this script is orphaned.
    }
    return port;
  }

  let lastAnnounced = -Infinity;
  let pendingList: WireToolList | undefined;
  let announceTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Sends the list at once, unless one went less than 100 ms ago: then the newest goes at the end
   * of that window. An answer to the background's own request always goes at once.
   */
  function announce(list: WireToolList, requested = false): void {
    const hasTools = list.groups.some((g) => g.tools.length > 0);
    if (!hasTools && !port) return;
    const wait = lastAnnounced + ANNOUNCE_INTERVAL_MS - performance.now();
    if (wait > 0 && !requested) {
      pendingList = list;
      announceTimer ??= setTimeout(() => {
        announceTimer = undefined;
        const next = pendingList;
        pendingList = undefined;
        if (next) announce(next);
      }, wait);
      return;
    }
    lastAnnounced = performance.now();
    pendingList = undefined; // Older than this one.
    ensurePort();
    send({ type: 'tools', list, title: win.document.title, url: win.location.href });
  }

  function onBackground(message: BackgroundToRelay): void {
    if (!message || typeof message !== 'object') return;
    if (message.type === 'call' && typeof message.callId === 'string' && typeof message.key === 'string') {
      toMain({ type: 'call', callId: message.callId, key: message.key, input: message.input ?? {} });
    } else if (message.type === 'cancel' && typeof message.callId === 'string') {
      toMain({ type: 'cancel', callId: message.callId, reason: String(message.reason ?? '') });
    } else if (message.type === 'discover') {
      toMain({ type: 'discover', reason: String(message.reason ?? 'refresh'), requestId: `bg-${++counter}` });
    }
  }

  function onPage(event: Event): void {
    let message: MainToIsolated;
    try {
      const detail = (event as CustomEvent).detail;
      // The page can forge this event: an oversized one is dropped before it is even parsed.
      if (typeof detail !== 'string' || detail.length > BACKGROUND_LIMITS.messageChars) return;
      message = JSON.parse(detail) as MainToIsolated;
    } catch {
      return;
    }
    if (!message || typeof message !== 'object') return;
    if (message.type === 'tools' && isToolList(message.list)) {
      // Limited and cleaned here, in the world the page cannot touch, and again in the background.
      const list = sanitizeList(message.list);
      if (!list) return;
      latest = list;
      const requested = Boolean(message.requestId && waiting.has(message.requestId));
      announce(list, requested);
      if (message.requestId) waiting.get(message.requestId)?.(list);
    } else if (message.type === 'result' && typeof message.callId === 'string' && isCallResult(message.result)) {
      send({ type: 'result', callId: message.callId, result: message.result });
    } else if (message.type === 'status' && typeof message.callId === 'string' && (message.status === 'waiting-user' || message.status === 'navigating')) {
      send({ type: 'status', callId: message.callId.slice(0, 100), status: message.status });
    }
  }

  /** Asks the MAIN world for a fresh list and waits for it. */
  function refresh(reason: string): Promise<WireToolList | null> {
    const requestId = `rq-${++counter}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiting.delete(requestId);
        resolve(latest ?? null);
      }, REFRESH_WAIT_MS);
      waiting.set(requestId, (list) => {
        clearTimeout(timer);
        waiting.delete(requestId);
        resolve(list);
      });
      toMain({ type: 'discover', reason, requestId });
    });
  }

  const onRuntimeMessage = (message: any): Promise<unknown> | undefined => {
    if (!message || message.type !== REFRESH_MESSAGE) return undefined;
    return refresh(String(message.reason ?? 'refresh'));
  };

  const onPageShow = (event: PageTransitionEvent) => {
    // Back from the back-forward cache: the port was closed when the page was put away.
    if (event.persisted) void refresh('back-forward cache');
  };

  win.addEventListener(TO_ISOLATED_EVENT, onPage);
  win.addEventListener('pageshow', onPageShow);
  runtime.onMessage.addListener(onRuntimeMessage);

  return {
    dispose() {
      win.removeEventListener(TO_ISOLATED_EVENT, onPage);
      win.removeEventListener('pageshow', onPageShow);
      clearTimeout(announceTimer);
      port?.disconnect();
    },
  };
}

function isToolList(value: unknown): value is WireToolList {
  const list = value as WireToolList;
  return Boolean(list) && Array.isArray(list.groups) && Array.isArray(list.problems);
}

function isCallResult(value: unknown): value is WireCallResult {
  const r = value as WireCallResult;
  return Boolean(r) && (r.ok === true ? typeof r.json === 'string' : typeof (r as { error?: unknown }).error === 'string');
}

import { browser } from 'wxt/browser';

/** Chrome stops an MV3 service worker after 30 s without extension events; an API call resets that. */
const PING_INTERVAL_MS = 20_000;

let holders = 0;
let timer: ReturnType<typeof setInterval> | undefined;

/** How many runs hold the background alive now (`core/retained.ts`); the ping timer runs while any do. */
export const keepAliveHolders = (): number => holders;

/**
 * Keeps the background alive while at least one run is going, so a long model answer or tool
 * is not cut off by the browser's idle timeout. Returns the function that lets go.
 */
export function startKeepAlive(): () => void {
  holders++;
  timer ??= setInterval(() => {
    browser.runtime.getPlatformInfo().catch(() => undefined);
  }, PING_INTERVAL_MS);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders--;
    if (holders === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

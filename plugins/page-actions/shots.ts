import type { ShotSize } from './protocol';

/**
 * The size of the last full-tab screenshot of each tab (`screenshot` without `ref`), kept in the
 * background: `click_at` and `hover_at` take x, y in that picture's pixels, and the page agent maps
 * them back to CSS pixels of the viewport with it (`page/pointer.ts`, which refuses when the tab's
 * size or zoom changed since). The model needs to pass nothing but the point it saw. Lost when the
 * background restarts (Chrome stops an idle service worker): then the tools ask for a new screenshot.
 */
const shots = new Map<number, ShotSize>();
const MAX_TABS = 200;

export function rememberShot(tabId: number, size: ShotSize): void {
  shots.delete(tabId);
  shots.set(tabId, { width: size.width, height: size.height, captureWidth: size.captureWidth, captureHeight: size.captureHeight });
  if (shots.size > MAX_TABS) shots.delete(shots.keys().next().value!);
}

export function lastShot(tabId: number | undefined): ShotSize | undefined {
  return tabId === undefined ? undefined : shots.get(tabId);
}

export function forgetShots(): void {
  shots.clear();
}

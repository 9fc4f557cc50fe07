import { browser, type Browser } from 'wxt/browser';
import { originOf } from '@/core/net/origin';
import type { RectReply } from './protocol';
import { TabError } from './tab-access';

/**
 * `screenshot`: the visible part of a tab, captured by the browser (`tabs.captureVisibleTab`),
 * cropped to an element where asked, scaled so its long side is at most `MAX_SIDE`, as JPEG. The
 * image work runs where the background runs (Chrome's service worker, Firefox's background page):
 * both have `createImageBitmap` and `OffscreenCanvas`.
 */

/** The long side of a screenshot the model gets, at most (pixels). */
export const MAX_SIDE = 1280;
export const JPEG_QUALITY = 0.8;
/** Chrome allows about two captures a second; one retry after this long. */
export const CAPTURE_RETRY_MS = 600;

/** Which pixels of the captured image to take, and the size to draw them at. */
export interface Frame {
  sx: number;
  sy: number;
  sw: number;
  sh: number;
  width: number;
  height: number;
}

/**
 * The crop and scale for an image of `imageWidth`×`imageHeight` device pixels: the whole image, or
 * the element's box (`rect`, CSS pixels of the viewport, times its device pixel ratio) clipped to
 * the image; then scaled down (never up) so the long side is at most `maxSide`. Null when the
 * element's box has no visible pixel.
 */
export function frameFor(imageWidth: number, imageHeight: number, rect?: RectReply, maxSide = MAX_SIDE): Frame | null {
  let sx = 0;
  let sy = 0;
  let sw = imageWidth;
  let sh = imageHeight;
  if (rect) {
    const r = rect.devicePixelRatio;
    const left = Math.max(0, Math.floor(rect.x * r));
    const top = Math.max(0, Math.floor(rect.y * r));
    const right = Math.min(imageWidth, Math.ceil((rect.x + rect.width) * r));
    const bottom = Math.min(imageHeight, Math.ceil((rect.y + rect.height) * r));
    if (right - left < 1 || bottom - top < 1) return null;
    [sx, sy, sw, sh] = [left, top, right - left, bottom - top];
  }
  const scale = Math.min(1, maxSide / Math.max(sw, sh));
  return { sx, sy, sw, sh, width: Math.max(1, Math.round(sw * scale)), height: Math.max(1, Math.round(sh * scale)) };
}

/** The bytes of a `data:` URL's base64 payload. */
export function dataUrlBytes(dataUrl: string): Uint8Array {
  const comma = dataUrl.indexOf(',');
  const binary = atob(dataUrl.slice(comma + 1));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 of bytes, in chunks (a screenshot is too large for one `String.fromCharCode` call). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Captures the visible part of the tab's window as PNG (one retry when Chrome's rate limit hits). */
export async function captureVisible(tab: Browser.tabs.Tab, wait = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<string> {
  const capture = () => browser.tabs.captureVisibleTab(tab.windowId!, { format: 'png' });
  try {
    return await capture();
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    if (/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND|quota|too many/i.test(message)) {
      await wait(CAPTURE_RETRY_MS);
      try {
        return await capture();
      } catch (again) {
        throw new TabError(`The browser refused a screenshot right now (${(again as Error)?.message ?? again}). Wait a moment and try again.`, 'failed');
      }
    }
    if (/permission|not allowed|Cannot access|cannot be (captured|scripted)/i.test(message)) {
      throw new TabError(`The browser does not let the extension capture tab ${tab.id} (${tab.url ?? ''}).`, 'no-access');
    }
    throw new TabError(`Could not capture tab ${tab.id}: ${message}`, 'failed');
  }
}

/** Crops and scales a captured PNG, as JPEG: base64 and its size. */
export async function encodeFrame(pngDataUrl: string, crop?: RectReply): Promise<{ data: string; width: number; height: number; captureWidth: number; captureHeight: number }> {
  const bitmap = await createImageBitmap(new Blob([dataUrlBytes(pngDataUrl) as BlobPart], { type: 'image/png' }));
  try {
    const frame = frameFor(bitmap.width, bitmap.height, crop);
    if (!frame) throw new TabError('The element is not within the visible part of the page, so it cannot be captured. Scroll to it first.', 'failed');
    const canvas = new OffscreenCanvas(frame.width, frame.height);
    const context = canvas.getContext('2d');
    if (!context) throw new TabError('The browser could not draw the screenshot.', 'failed');
    // A white ground: JPEG has no transparency.
    context.fillStyle = '#fff';
    context.fillRect(0, 0, frame.width, frame.height);
    context.drawImage(bitmap, frame.sx, frame.sy, frame.sw, frame.sh, 0, 0, frame.width, frame.height);
    const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: JPEG_QUALITY });
    return { data: toBase64(new Uint8Array(await blob.arrayBuffer())), width: frame.width, height: frame.height, captureWidth: bitmap.width, captureHeight: bitmap.height };
  } finally {
    bitmap.close();
  }
}

/**
 * Runs in every frame of the tab (serialized by `executeScript`: self-contained): the frame's
 * address and whether its document is in the top page's viewport (an `IntersectionObserver` with
 * no root measures against it, across origins). A frame that does not say within the wait counts
 * as in view: what the picture shows must not be missed.
 */
async function frameInView(waitMs: number): Promise<{ url: string; inView: boolean }> {
  const url = String(location.href);
  if (window === window.top) return { url, inView: true };
  const root = document.documentElement;
  if (!root || typeof IntersectionObserver !== 'function') return { url, inView: true };
  return new Promise((resolve) => {
    const observer = new IntersectionObserver((entries) => {
      clearTimeout(timer);
      observer.disconnect();
      resolve({ url, inView: entries.some((entry) => entry.isIntersecting) });
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      resolve({ url, inView: true });
    }, waitMs);
    observer.observe(root);
  });
}

/** How long a frame may take to say whether it is in view. */
export const FRAME_VIEW_WAIT_MS = 500;

/**
 * The sites a picture of the tab shows: the page's own and every frame's in view (cross-origin
 * frames and ones on the user's own network included), as http(s) origins, sorted. The outbound
 * rule counts each as read (a page can frame the user's mail or a router's admin page).
 */
export async function originsInView(tabId: number, pageUrl: string): Promise<string[]> {
  const origins = new Set<string>();
  const own = originOf(pageUrl);
  if (own) origins.add(own);
  let frames: Array<{ result?: unknown }> = [];
  try {
    frames = (await browser.scripting.executeScript({ target: { tabId, allFrames: true }, func: frameInView, args: [FRAME_VIEW_WAIT_MS] })) ?? [];
  } catch {
    // The page cannot be scripted at all: its own site is what is known.
  }
  for (const frame of frames) {
    const seen = frame.result as { url?: unknown; inView?: unknown } | undefined;
    if (!seen || typeof seen.url !== 'string' || seen.inView === false) continue;
    const origin = originOf(seen.url);
    if (origin) origins.add(origin);
  }
  return [...origins].sort();
}

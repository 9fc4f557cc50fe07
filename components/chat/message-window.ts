/**
 * Which messages of a conversation are in the DOM (pure logic; `ChatView.vue` measures and renders).
 *
 * The conversation's latest messages are *loaded* (in the scroll range), the earlier ones wait behind
 * Show earlier. Of the loaded ones, a contiguous run `[start, end)` is *rendered*; the loaded ones
 * outside it are stand-in space of their measured heights (a spacer above, one below). Every loaded
 * message has been rendered once, so the spacers are exact (up to a width change): replacing a
 * spacer's share by the messages, or the other way round, moves nothing on screen.
 *
 * Scrolling up renders a few messages a frame (`chunk`) ahead of the view (`overscan` pixels), and
 * once the loaded ones are all rendered loads earlier ones the same way; scrolling down does the
 * same below. Past `maxRendered` messages in the DOM, those farthest off screen (more than two
 * overscans away) give their place back to the spacers: the DOM stays bounded however far the user
 * scrolls, and a conversation of up to `maxRendered` messages keeps all of them in the DOM.
 */

export interface WindowOptions {
  /** Messages loaded and rendered when a conversation opens. */
  initial: number;
  /** Messages loaded by one Show earlier (rendered at once: the user asked for them). */
  earlierPage: number;
  /** Messages added to the DOM per frame while scrolling: each costs its Markdown render. */
  chunk: number;
  /** Messages in the DOM before far-off ones are dropped. */
  maxRendered: number;
  /** Pixels beyond each edge of the view kept rendered. */
  overscan: number;
  /** Height assumed for a message never measured (only a newly added one scrolled away from). */
  estimate: number;
}

export const WINDOW_OPTIONS: WindowOptions = { initial: 40, earlierPage: 15, chunk: 4, maxRendered: 100, overscan: 800, estimate: 120 };

export interface MessageWindow {
  /** Messages before this index are not loaded (the count Show earlier names). */
  loadedStart: number;
  /** The rendered messages are `[start, end)`. */
  start: number;
  end: number;
}

/** A conversation just opened: its latest `initial` messages, all rendered. */
export function openWindow(total: number, options: WindowOptions = WINDOW_OPTIONS): MessageWindow {
  const start = Math.max(0, total - options.initial);
  return { loadedStart: start, start, end: total };
}

/**
 * The conversation's message count changed from `before` to `total` (same conversation, same first
 * message). New messages at the end are rendered when the end was (following a run); fewer messages
 * shrink the ranges.
 */
export function resized(win: MessageWindow, before: number, total: number): MessageWindow {
  if (total >= before) return win.end === before ? { ...win, end: total } : win;
  const end = Math.min(win.end, total);
  const start = Math.min(win.start, end);
  return { loadedStart: Math.min(win.loadedStart, start), start, end };
}

/**
 * Show earlier: the next page of earlier messages, rendered down to what is rendered now, or to
 * `maxRendered` messages when the user had scrolled far down (the rest stays space).
 */
export function showEarlier(win: MessageWindow, options: WindowOptions = WINDOW_OPTIONS): MessageWindow {
  const loadedStart = Math.max(0, win.loadedStart - options.earlierPage);
  return { loadedStart, start: loadedStart, end: Math.min(win.end, loadedStart + Math.max(options.maxRendered, options.earlierPage)) };
}

export interface View {
  /** The view's top, in pixels from the top of the first loaded message. */
  top: number;
  /** The view's height. */
  height: number;
  /** Whether earlier messages may be loaded (the user scrolls; not while following the end). */
  loadEarlier: boolean;
  /** A rendered message that must stay in the DOM (it holds the focus), or -1. */
  pinned: number;
}

/** The height of message `index` (measured, else `options.estimate`). */
export type HeightOf = (index: number) => number;

/** The spacers' heights: the loaded messages above the rendered ones, and those below. */
export function spacers(win: MessageWindow, total: number, heightOf: HeightOf): { above: number; below: number } {
  return { above: sum(heightOf, win.loadedStart, win.start), below: sum(heightOf, win.end, total) };
}

/**
 * The window for the next frame, given where the view is. Returns the same object when nothing is
 * to change (the caller stops scheduling frames then).
 */
export function nextWindow(win: MessageWindow, total: number, heightOf: HeightOf, view: View, options: WindowOptions = WINDOW_OPTIONS): MessageWindow {
  const { overscan, chunk } = options;
  const top = sum(heightOf, win.loadedStart, win.start);
  const bottom = top + sum(heightOf, win.start, win.end);
  const viewBottom = view.top + view.height;

  // The view is far from everything rendered (a jump: scrollbar, Home, End): render where it is.
  if (win.end > win.start && (bottom < view.top - overscan || top > viewBottom + overscan)) {
    let y = 0;
    let i = win.loadedStart;
    while (i < total - 1 && y + heightOf(i) <= view.top) y += heightOf(i++);
    let end = i;
    while (end < total && y < viewBottom) y += heightOf(end++);
    return { loadedStart: win.loadedStart, start: i, end: Math.max(end, i + 1) };
  }

  let { loadedStart, start, end } = win;
  // Grow towards the view's edges, a chunk a frame.
  if (view.top - top < overscan) {
    if (start > loadedStart) start = Math.max(loadedStart, start - chunk);
    else if (view.loadEarlier && loadedStart > 0) loadedStart = start = Math.max(0, start - chunk);
  }
  if (bottom - viewBottom < overscan && end < total) end = Math.min(total, end + chunk);

  // Over the limit: drop the messages farthest off screen, while they are at least two overscans
  // away (never the one holding the focus, never within reach of the view).
  let above = view.top - sum(heightOf, win.loadedStart, start);
  let below = sum(heightOf, win.loadedStart, end) - viewBottom;
  while (end - start > options.maxRendered) {
    const first = heightOf(start);
    const last = heightOf(end - 1);
    const dropFirst = above - first >= 2 * overscan && start !== view.pinned;
    const dropLast = below - last >= 2 * overscan && end - 1 !== view.pinned;
    if (dropFirst && (!dropLast || above >= below)) {
      above -= first;
      start++;
    } else if (dropLast) {
      below -= last;
      end--;
    } else break;
  }

  if (loadedStart === win.loadedStart && start === win.start && end === win.end) return win;
  return { loadedStart, start, end };
}

function sum(heightOf: HeightOf, from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i++) total += heightOf(i);
  return total;
}

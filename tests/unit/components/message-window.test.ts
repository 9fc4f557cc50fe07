import { describe, expect, it } from 'vitest';
import { nextWindow, openWindow, resized, showEarlier, spacers, type MessageWindow, type View, type WindowOptions } from '@/components/chat/message-window';

const options: WindowOptions = { initial: 40, earlierPage: 15, chunk: 4, maxRendered: 100, overscan: 800, estimate: 120 };
const TOTAL = 2000;
// Messages of varied heights (the gap included), all measured.
const heightOf = (i: number) => 60 + ((i * 37) % 200);
const offsetOf = (win: MessageWindow, i: number) => {
  let y = 0;
  for (let k = win.loadedStart; k < i; k++) y += heightOf(k);
  return y;
};
const view = (top: number, extra: Partial<View> = {}): View => ({ top, height: 700, loadEarlier: true, pinned: -1, ...extra });

/** Runs frames until the window settles (at most `limit`); returns it and the frames taken. */
function settle(win: MessageWindow, at: (w: MessageWindow) => View, limit = 1000): { win: MessageWindow; frames: number } {
  for (let frames = 0; frames < limit; frames++) {
    const next = nextWindow(win, TOTAL, heightOf, at(win), options);
    if (next === win) return { win, frames };
    win = next;
  }
  throw new Error('did not settle');
}

describe('message window', () => {
  it('opens at the latest messages, all rendered', () => {
    expect(openWindow(2000, options)).toEqual({ loadedStart: 1960, start: 1960, end: 2000 });
    expect(openWindow(12, options)).toEqual({ loadedStart: 0, start: 0, end: 12 });
    expect(openWindow(0, options)).toEqual({ loadedStart: 0, start: 0, end: 0 });
  });

  it('renders new messages at the end when the end was rendered, and shrinks with the list', () => {
    const win = openWindow(100, options);
    expect(resized(win, 100, 101)).toEqual({ loadedStart: 60, start: 60, end: 101 });
    // Scrolled away from the end (the end dropped from the DOM): new ones wait below.
    const away = { loadedStart: 0, start: 10, end: 80 };
    expect(resized(away, 100, 101)).toBe(away);
    expect(resized({ loadedStart: 90, start: 95, end: 100 }, 100, 93)).toEqual({ loadedStart: 90, start: 93, end: 93 });
  });

  it('Show earlier loads a page and renders it down to what is rendered', () => {
    expect(showEarlier({ loadedStart: 1960, start: 1960, end: 2000 }, options)).toEqual({ loadedStart: 1945, start: 1945, end: 2000 });
    expect(showEarlier({ loadedStart: 10, start: 30, end: 90 }, options)).toEqual({ loadedStart: 0, start: 0, end: 90 });
    // Far below the loaded top (its messages dropped from the DOM): no more than maxRendered at once.
    expect(showEarlier({ loadedStart: 1000, start: 1900, end: 2000 }, options)).toEqual({ loadedStart: 985, start: 985, end: 1085 });
  });

  it('changes nothing while the view is well inside what is rendered', () => {
    const win = openWindow(TOTAL, options);
    const bottom = offsetOf(win, TOTAL);
    // At the end, following: earlier messages are not loaded.
    expect(nextWindow(win, TOTAL, heightOf, view(bottom - 700, { loadEarlier: false }), options)).toBe(win);
    expect(nextWindow(win, TOTAL, heightOf, view(bottom - 700), options)).toBe(win);
  });

  it('near the top renders a chunk a frame, then loads earlier ones a chunk a frame', () => {
    let win: MessageWindow = { loadedStart: 1900, start: 1940, end: 2000 };
    win = nextWindow(win, TOTAL, heightOf, view(offsetOf(win, 1940) + 100), options);
    expect(win).toEqual({ loadedStart: 1900, start: 1936, end: 2000 });
    win = { loadedStart: 1940, start: 1940, end: 2000 };
    expect(nextWindow(win, TOTAL, heightOf, view(100), options)).toEqual({ loadedStart: 1936, start: 1936, end: 2000 });
    // Not while following the end.
    expect(nextWindow(win, TOTAL, heightOf, view(100, { loadEarlier: false }), options)).toBe(win);
  });

  it('scrolling to the top keeps the DOM bounded and renders what is in view', () => {
    let win = openWindow(TOTAL, options);
    // The view's top in "loaded" coordinates; kept on the same message as loading adds above it.
    let top = offsetOf(win, TOTAL) - 700;
    let most = 0;
    for (let frame = 0; frame < 20_000 && !(top === 0 && win.loadedStart === 0); frame++) {
      const next = nextWindow(win, TOTAL, heightOf, view(top), options);
      // Messages loaded above shift the coordinates (ChatView's scroll correction keeps the view).
      for (let i = next.loadedStart; i < win.loadedStart; i++) top += heightOf(i);
      win = next;
      most = Math.max(most, win.end - win.start);
      // What is in view is rendered, every frame (a chunk a frame outpaces 120 px a frame).
      expect(offsetOf(win, win.start)).toBeLessThanOrEqual(top);
      expect(offsetOf(win, win.end)).toBeGreaterThanOrEqual(top + 700);
      top = Math.max(0, top - 120);
    }
    expect(win.loadedStart).toBe(0);
    expect(most).toBeLessThanOrEqual(options.maxRendered);
    // Settled at the top: the first messages rendered, the view covered.
    const { win: end } = settle(win, () => view(0));
    expect(end.start).toBe(0);
    expect(offsetOf(end, end.end)).toBeGreaterThanOrEqual(700 + options.overscan);
    expect(end.end - end.start).toBeLessThanOrEqual(options.maxRendered);
  });

  it('drops far-off messages only past the limit, from the side farther away, never the focused one', () => {
    // 120 rendered, view at their end: the first ones go.
    const win: MessageWindow = { loadedStart: 1800, start: 1880, end: 2000 };
    const bottom = offsetOf(win, 2000);
    const next = nextWindow(win, TOTAL, heightOf, view(bottom - 700, { loadEarlier: false }), options);
    expect(next.end).toBe(2000);
    expect(next.end - next.start).toBe(100);
    // The focused message stays, and so does everything after it.
    const pinned = nextWindow(win, TOTAL, heightOf, view(bottom - 700, { pinned: 1885 }), options);
    expect(pinned.start).toBe(1885);
    // View at their start: the last ones go.
    const atTop = nextWindow(win, TOTAL, heightOf, view(offsetOf(win, 1880) + 900), options);
    expect(atTop.start).toBe(1880);
    expect(atTop.end).toBe(1980);
    // Under the limit nothing is dropped, however far.
    const small: MessageWindow = { loadedStart: 1940, start: 1940, end: 2000 };
    expect(nextWindow(small, TOTAL, heightOf, view(offsetOf(small, 2000) - 700), options)).toBe(small);
  });

  it('renders where the view jumped to, then grows around it', () => {
    const win: MessageWindow = { loadedStart: 0, start: 1900, end: 2000 };
    const top = offsetOf(win, 500) + 10;
    const jumped = nextWindow(win, TOTAL, heightOf, view(top), options);
    expect(jumped.start).toBe(500);
    expect(offsetOf(jumped, jumped.end)).toBeGreaterThanOrEqual(top + 700);
    const { win: settled } = settle(jumped, () => view(top));
    expect(offsetOf(settled, settled.start)).toBeLessThanOrEqual(top - options.overscan);
    expect(offsetOf(settled, settled.end)).toBeGreaterThanOrEqual(top + 700 + options.overscan);
  });

  it('spacers stand for the loaded messages that are not rendered', () => {
    const win: MessageWindow = { loadedStart: 10, start: 12, end: 14 };
    expect(spacers(win, 16, heightOf)).toEqual({ above: heightOf(10) + heightOf(11), below: heightOf(14) + heightOf(15) });
    expect(spacers(openWindow(16, options), 16, heightOf)).toEqual({ above: 0, below: 0 });
  });
});

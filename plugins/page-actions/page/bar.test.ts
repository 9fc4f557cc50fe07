// @vitest-environment happy-dom
// The acting bar and the highlight as the page's scripts meet them: a host with a closed shadow
// root (nothing inside to read or click), synthetic clicks that do nothing, a host the page
// removes or restyles comes back, and 'off' leaves nothing behind.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PageEnv } from './agent';
import { barState, cutReason, highlight, HIGHLIGHT_MS, setBar } from './bar';
import { isOwnUi } from './own-ui';

function env(bidi = 'ltr'): PageEnv & { pressed: string[] } {
  const pressed: string[] = [];
  return {
    pressed,
    barButton: (button) => void pressed.push(button),
    words: (key) => (key === '@@bidi_dir' ? bidi : key === '@@ui_locale' ? 'en' : key),
  };
}

const hosts = () => [...document.documentElement.children].filter((el): el is HTMLElement => el instanceof HTMLElement).filter((el) => el.tagName.toLowerCase().startsWith('sidequest-'));
const tick = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => setBar('off', env()));

describe('acting bar', () => {
  it('is one host on <html> with a closed shadow root: the page sees no content and no buttons', () => {
    const e = env();
    setBar('acting', e);
    const [host] = hosts();
    expect(hosts()).toHaveLength(1);
    expect(host!.tagName.toLowerCase()).toMatch(/^sidequest-bar-[a-z0-9]+$/);
    expect(host!.shadowRoot).toBeNull();
    expect(host!.textContent).toBe('');
    expect(host!.innerHTML).toBe('');
    expect(document.querySelectorAll('button')).toHaveLength(0);
    expect(isOwnUi(host)).toBe(true);
    expect(host!.getAttribute('style')).toContain('position: fixed !important');
    expect(barState()).toBe('acting');
    // A script's click on the host (what elementFromPoint gives it) does nothing.
    host!.click();
    host!.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    expect(e.pressed).toEqual([]);
  });

  it('comes back when the page removes it or changes its attributes, and goes for good when set off', async () => {
    const e = env();
    setBar('paused', e, 'Sign in');
    const [host] = hosts();
    host!.remove();
    await tick();
    expect(hosts()).toEqual([host]);
    host!.setAttribute('style', 'display: none !important');
    host!.setAttribute('hidden', '');
    await tick();
    expect(host!.getAttribute('style')).toContain('display: block !important');
    expect(host!.hasAttribute('hidden')).toBe(false);
    setBar('off', e);
    await tick();
    expect(hosts()).toEqual([]);
    expect(barState()).toBe('off');
  });

  it('keeps one host across state changes', () => {
    const e = env('rtl');
    setBar('acting', e);
    const [host] = hosts();
    setBar('paused', e, 'Pick a seat');
    setBar('acting', e);
    expect(hosts()).toEqual([host]);
  });

  it('cuts a long reason to one line, on a word when one is near', () => {
    expect(cutReason('  Sign\n in  ')).toBe('Sign in');
    const long = cutReason('word '.repeat(100));
    expect(long.length).toBeLessThanOrEqual(160);
    expect(long.endsWith('word…')).toBe(true);
    expect(cutReason('x'.repeat(300)).length).toBe(160);
  });
});

describe('highlight', () => {
  it('covers nothing, is marked as ours, and goes away by itself', () => {
    vi.useFakeTimers();
    const button = document.createElement('button');
    document.body.append(button);
    button.getBoundingClientRect = () => ({ left: 10, top: 40, width: 80, height: 20, right: 90, bottom: 60, x: 10, y: 40, toJSON: () => ({}) });
    highlight(button, 'Click');
    const [host] = hosts();
    expect(host!.getAttribute('style')).toContain('pointer-events: none !important');
    expect(host!.shadowRoot).toBeNull();
    expect(isOwnUi(host)).toBe(true);
    expect(document.activeElement).not.toBe(host);
    vi.advanceTimersByTime(HIGHLIGHT_MS + 100);
    expect(hosts()).toEqual([]);
    vi.useRealTimers();
    button.remove();
  });
});

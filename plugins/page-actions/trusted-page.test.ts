// Trusted input on the page side: the page agent checks and aims as always, then hands the point,
// the key or the text to the background (the sender, faked here) instead of dispatching synthetic
// events; the acting bar lets the delivery through and ignores it. The mapping to CDP commands and
// the background's checks are in trusted-input.test.ts; the real thing in page-actions-trusted.test.mjs.
// @vitest-environment jsdom
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TrustedCommand } from './cdp-input';
import { installLayoutStandIn, record, agentCalls } from './page-stand-ins';

vi.mock('./page/outline', async () => (await import('./page-stand-ins')).outlineStandIn());
vi.mock('./page/refs', async (original) => (await import('./page-stand-ins')).refsStandIn(await original<typeof import('./page/refs')>()));

const { installPageAgent } = await import('./page/agent');
const { setBar } = await import('./page/bar');
const { topViewportPoint } = await import('./page/actionable');

beforeAll(() => installLayoutStandIn());

/** What the background was asked to deliver, and the bar host's pointer-events at that moment. */
const sent: Array<{ command: TrustedCommand; barPointer: string }> = [];
let failWith: string | undefined;
const barHost = () => [...document.documentElement.children].find((el) => /^sidequest-bar-/i.test(el.tagName)) as HTMLElement | undefined;
const env = {
  barButton: vi.fn(),
  words: (key: string) => key,
  trustedInput: vi.fn(async (command: TrustedCommand) => {
    sent.push({ command, barPointer: /pointer-events: none/.test(barHost()?.getAttribute('style') ?? '') ? 'none' : 'auto' });
    if (failWith) throw new Error(failWith);
  }),
};
let agent: ReturnType<typeof installPageAgent>;
const { ref, call } = agentCalls(() => agent);

beforeEach(() => {
  document.body.innerHTML = '';
  sent.length = 0;
  failWith = undefined;
  env.trustedInput.mockClear();
  agent = installPageAgent(env, window);
});

describe('trusted input on the page side', () => {
  it('a click: the checks first, then the point of the visible centre goes to the background, no synthetic event', async () => {
    document.body.innerHTML = '<button data-rect="40,60,100,30">Buy now</button>';
    const button = document.querySelector('button')!;
    const log = record(button);
    const reply = await call({ op: 'click', ref: ref(button), trusted: true, double: true, modifiers: ['Shift'] });
    expect(reply).toMatchObject({ ok: true, note: 'Double-clicked button "Buy now" with Shift held.' });
    expect(sent.map((s) => s.command)).toEqual([{ kind: 'click', x: 90, y: 75, button: 'left', clicks: 2, modifiers: ['Shift'] }]);
    expect(log).toEqual([]);
  });

  it('a covered or disabled element is refused before anything is delivered', async () => {
    document.body.innerHTML = '<button disabled data-rect="40,60,100,30">Buy now</button>';
    const reply = await call({ op: 'click', ref: ref(document.querySelector('button')!), trusted: true });
    expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(/disabled/) });
    expect(sent).toEqual([]);
  });

  it('fill: the field is focused and selected, the text goes as typing, Enter as a key; an empty text is Delete', async () => {
    document.body.innerHTML = '<input aria-label="Search" value="old" data-rect="10,10,200,24">';
    const input = document.querySelector('input')!;
    await call({ op: 'fill', ref: ref(input), text: 'blue mug', submit: true, trusted: true });
    expect(sent.map((s) => s.command)).toEqual([
      { kind: 'text', text: 'blue mug' },
      { kind: 'key', key: 'Enter' },
    ]);
    expect(document.activeElement).toBe(input);
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, 3]);
    sent.length = 0;
    await call({ op: 'fill', ref: ref(input), text: '', trusted: true });
    expect(sent.map((s) => s.command)).toEqual([{ kind: 'key', key: 'Delete' }]);
  });

  it('press_key and hover go as themselves; without `trusted` the synthetic events stay and nothing is sent', async () => {
    document.body.innerHTML = '<input aria-label="Name" data-rect="10,10,200,24"><a href="#x" data-rect="10,50,80,20">Menu</a>';
    const input = document.querySelector('input')!;
    await call({ op: 'press', key: 'Control+a', ref: ref(input), trusted: true });
    await call({ op: 'hover', ref: ref(document.querySelector('a')!), trusted: true });
    expect(sent.map((s) => s.command)).toEqual([
      { kind: 'key', key: 'Control+a' },
      { kind: 'hover', x: 50, y: 60 },
    ]);
    sent.length = 0;
    const log = record(input, [], ['keydown', 'keyup']);
    await call({ op: 'press', key: 'a', ref: ref(input) });
    expect(log).toEqual(['keydown', 'keyup']);
    expect(sent).toEqual([]);
  });

  it('the acting bar lets the delivery through (pointer-events: none) and takes it back after', async () => {
    setBar('acting', env);
    document.body.innerHTML = '<button data-rect="40,60,100,30">Buy now</button>';
    expect(barHost()?.getAttribute('style')).toMatch(/pointer-events: auto/);
    await call({ op: 'click', ref: ref(document.querySelector('button')!), trusted: true });
    expect(sent.map((s) => s.barPointer)).toEqual(['none']);
    expect(barHost()?.getAttribute('style')).toMatch(/pointer-events: auto/);
    setBar('off', env);
  });

  it('a delivery the background refuses fails the action with its words', async () => {
    document.body.innerHTML = '<button data-rect="40,60,100,30">Buy now</button>';
    failWith = 'Trusted input was not delivered: The tab left the site the action was approved for: nothing more was sent.';
    const reply = await call({ op: 'click', ref: ref(document.querySelector('button')!), trusted: true });
    expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(/left the site/) });
  });

  it('a point in a same-origin frame is moved by the frame\'s offset into the top viewport', () => {
    const frame = document.createElement('iframe');
    frame.setAttribute('data-rect', '100,200,300,300');
    document.body.append(frame);
    const inner = frame.contentDocument!;
    expect(topViewportPoint(inner, { x: 5, y: 7 })).toEqual({ x: 105, y: 207 });
    expect(topViewportPoint(document, { x: 5, y: 7 })).toEqual({ x: 5, y: 7 });
  });
});

// The hands that point (issue 41): clicks that land on what is on top, focus events where the
// document has no focus, drag by mouse moves, click_at/hover_at and their check against the card.
// HTML drag and drop needs a real DataTransfer (jsdom has none): the e2e test drives it on SortableJS.
// @vitest-environment jsdom
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installLayoutStandIn, record, agentCalls } from './page-stand-ins';

// The outline and the reference resolver are stand-ins (`page-stand-ins.ts`), so these tests pin
// the actions alone (the real ones have their own tests).
vi.mock('./page/outline', async () => (await import('./page-stand-ins')).outlineStandIn());
vi.mock('./page/refs', async (original) => (await import('./page-stand-ins')).refsStandIn(await original<typeof import('./page/refs')>()));
const highlights: Array<[Element, string]> = [];
vi.mock('./page/bar', () => ({
  setBar: vi.fn(),
  highlight: (element: Element, label: string) => highlights.push([element, label]),
}));

const { installPageAgent } = await import('./page/agent');

// jsdom lays nothing out: boxes come from `data-rect` (`page-stand-ins.ts`).
beforeAll(() => installLayoutStandIn());

const env = { barButton: vi.fn(), words: (key: string) => key };
let agent: ReturnType<typeof installPageAgent>;
const { ref, call } = agentCalls(() => agent);

beforeEach(() => {
  document.body.innerHTML = '';
  document.title = 'Test page';
  highlights.length = 0;
  agent = installPageAgent(env, window);
});
afterEach(() => {
  delete (document as { elementsFromPoint?: unknown }).elementsFromPoint;
  vi.useRealTimers();
});


// jsdom has no hit testing: the tests say what is on top at any point (`stack`), top first.
function onTop(...stack: Element[]) {
  (document as { elementsFromPoint?: unknown }).elementsFromPoint = () => [...stack, document.body, document.documentElement];
}

describe('a click lands where a finger would', () => {
  it('on what is on top at the middle: the link inside a jQuery UI tab\'s <li> gets the sequence', async () => {
    document.body.innerHTML = '<ul><li role="tab" tabindex="0" data-rect="10,10,100,30"><a href="#weather" tabindex="-1" data-rect="12,12,96,26">Weather</a></li></ul>';
    const li = document.querySelector('li')!;
    const link = document.querySelector('a')!;
    onTop(link, li);
    const targets: string[] = [];
    li.addEventListener('click', (event) => targets.push((event.target as Element).localName));
    const log = record(link, [], ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']);
    const reply = await call({ op: 'click', ref: ref(li) });
    expect(reply).toMatchObject({ ok: true });
    expect(log).toEqual(['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']);
    expect(targets).toEqual(['a']);
    expect(location.hash).toBe('#weather');
  });

  it('something else on top: refused, naming the cover; nothing is sent to either', async () => {
    document.body.innerHTML = '<button data-rect="10,10,100,30">Save</button><div role="dialog" aria-label="Cookies" data-rect="0,0,400,400">Accept?</div>';
    const button = document.querySelector('button')!;
    const cover = document.querySelector('div')!;
    onTop(cover);
    const log = record(button, [], ['mousedown', 'click']);
    const reply = await call({ op: 'click', ref: ref(button) });
    expect(reply).toMatchObject({ ok: false });
    expect(reply.error).toMatch(/covered by dialog "Cookies"/);
    expect(log).toEqual([]);
  });
});

describe('focus in a document that does not have it', () => {
  it('fires blur/focusout then focus/focusin once, in order, when the browser fired none', async () => {
    document.body.innerHTML = '<input id="name" aria-label="Name"><input id="guests" aria-label="Guests">';
    const name = document.getElementById('name')!;
    const guests = document.getElementById('guests')!;
    const log: string[] = [];
    for (const field of [name, guests]) for (const type of ['focus', 'blur', 'focusin', 'focusout']) field.addEventListener(type, (event) => log.push(`${field.id} ${event.type}${(event as FocusEvent).relatedTarget ? ` from/to ${((event as FocusEvent).relatedTarget as Element).id}` : ''}`));
    // Firefox with the sidebar in front: hasFocus() is false and .focus()/.blur() fire no events
    // (here: the native ones are swallowed before they reach the page).
    const hasFocus = vi.spyOn(document, 'hasFocus').mockReturnValue(false);
    const swallow = (event: Event) => {
      if (event.isTrusted) event.stopImmediatePropagation();
    };
    for (const type of ['focus', 'blur', 'focusin', 'focusout']) window.addEventListener(type, swallow, true);
    try {
      await call({ op: 'fill', ref: ref(name), text: 'Ada' });
      await call({ op: 'fill', ref: ref(guests), text: '2' });
    } finally {
      for (const type of ['focus', 'blur', 'focusin', 'focusout']) window.removeEventListener(type, swallow, true);
      hasFocus.mockRestore();
    }
    expect(log).toEqual(['name focus', 'name focusin', 'name blur from/to guests', 'name focusout from/to guests', 'guests focus from/to name', 'guests focusin from/to name']);
    expect(document.activeElement).toBe(guests);
  });

  it('adds nothing when the browser fired the events itself (the document has the focus)', async () => {
    document.body.innerHTML = '<input id="a" aria-label="A">';
    const a = document.getElementById('a')!;
    const log = record(a, [], ['focus', 'focusin']);
    await call({ op: 'fill', ref: ref(a), text: 'x' });
    expect(log).toEqual(['focus', 'focusin']);
  });
});

describe('drag with the mouse (jQuery UI sortable and slider)', () => {
  it('press on what is on top, moves with the button held in steps, release at the end; by an offset', async () => {
    document.body.innerHTML = '<div id="slider" data-rect="10,100,300,10"><span id="handle" tabindex="0" aria-label="Volume" data-rect="40,95,20,20"></span></div>';
    const handle = document.getElementById('handle')!;
    onTop(handle);
    const seen: Array<[string, number, number]> = [];
    for (const type of ['mousedown', 'mousemove', 'mouseup']) document.addEventListener(type, (event) => seen.push([event.type, (event as MouseEvent).clientX, (event as MouseEvent).buttons]));
    const reply = await call({ op: 'drag', ref: ref(handle), dx: 120 });
    expect(reply).toMatchObject({ ok: true });
    expect(reply.note).toMatch(/^Dragged .*Volume.* by 120, 0 px \(mouse moves with the button held\)\.$/);
    expect(seen[0]).toEqual(['mousemove', 50, 0]);
    const down = seen.findIndex(([type]) => type === 'mousedown');
    expect(seen[down]).toEqual(['mousedown', 50, 1]);
    const held = seen.slice(down + 1, -1);
    expect(held.length).toBeGreaterThanOrEqual(5);
    expect(held.every(([type, , buttons]) => type === 'mousemove' && buttons === 1)).toBe(true);
    expect(held.at(-1)![1]).toBe(170);
    expect(seen.at(-1)).toEqual(['mouseup', 170, 0]);
  });

  it('a draggable image whose mousedown the page cancels (jQuery UI) is dragged by mouse moves, not HTML drag and drop', async () => {
    document.body.innerHTML = '<img id="pic" alt="Cat" tabindex="0" data-rect="10,10,50,50">';
    const pic = document.getElementById('pic')!;
    onTop(pic);
    pic.addEventListener('mousedown', (event) => event.preventDefault());
    const log = record(document.documentElement, [], ['dragstart', 'mousemove', 'mouseup']);
    const reply = await call({ op: 'drag', ref: ref(pic), dx: 30, dy: 30 });
    expect(reply.note).toMatch(/mouse moves with the button held/);
    expect(log).not.toContain('dragstart');
    expect(log.at(-1)).toBe('mouseup');
  });

  it('refuses a drop target in another element\'s inside, and a drag with nowhere to go', async () => {
    document.body.innerHTML = '<ul><li tabindex="0" id="a">A <span tabindex="0" id="in">in</span></li></ul>';
    const a = document.getElementById('a')!;
    let reply = await call({ op: 'drag', ref: ref(a), toRef: ref(document.getElementById('in')!) });
    expect(reply.error).toMatch(/inside/);
    reply = await call({ op: 'drag', ref: ref(a) });
    expect(reply.error).toMatch(/Say where to drag/);
  });
});

describe('at a point of the screenshot', () => {
  // jsdom's window is 1024×768 at ratio 1; the screenshot the model saw was scaled to half.
  const shot = { width: 512, height: 384, captureWidth: 1024, captureHeight: 768 };

  it('maps the screenshot\'s pixels to CSS pixels and clicks what is there, with the point in the events', async () => {
    document.body.innerHTML = '<canvas role="img" aria-label="Sales" data-rect="0,0,600,300"></canvas>';
    const canvas = document.querySelector('canvas')!;
    onTop(canvas);
    const points: Array<[number, number]> = [];
    canvas.addEventListener('click', (event) => points.push([event.clientX, event.clientY]));
    const described = await call({ op: 'describeAt', x: 100, y: 50, shot });
    expect(described).toMatchObject({ ok: true, role: 'img', name: 'Sales', tag: 'canvas' });
    const reply = await call({ op: 'clickAt', x: 100, y: 50, shot });
    expect(reply).toMatchObject({ ok: true });
    expect(points).toEqual([[200, 100]]);
    expect(reply.note).toBe('Clicked at (100, 50) of the screenshot (200, 100 CSS px), on img "Sales".');
  });

  it('refuses when something else is at the point than the card said (a button slid under it)', async () => {
    document.body.innerHTML = '<button id="like" data-rect="100,80,120,40">Like</button><button id="delete" data-rect="100,80,120,40">Delete account</button>';
    const like = document.getElementById('like')!;
    const del = document.getElementById('delete')!;
    let clicked = '';
    document.addEventListener('click', (event) => (clicked = (event.target as Element).id));
    onTop(like);
    expect(await call({ op: 'describeAt', x: 80, y: 50, shot })).toMatchObject({ ok: true, name: 'Like' });
    onTop(del, like);
    const reply = await call({ op: 'clickAt', x: 80, y: 50, shot });
    expect(reply).toMatchObject({ ok: false });
    expect(reply.error).toMatch(/now button "Delete account".*not button "Like"/);
    expect(clicked).toBe('');
    // Renamed in place (the same element, other words): refused too.
    onTop(like);
    await call({ op: 'describeAt', x: 80, y: 50, shot });
    like.textContent = 'Delete account';
    expect((await call({ op: 'clickAt', x: 80, y: 50, shot })).error).toMatch(/not button "Like"/);
    expect(clicked).toBe('');
  });

  it('needs a screenshot, a point inside it, and the same viewport', async () => {
    document.body.innerHTML = '<p>Hi</p>';
    onTop(document.querySelector('p')!);
    expect((await call({ op: 'clickAt', x: 10, y: 10 })).error).toMatch(/call screenshot/);
    expect((await call({ op: 'clickAt', x: 600, y: 10, shot })).error).toMatch(/outside the last screenshot.*512×384/);
    expect((await call({ op: 'hoverAt', x: 10, y: 10, shot: { ...shot, captureWidth: 2000 } })).error).toMatch(/size or zoom changed/);
    const hovered = await call({ op: 'hoverAt', x: 10, y: 10, shot });
    expect(hovered.note).toMatch(/^Pointed at \(10, 10\)/);
  });
});

import type { ShotSize } from '../protocol';
import { ActionError, composedContains, ensureActionable, frameContentOffset, hiddenReason, hitAt, topViewportPoint } from './actionable';
import { show, type ActContext } from './act';
import { deliver } from './trusted';
import { BUTTON_MASK, BUTTON_NUMBER, NO_MODIFIERS, clickSequence, fire, focusByPress, hoverSequence, makeEvent, mouse, parentAcrossShadow, type Button, type Point } from './input';

/**
 * The hands that point (issue 41): `drag` from an element to another or by an offset, and a click
 * or a hover at a point of the last screenshot (`click_at`, `hover_at`), for what has no element
 * of its own to name (a canvas, a chart's bar, an SVG shape).
 *
 * Drag: the press lands on what is on top at the source's visible centre (as a click does). If the
 * element pressed (or its ancestor) is draggable after the press (`draggable=true`, a link, an
 * image; SortableJS sets `draggable` in its own `pointerdown`) and the page did not cancel the
 * mousedown (which stops a browser's drag and drop too), it is HTML drag and drop with a
 * real `DataTransfer`: dragstart, drag and dragenter/dragover/dragleave along the way, drop (when
 * the last dragover was accepted) and dragend. Otherwise (or when the page cancels dragstart) it
 * is what jQuery UI's sortable and slider listen to: pointer and mouse moves with the button held,
 * in several steps, then the release where the pointer is.
 *
 * Points: `click_at`'s x, y are in the pixels of the last full-tab screenshot, whose size the
 * background remembers per tab and sends (`Shot`); here they become CSS pixels of the top
 * viewport, hit-tested through open shadow roots and same-origin frames. `describeAt` names what
 * is there for the approval card and remembers it; the click refuses when something else is there
 * by then (a page that slides a "Delete" button under the point after the card was shown).
 */

/** The last full-tab screenshot's size: the JPEG's pixels and the captured (device) pixels. */
export type Shot = ShotSize;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One task's pause, not a timer's: a tab behind others (the page while the sidebar is in front)
 * has its timers slowed to one a second in Firefox, which would make each step of a drag a second.
 */
function nextTask(): Promise<void> {
  if (typeof MessageChannel !== 'function') return wait(0);
  return new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(0);
  });
}

/** A timer's pause after the press and after dragstart: SortableJS starts its drag on its next timer tick. */
const START_MS = 12;
/** How often a browser repeats dragover while the pointer rests (SortableJS ignores some for 30 ms after a move, by a timer). */
const REST_MS = 50;

/** The element that would be dragged by a press on `element`: itself or its closest draggable ancestor. */
export function draggableOf(element: Element): Element | null {
  for (let node: Element | null = element; node; node = parentAcrossShadow(node)) {
    if ((node as HTMLElement).draggable === true) return node;
  }
  return null;
}

function dragEvent(target: Element, type: string, point: Point, data: DataTransfer, related: Element | null = null): boolean {
  const view = target.ownerDocument.defaultView;
  const cancelable = !/^(dragleave|dragend)$/.test(type);
  const init: DragEventInit = { bubbles: true, cancelable, composed: true, view: view as Window, clientX: point.x, clientY: point.y, buttons: type === 'dragend' || type === 'drop' ? 0 : 1, dataTransfer: data, relatedTarget: related };
  const Ctor = (globalThis as { DragEvent?: typeof DragEvent }).DragEvent;
  return fire(target, Ctor ? makeEvent(Ctor, type, init) : makeEvent(MouseEvent, type, init));
}

/** The points from `a` to `b`, not counting `a`, about every 20 px (5 to 20 steps). */
function path(a: Point, b: Point): Point[] {
  const distance = Math.hypot(b.x - a.x, b.y - a.y);
  const steps = Math.min(20, Math.max(5, Math.ceil(distance / 20)));
  return Array.from({ length: steps }, (_, i) => ({ x: a.x + ((b.x - a.x) * (i + 1)) / steps, y: a.y + ((b.y - a.y) * (i + 1)) / steps }));
}

/** What the pointer is over at `point` of `doc` (the root element where nothing is). */
function under(doc: Document, point: Point): Element {
  return hitAt(doc, point.x, point.y) ?? doc.body ?? doc.documentElement;
}

export interface DragGoal {
  to?: Element;
  dx?: number;
  dy?: number;
}

export async function drag(ctx: ActContext, source: Element, goal: DragGoal): Promise<string> {
  const doc = source.ownerDocument;
  if (goal.to && goal.to.ownerDocument !== doc) throw new ActionError(`${ctx.describe(goal.to)} is in another frame than ${ctx.describe(source)}: a drag stays within one document.`);
  if (goal.to && composedContains(source, goal.to)) throw new ActionError(`${ctx.describe(goal.to)} is inside ${ctx.describe(source)}: drag it onto another element.`);
  if (!goal.to && !Number(goal.dx) && !Number(goal.dy)) throw new ActionError('Say where to drag: `to_ref`, or `dx`/`dy` in CSS pixels.');
  const start = ensureActionable(source, ctx.describe);
  let end: Point;
  if (goal.to) {
    const hidden = hiddenReason(goal.to);
    if (hidden) throw new ActionError(`${ctx.describe(goal.to)} cannot be dropped on: ${hidden}.`);
    const rect = goal.to.getBoundingClientRect();
    end = { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
    const view = doc.defaultView;
    if (view && (end.x < 0 || end.y < 0 || end.x > view.innerWidth || end.y > view.innerHeight)) {
      throw new ActionError(`${ctx.describe(goal.to)} is out of view while ${ctx.describe(source)} is in view: a drag cannot reach it (scroll the list so both show, or drag by an offset in steps).`);
    }
  } else {
    end = { x: start.x + (Number(goal.dx) || 0), y: start.y + (Number(goal.dy) || 0) };
  }
  const pressed = start.hit ?? source;
  show(source, ctx.label('drag'));
  const where = goal.to ? `onto ${ctx.name(goal.to)}` : `by ${Math.round(end.x - start.x)}, ${Math.round(end.y - start.y)} px`;
  // Trusted input: the browser's own press, moves and release. HTML drag and drop stays synthetic
  // (Chrome's debugger would start a drag session of the operating system, which it cannot finish).
  const native = draggableOf(pressed);
  if (ctx.trusted && !native) {
    await deliver(ctx, { kind: 'drag', path: [start, ...path(start, end)].map((p) => topViewportPoint(doc, p)) });
    ctx.pointer.last = under(doc, end);
    return `Dragged ${ctx.name(source)} ${where} (trusted mouse moves with the button held).`;
  }
  hoverSequence(pressed, start, NO_MODIFIERS, ctx.pointer.last);
  const down = { button: BUTTON_NUMBER.left, buttons: BUTTON_MASK.left, detail: 1 };
  mouse(pressed, 'pointerdown', start, NO_MODIFIERS, down);
  // A page that cancels mousedown (jQuery UI's mouse widgets do) stops the browser's own drag and drop.
  const defaultAllowed = mouse(pressed, 'mousedown', start, NO_MODIFIERS, down);
  if (defaultAllowed) focusByPress(pressed);
  await nextTask();
  const draggable = defaultAllowed && pressed.isConnected ? draggableOf(pressed) : null;
  let how = '';
  if (draggable) how = await dragAndDrop(doc, draggable, start, end);
  if (!how) how = await pointerDrag(doc, pressed, start, end);
  ctx.pointer.last = under(doc, end);
  return `Dragged ${ctx.name(source)} ${where} (${how}${ctx.trusted ? '; synthetic events: trusted input does not do HTML drag and drop' : ''}).`;
}

/** HTML drag and drop; '' when the page cancelled dragstart (then no drag began: the mouse moves instead). */
async function dragAndDrop(doc: Document, draggable: Element, start: Point, end: Point): Promise<string> {
  const data = new DataTransfer();
  const link = draggable.closest('a[href]') as HTMLAnchorElement | null;
  const address = link?.href || (draggable.localName === 'img' ? (draggable as HTMLImageElement).currentSrc || (draggable as HTMLImageElement).src : '');
  if (address) {
    // What the browser puts in a link's or an image's drag (the page may replace it in dragstart).
    data.setData('text/uri-list', address);
    data.setData('text/plain', address);
  }
  if (!dragEvent(draggable, 'dragstart', start, data)) return '';
  await wait(START_MS);
  let over: Element | null = null;
  let accepted = false;
  const points = [...path(start, end), end, end, end];
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!;
    dragEvent(draggable, 'drag', point, data);
    const hit = under(doc, point);
    if (hit !== over) {
      dragEvent(hit, 'dragenter', point, data, over);
      if (over?.isConnected) dragEvent(over, 'dragleave', point, data, hit);
      over = hit;
    }
    accepted = !dragEvent(over, 'dragover', point, data);
    await (i >= points.length - 3 ? wait(REST_MS) : nextTask());
  }
  let dropped = false;
  if (over && accepted) {
    dragEvent(over, 'drop', end, data);
    dropped = true;
  } else if (over?.isConnected) {
    dragEvent(over, 'dragleave', end, data);
  }
  dragEvent(draggable, 'dragend', end, data);
  return dropped ? 'HTML drag and drop; the page took the drop' : 'HTML drag and drop; the page did not accept a drop there';
}

/** Mouse and pointer moves with the button held, then the release (jQuery UI, sliders, pointer-driven sortables). */
async function pointerDrag(doc: Document, pressed: Element, start: Point, end: Point): Promise<string> {
  let over = pressed;
  const held = { button: BUTTON_NUMBER.left, buttons: BUTTON_MASK.left };
  for (const point of path(start, end)) {
    const hit = under(doc, point);
    if (hit !== over) {
      if (over.isConnected) {
        mouse(over, 'pointerout', point, NO_MODIFIERS, { ...held, relatedTarget: hit });
        mouse(over, 'mouseout', point, NO_MODIFIERS, { ...held, relatedTarget: hit });
      }
      mouse(hit, 'pointerover', point, NO_MODIFIERS, { ...held, relatedTarget: over });
      mouse(hit, 'mouseover', point, NO_MODIFIERS, { ...held, relatedTarget: over });
      over = hit;
    }
    // `button` of a move is 0 with `buttons` held: what a browser sends (jQuery UI reads `which`).
    mouse(over, 'pointermove', point, NO_MODIFIERS, { button: 0, buttons: held.buttons });
    mouse(over, 'mousemove', point, NO_MODIFIERS, { button: 0, buttons: held.buttons });
    await nextTask();
  }
  const release = under(doc, end);
  const up = { button: BUTTON_NUMBER.left, buttons: 0, detail: 1 };
  mouse(release, 'pointerup', end, NO_MODIFIERS, up);
  mouse(release, 'mouseup', end, NO_MODIFIERS, up);
  return 'mouse moves with the button held';
}

// ---------------------------------------------------------------------------------------------
// At a point

/** The CSS point of the top viewport for a point of the screenshot, or an error worded for the model. */
export function cssPoint(win: Window, x: number, y: number, shot: Shot | undefined): Point {
  if (!shot || !(shot.width > 0) || !(shot.height > 0)) {
    throw new ActionError('There is no screenshot of this tab to point in: call screenshot (without ref) first, then give x, y in its pixels.');
  }
  if (!(x >= 0 && y >= 0 && x < shot.width && y < shot.height)) {
    throw new ActionError(`(${x}, ${y}) is outside the last screenshot of this tab, which is ${shot.width}×${shot.height} pixels.`);
  }
  const ratio = win.devicePixelRatio || 1;
  // The captured pixels over the device pixel ratio are the viewport's CSS size at capture time.
  const shotCssWidth = shot.captureWidth / ratio;
  const shotCssHeight = shot.captureHeight / ratio;
  if (Math.abs(shotCssWidth - win.innerWidth) > 24 || Math.abs(shotCssHeight - win.innerHeight) > 24) {
    throw new ActionError(`The tab's size or zoom changed since the last screenshot (it showed ${Math.round(shotCssWidth)}×${Math.round(shotCssHeight)} CSS px, the tab now has ${win.innerWidth}×${win.innerHeight}): take a new screenshot first.`);
  }
  return { x: (x * win.innerWidth) / shot.width, y: (y * win.innerHeight) / shot.height };
}

/** What is on top at a point of the top viewport, down through open shadow roots and same-origin frames, with the point in its own viewport. */
export function deepHit(doc: Document, point: Point): { element: Element; point: Point } | null {
  let current = doc;
  let at = point;
  for (let depth = 0; depth < 16; depth++) {
    const hit = hitAt(current, at.x, at.y);
    if (!hit) return null;
    if (hit.localName !== 'iframe' && hit.localName !== 'frame') return { element: hit, point: at };
    let inner: Document | null = null;
    try {
      inner = (hit as HTMLIFrameElement).contentDocument;
    } catch {
      inner = null;
    }
    if (!inner) return { element: hit, point: at };
    const offset = frameContentOffset(hit);
    at = { x: at.x - offset.x, y: at.y - offset.y };
    current = inner;
  }
  return null;
}

/** A frame from another site at the point: its content is not this agent's to reach. */
function foreignFrame(element: Element): boolean {
  if (element.localName !== 'iframe' && element.localName !== 'frame') return false;
  try {
    return !(element as HTMLIFrameElement).contentDocument;
  } catch {
    return true;
  }
}

/** The element a `describeAt` named at each point (of the screenshot), and its name then. */
export interface PointMemory {
  described: Map<string, { element: WeakRef<Element>; name: string }>;
}

const pointKey = (x: number, y: number, shot: Shot | undefined) => `${x},${y}@${shot?.width}x${shot?.height}`;

/** What a click at (x, y) of the screenshot would land on (for the card), remembered for `atPoint`. */
export function describeAt(win: Window, memory: PointMemory, x: number, y: number, shot: Shot | undefined, name: (element: Element) => string): Element {
  const found = deepHit(win.document, cssPoint(win, x, y, shot));
  if (!found) throw new ActionError(`Nothing of the page is at (${x}, ${y}).`);
  memory.described.set(pointKey(x, y, shot), { element: new WeakRef(found.element), name: name(found.element) });
  if (memory.described.size > 64) memory.described.delete(memory.described.keys().next().value!);
  return found.element;
}

export interface AtPointOptions {
  button?: Button;
  double?: boolean;
  hover?: boolean;
}

/** Clicks (or hovers) at (x, y) of the last screenshot, on what is on top there; refuses if that is not what the card named. */
export function atPoint(ctx: ActContext, win: Window, memory: PointMemory, x: number, y: number, shot: Shot | undefined, options: AtPointOptions = {}): string | Promise<string> {
  const css = cssPoint(win, x, y, shot);
  const found = deepHit(win.document, css);
  if (!found) throw new ActionError(`Nothing of the page is at (${x}, ${y}) of the screenshot.`);
  const { element, point } = found;
  if (foreignFrame(element)) throw new ActionError(`(${x}, ${y}) is over a frame from another site (${ctx.describe(element)}): the agent cannot act inside it.`);
  const said = memory.described.get(pointKey(x, y, shot));
  if (said) {
    const before = said.element.deref();
    if (before !== element || ctx.name(element) !== said.name) {
      throw new ActionError(`At (${x}, ${y}) there is now ${ctx.describe(element)}, not ${said.name} as when the action was approved: nothing was ${options.hover ? 'pointed at' : 'clicked'}. Take a new screenshot and look again.`);
    }
  }
  const where = `at (${x}, ${y}) of the screenshot (${Math.round(css.x)}, ${Math.round(css.y)} CSS px)`;
  const button = options.button ?? 'left';
  const word = options.hover ? 'Pointed' : options.double ? 'Double-clicked' : button === 'right' ? 'Right-clicked' : button === 'middle' ? 'Middle-clicked' : 'Clicked';
  const done = () => {
    ctx.pointer.last = element;
    return `${word} ${where}, ${options.hover ? 'over' : 'on'} ${ctx.name(element)}.`;
  };
  show(element, ctx.label(options.hover ? 'hover' : 'click'));
  // Trusted input: at the CSS point of the top viewport, where the browser hit-tests as we did.
  if (ctx.trusted) return deliver(ctx, options.hover ? { kind: 'hover', ...css } : { kind: 'click', ...css, button, clicks: options.double ? 2 : 1 }).then(done);
  if (options.hover) hoverSequence(element, point, NO_MODIFIERS, ctx.pointer.last);
  else clickSequence(element, point, { button, double: options.double, previous: ctx.pointer.last });
  return done();
}

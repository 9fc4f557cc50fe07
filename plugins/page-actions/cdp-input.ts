import { parseKey, type KeyModifiers } from './key-spec';

/**
 * Trusted input (Chrome): what the page agent asks the background to deliver through
 * `chrome.debugger`, and the Chrome DevTools Protocol commands each becomes. Pure (no browser API):
 * the unit tests check the mapping with the sender faked. Only `Input.*` methods come out of here
 * (`INPUT_METHODS`); `trusted-input.ts` refuses anything else before it reaches the debugger.
 *
 * Points are CSS pixels of the tab's top viewport (the page agent adds same-origin frames'
 * offsets), which is what `Input.dispatchMouseEvent` takes; Chrome applies the page's zoom itself.
 */

export interface CssPoint {
  x: number;
  y: number;
}

export type TrustedButton = 'left' | 'right' | 'middle';

/** One delivery the page agent asks for, after its own checks (`ensureActionable`, the cover check). */
export type TrustedCommand =
  | { kind: 'click'; x: number; y: number; button?: TrustedButton; clicks?: 1 | 2; modifiers?: string[] }
  | { kind: 'hover'; x: number; y: number }
  /** A canonical key press ("Enter", "Control+a", "Shift+Tab": `key-spec.ts`). */
  | { kind: 'key'; key: string }
  /** Text typed at the caret (`Input.insertText`: one `beforeinput`/`input` as an IME commit). */
  | { kind: 'text'; text: string }
  /** Press at the first point, move through the others with the button held, release at the last. */
  | { kind: 'drag'; path: CssPoint[] };

/** The only methods trusted input may send. */
export const INPUT_METHODS = ['Input.dispatchMouseEvent', 'Input.dispatchKeyEvent', 'Input.insertText'] as const;
export type InputMethod = (typeof INPUT_METHODS)[number];

export interface CdpCommand {
  method: InputMethod;
  params: Record<string, unknown>;
}

/** Longest text one `text` command types (fill's own limit is lower). */
export const MAX_TEXT = 100_000;
/** Most points of a drag. */
export const MAX_PATH = 64;
/** Coordinates beyond this are refused (no viewport is this large). */
const MAX_COORD = 100_000;

/** CDP's modifier bits. */
const MODIFIER_BITS: Record<keyof KeyModifiers, number> = { altKey: 1, ctrlKey: 2, metaKey: 4, shiftKey: 8 };
const BUTTON_BITS: Record<TrustedButton, number> = { left: 1, right: 2, middle: 4 };
const MODIFIER_KEYS: Array<[keyof KeyModifiers, string, string, number]> = [
  ['ctrlKey', 'Control', 'ControlLeft', 17],
  ['altKey', 'Alt', 'AltLeft', 18],
  ['metaKey', 'Meta', 'MetaLeft', 91],
  ['shiftKey', 'Shift', 'ShiftLeft', 16],
];
const MODIFIER_NAMES: Record<string, keyof KeyModifiers> = { control: 'ctrlKey', ctrl: 'ctrlKey', alt: 'altKey', meta: 'metaKey', shift: 'shiftKey' };

function coord(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < -MAX_COORD || value > MAX_COORD) throw new Error(`Trusted input: ${what} is not a point of the viewport.`);
  return Math.round(value * 100) / 100;
}

function point(p: unknown): CssPoint {
  const q = p as CssPoint | null;
  return { x: coord(q?.x, 'x'), y: coord(q?.y, 'y') };
}

/** The CDP bit mask of modifier names ("Control", "Shift"…); unknown names are refused. */
export function modifierMask(names: readonly string[] | undefined): number {
  let mask = 0;
  for (const name of names ?? []) {
    const flag = MODIFIER_NAMES[String(name).toLowerCase()];
    if (!flag) throw new Error(`Trusted input: "${String(name).slice(0, 20)}" is not a modifier.`);
    mask |= MODIFIER_BITS[flag];
  }
  return mask;
}

function mouse(type: string, at: CssPoint, extra: Record<string, unknown> = {}): CdpCommand {
  return { method: 'Input.dispatchMouseEvent', params: { type, x: at.x, y: at.y, ...extra } };
}

/** A click (one or two) at a point: the mouse moves there, then presses and releases (`clickCount` 1, then 2). */
function click(at: CssPoint, button: TrustedButton, clicks: 1 | 2, modifiers: number): CdpCommand[] {
  const out: CdpCommand[] = [mouse('mouseMoved', at, { modifiers, button: 'none', buttons: 0 })];
  for (let count = 1; count <= clicks; count++) {
    out.push(mouse('mousePressed', at, { modifiers, button, buttons: BUTTON_BITS[button], clickCount: count }));
    out.push(mouse('mouseReleased', at, { modifiers, button, buttons: 0, clickCount: count }));
  }
  return out;
}

/** A key press as a keyboard makes it: the modifiers down, the key (with its text when it types), the key up, the modifiers up. */
export function keyCommands(spec: string): CdpCommand[] {
  const { key, mods } = parseKey(spec);
  const out: CdpCommand[] = [];
  let held = 0;
  const downMods: Array<[string, string, number, number]> = [];
  for (const [flag, name, code, keyCode] of MODIFIER_KEYS) {
    if (!mods[flag]) continue;
    held |= MODIFIER_BITS[flag];
    downMods.push([name, code, keyCode, MODIFIER_BITS[flag]]);
    out.push({ method: 'Input.dispatchKeyEvent', params: { type: 'rawKeyDown', modifiers: held, key: name, code, windowsVirtualKeyCode: keyCode, nativeVirtualKeyCode: keyCode, location: 1 } });
  }
  const shortcut = mods.ctrlKey || mods.altKey || mods.metaKey;
  // A key that types (and Enter's "\r") goes as keyDown with its text; a shortcut or a named key as rawKeyDown.
  const text = !shortcut && key.text ? key.text : '';
  const base = { modifiers: held, key: key.key, code: key.code, windowsVirtualKeyCode: key.keyCode, nativeVirtualKeyCode: key.keyCode };
  out.push({ method: 'Input.dispatchKeyEvent', params: text ? { type: 'keyDown', ...base, text, unmodifiedText: text } : { type: 'rawKeyDown', ...base } });
  out.push({ method: 'Input.dispatchKeyEvent', params: { type: 'keyUp', ...base } });
  for (const [name, code, keyCode, bit] of downMods.reverse()) {
    held &= ~bit;
    out.push({ method: 'Input.dispatchKeyEvent', params: { type: 'keyUp', modifiers: held, key: name, code, windowsVirtualKeyCode: keyCode, nativeVirtualKeyCode: keyCode, location: 1 } });
  }
  return out;
}

/**
 * The CDP commands of one delivery, checked: finite points, known buttons and modifiers, a key
 * that exists, text within bounds. Throws an Error worded for the model on anything else.
 */
export function cdpCommands(command: TrustedCommand): CdpCommand[] {
  switch (command?.kind) {
    case 'click': {
      const button = command.button ?? 'left';
      if (!(button in BUTTON_BITS)) throw new Error('Trusted input: unknown mouse button.');
      return click(point(command), button, command.clicks === 2 ? 2 : 1, modifierMask(command.modifiers));
    }
    case 'hover':
      return [mouse('mouseMoved', point(command), { button: 'none', buttons: 0 })];
    case 'key':
      if (typeof command.key !== 'string' || !command.key) throw new Error('Trusted input: no key.');
      return keyCommands(command.key);
    case 'text':
      if (typeof command.text !== 'string' || command.text.length > MAX_TEXT) throw new Error('Trusted input: the text is missing or too long.');
      return command.text ? [{ method: 'Input.insertText', params: { text: command.text } }] : [];
    case 'drag': {
      const path = Array.isArray(command.path) ? command.path.map(point) : [];
      if (path.length < 2 || path.length > MAX_PATH) throw new Error('Trusted input: a drag needs 2 to 64 points.');
      const [first] = path as [CssPoint];
      const last = path[path.length - 1]!;
      return [
        mouse('mouseMoved', first, { button: 'none', buttons: 0 }),
        mouse('mousePressed', first, { button: 'left', buttons: 1, clickCount: 1 }),
        ...path.slice(1).map((p) => mouse('mouseMoved', p, { button: 'left', buttons: 1 })),
        mouse('mouseReleased', last, { button: 'left', buttons: 0, clickCount: 1 }),
      ];
    }
    default:
      throw new Error('Trusted input: unknown command.');
  }
}

/**
 * Key names, one definition for both sides: the background's approval card and sensitive rule
 * (`words.ts`, through `press_key`'s `prepare`, which makes the key canonical once) and the page
 * agent that presses it (`page/keys.ts`). Pure: no DOM, safe to import anywhere.
 *
 * Enter has other names a model (or a page's words) may use: `Return`, `NumpadEnter`, and the
 * characters a keyboard's Enter types (`\r`, `\n`, `\r\n`), whose keypress old "Enter to send"
 * handlers read as key code 13. They all become `Enter`, so the card says "Enter" and the
 * sensitive rule sees it. Other control characters name no key and are refused.
 */

export interface Key {
  key: string;
  code: string;
  keyCode: number;
  /** The character it types (for keypress and the default action), '' for none. */
  text: string;
}

export interface KeyModifiers {
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

const NAMED: Record<string, [code: string, keyCode: number, text?: string]> = {
  Enter: ['Enter', 13, '\r'],
  Tab: ['Tab', 9],
  Escape: ['Escape', 27],
  Backspace: ['Backspace', 8],
  Delete: ['Delete', 46],
  ' ': ['Space', 32, ' '],
  ArrowLeft: ['ArrowLeft', 37],
  ArrowUp: ['ArrowUp', 38],
  ArrowRight: ['ArrowRight', 39],
  ArrowDown: ['ArrowDown', 40],
  Home: ['Home', 36],
  End: ['End', 35],
  PageUp: ['PageUp', 33],
  PageDown: ['PageDown', 34],
  Insert: ['Insert', 45],
  Control: ['ControlLeft', 17],
  Shift: ['ShiftLeft', 16],
  Alt: ['AltLeft', 18],
  Meta: ['MetaLeft', 91],
  ContextMenu: ['ContextMenu', 93],
};
for (let i = 1; i <= 12; i++) NAMED[`F${i}`] = [`F${i}`, 111 + i];

const ALIASES: Record<string, string> = {
  esc: 'Escape', escape: 'Escape', return: 'Enter', enter: 'Enter', numpadenter: 'Enter', 'numpad enter': 'Enter', kp_enter: 'Enter',
  space: ' ', spacebar: ' ', tab: 'Tab',
  up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight', arrowup: 'ArrowUp', arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft', arrowright: 'ArrowRight', del: 'Delete', delete: 'Delete', backspace: 'Backspace',
  home: 'Home', end: 'End', pageup: 'PageUp', pagedown: 'PageDown', insert: 'Insert', contextmenu: 'ContextMenu',
};
/** Characters that name a key rather than type one: what Enter and Tab type. */
const CONTROL_KEYS: Record<string, string> = { '\r': 'Enter', '\n': 'Enter', '\r\n': 'Enter', '\t': 'Tab' };
const MODIFIER_ALIASES: Record<string, keyof KeyModifiers> = {
  control: 'ctrlKey', ctrl: 'ctrlKey', shift: 'shiftKey', alt: 'altKey', option: 'altKey', meta: 'metaKey',
  cmd: 'metaKey', command: 'metaKey', super: 'metaKey', win: 'metaKey',
};
const PUNCTUATION_CODES: Record<string, [string, number]> = {
  '-': ['Minus', 189], '=': ['Equal', 187], '[': ['BracketLeft', 219], ']': ['BracketRight', 221], '\\': ['Backslash', 220],
  ';': ['Semicolon', 186], "'": ['Quote', 222], ',': ['Comma', 188], '.': ['Period', 190], '/': ['Slash', 191], '`': ['Backquote', 192],
};

const NO_MODIFIERS: KeyModifiers = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };

const UNKNOWN_KEY =
  'Use a KeyboardEvent.key name ("Enter", "Escape", "Tab", "Backspace", "Delete", "ArrowDown", "Home", "PageDown", "F5") or one character ("a"), with modifiers joined by "+" ("Control+a", "Shift+Tab").';

/** A key name for an error: control characters as `\u….` escapes, cut. */
function shown(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.slice(0, 40).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Parses "Control+a", "Shift+Tab", "Escape", "ArrowDown", "\r"; throws an Error worded for the model. */
export function parseKey(spec: string): { key: Key; mods: KeyModifiers } {
  const raw = String(spec);
  // The characters Enter and Tab type are those keys, whole ("\r\n" is one Enter).
  if (CONTROL_KEYS[raw]) return { key: keyFor(CONTROL_KEYS[raw], NO_MODIFIERS), mods: { ...NO_MODIFIERS } };
  let parts = raw.split('+');
  // "Control++" and "+" name the plus key itself.
  if (raw.endsWith('+')) parts = [...raw.slice(0, raw.endsWith('++') ? -2 : -1).split('+').filter(Boolean), '+'];
  const mods: KeyModifiers = { ...NO_MODIFIERS };
  const name = parts.pop() ?? '';
  for (const part of parts) {
    const flag = MODIFIER_ALIASES[part.trim().toLowerCase()];
    if (!flag) throw new Error(`"${shown(part)}" in "${shown(raw)}" is not a modifier: use Control, Shift, Alt or Meta, joined by "+" ("Control+a", "Shift+Tab").`);
    mods[flag] = true;
  }
  return { key: keyFor(CONTROL_KEYS[name] ?? name, mods), mods };
}

function keyFor(name: string, mods: KeyModifiers): Key {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw new Error(`"${shown(name)}" is a control character, not a key. ${UNKNOWN_KEY}`);
  if (name.length === 1) {
    let char = name;
    if (/[a-z]/i.test(char)) {
      char = mods.shiftKey ? char.toUpperCase() : char;
      return { key: char, code: `Key${char.toUpperCase()}`, keyCode: char.toUpperCase().charCodeAt(0), text: char };
    }
    if (/\d/.test(char)) return { key: char, code: `Digit${char}`, keyCode: char.charCodeAt(0), text: char };
    if (char === ' ') return { key: ' ', code: 'Space', keyCode: 32, text: ' ' };
    const [code, keyCode] = PUNCTUATION_CODES[char] ?? ['', 0];
    return { key: char, code, keyCode, text: char };
  }
  const canonical = NAMED[name] ? name : ALIASES[name.toLowerCase()] ?? (MODIFIER_ALIASES[name.toLowerCase()] ? capitalised(name) : '');
  const entry = NAMED[canonical];
  if (!entry) throw new Error(`Unknown key "${shown(name)}". ${UNKNOWN_KEY}`);
  return { key: canonical, code: entry[0], keyCode: entry[1], text: entry[2] ?? '' };
}

function capitalised(name: string): string {
  const lower = name.toLowerCase();
  if (lower === 'ctrl') return 'Control';
  if (lower === 'cmd' || lower === 'command') return 'Meta';
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

/**
 * The key press as one canonical name, the same for the card and the page: modifiers in a fixed
 * order, then the key (`Space` for the space bar, `Enter` for every name of Enter). Throws the
 * model's error for a key that does not exist. Canonical names parse to themselves.
 */
export function canonicalKey(spec: string): string {
  const { key, mods } = parseKey(spec);
  const held = [mods.ctrlKey && 'Control', mods.altKey && 'Alt', mods.metaKey && 'Meta', mods.shiftKey && 'Shift'].filter(Boolean);
  const name = key.key === ' ' ? 'Space' : key.key === '+' && held.length ? '+' : key.key;
  // "Control++" keeps the plus key apart from the joining "+".
  return held.length ? `${held.join('+')}+${name}` : name;
}

/** What a canonical key press does that the card and the outbound rule care about. */
export function keyEffect(spec: string): { presses: boolean; enter: boolean; typed?: string } {
  const { key, mods } = parseKey(spec);
  const shortcut = mods.ctrlKey || mods.metaKey || mods.altKey;
  // Enter and Space press buttons and submit forms (Control+Enter sends mail in many apps).
  const presses = key.key === 'Enter' || key.key === ' ';
  // A key that types a character puts it into the page (Enter's '\r' is a press, not text).
  const typed = !shortcut && key.text && key.key !== 'Enter' ? key.text : undefined;
  return { presses, enter: key.key === 'Enter', ...(typed ? { typed } : {}) };
}

// @vitest-environment jsdom
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { agentCalls } from './page-stand-ins';

// Issue 41's hands for choosing, text, files and dialogs, page side (`page/forms.ts`,
// `page/dialogs*.ts`, `page/clipboard-main.ts`, several values in `page/act.ts`), through the page
// agent as the background calls it. jsdom lays nothing out (every element gets a 100×20 box unless
// hidden) and has no DataTransfer or ClipboardEvent: the small stand-ins below hold text only (the
// real ones, and files, are exercised in both browsers by tests/e2e/page-actions-forms.test.mjs).
vi.mock('./page/outline', () => ({
  buildOutline: () => ({ text: '', nodes: 0, truncated: false }),
  roleAndName: (element: Element) => ({ role: element.getAttribute('role') ?? element.localName, name: (element.getAttribute('aria-label') ?? element.textContent ?? '').trim() }),
}));
vi.mock('./page/bar', () => ({ setBar: vi.fn(), highlight: vi.fn() }));

class TextTransfer {
  private data = new Map<string, string>();
  get types() {
    return [...this.data.keys()];
  }
  setData(type: string, value: string) {
    this.data.set(type, value);
  }
  getData(type: string) {
    return this.data.get(type) ?? '';
  }
}
class TextClipboardEvent extends Event {
  clipboardData: TextTransfer | null;
  constructor(type: string, init: EventInit & { clipboardData?: TextTransfer | null } = {}) {
    super(type, init);
    this.clipboardData = init.clipboardData ?? null;
  }
}
Object.assign(globalThis, { DataTransfer: TextTransfer, ClipboardEvent: TextClipboardEvent });
Object.assign(window, { DataTransfer: TextTransfer, ClipboardEvent: TextClipboardEvent });

// Every execCommand the page agent makes (its natives are taken when its modules load: spy first).
let execCommands: string[] = [];
const exec = (Document.prototype as { execCommand?: (...a: unknown[]) => boolean }).execCommand;
Document.prototype.execCommand = function (this: Document, command: string, ...rest: unknown[]) {
  execCommands.push(command);
  return exec ? exec.call(this, command, ...rest) : false;
};

const { installPageAgent } = await import('./page/agent');
const { installDialogHooks } = await import('./page/dialogs-main');
const { installClipboardBridge } = await import('./page/clipboard-main');

function shown(element: Element): boolean {
  for (let node: Element | null = element; node; node = node.parentElement) if (node.hasAttribute('hidden')) return false;
  return true;
}
const box = (element: Element) => ({ x: 10, y: 10, left: 10, top: 10, width: shown(element) ? 100 : 0, height: shown(element) ? 20 : 0, right: 110, bottom: 30, toJSON() {} }) as DOMRect;

// What the page's real alert/confirm/prompt would do (the browser's dialogs, for the user).
const realDialogs = { alert: vi.fn(), confirm: vi.fn(() => true), prompt: vi.fn(() => 'typed by the user') };
// The user's system clipboard: nothing here may touch it.
const systemClipboard = { writeText: vi.fn(), readText: vi.fn(), write: vi.fn(), read: vi.fn() };

beforeAll(() => {
  Element.prototype.getBoundingClientRect = function (this: Element) {
    return box(this);
  };
  Element.prototype.getClientRects = function (this: Element) {
    return (shown(this) ? [box(this)] : []) as unknown as DOMRectList;
  };
  Object.assign(window, realDialogs);
  Object.defineProperty(navigator, 'clipboard', { value: systemClipboard, configurable: true });
  installDialogHooks(window as Window & typeof globalThis);
  installClipboardBridge(window as Window & typeof globalThis);
});

let agent: ReturnType<typeof installPageAgent>;
const { ref, call } = agentCalls(() => agent);

beforeEach(() => {
  document.body.innerHTML = '';
  execCommands = [];
  vi.clearAllMocks();
  agent = installPageAgent({ barButton: vi.fn(), words: (key: string) => key }, window as Window & typeof globalThis);
});
afterEach(() => {
  // No test reads or writes the user's clipboard, through the Clipboard API or execCommand.
  for (const fn of Object.values(systemClipboard)) expect(fn).not.toHaveBeenCalled();
  expect(execCommands.filter((c) => /^(copy|cut|paste)$/i.test(c))).toEqual([]);
});

describe('select_option with several values', () => {
  it('a <select multiple> gets exactly the options named, by value or label, with input and change', async () => {
    document.body.innerHTML = '<select multiple><option value="c" selected>Cheese</option><option value="o">Olives</option><option value="b">Basil</option></select>';
    const select = document.querySelector('select')!;
    const events: string[] = [];
    for (const type of ['input', 'change']) select.addEventListener(type, () => events.push(type));
    const reply = await call({ op: 'select', ref: ref(select), values: ['o', 'Basil'] });
    expect(reply).toMatchObject({ ok: true });
    expect([...select.selectedOptions].map((o) => o.value)).toEqual(['o', 'b']);
    expect(events).toEqual(['input', 'change']);
    expect(reply.note).toMatch(/Chose "Olives", "Basil"/);
  });

  it('names the options it cannot find, and refuses several for a single select', async () => {
    document.body.innerHTML = '<select multiple><option value="c">Cheese</option></select><select id="one"><option>A</option><option>B</option></select>';
    const missing = await call({ op: 'select', ref: ref(document.querySelector('select')!), values: ['c', 'Ham'] });
    expect(missing).toMatchObject({ ok: false });
    expect(missing.error).toMatch(/no option "Ham"/);
    const single = await call({ op: 'select', ref: ref(document.getElementById('one')!), values: ['A', 'B'] });
    expect(single.error).toMatch(/one option only/);
  });

  it('a listbox with aria-multiselectable: clicks the options whose state differs', async () => {
    document.body.innerHTML = '<ul role="listbox" aria-multiselectable="true" aria-label="Tags"><li role="option" aria-selected="true">red</li><li role="option" aria-selected="false">green</li><li role="option" aria-selected="false">blue</li></ul>';
    for (const option of document.querySelectorAll('[role=option]')) {
      option.addEventListener('click', () => option.setAttribute('aria-selected', option.getAttribute('aria-selected') === 'true' ? 'false' : 'true'));
    }
    const reply = await call({ op: 'select', ref: ref(document.querySelector('[role=listbox]')!), values: ['green', 'blue'] });
    expect(reply.note).toMatch(/Chose "green", "blue"/);
    expect([...document.querySelectorAll('[aria-selected=true]')].map((o) => o.textContent)).toEqual(['green', 'blue']);
  });
});

describe('select_text', () => {
  it('in a textarea: the first occurrence, through setSelectionRange', async () => {
    document.body.innerHTML = '<textarea>one two one</textarea>';
    const area = document.querySelector('textarea')!;
    const reply = await call({ op: 'selectText', ref: ref(area), text: 'one', start: undefined });
    expect([area.selectionStart, area.selectionEnd]).toEqual([0, 3]);
    expect(reply.note).toMatch(/Selected "one" \(characters 0–3\)/);
    await call({ op: 'selectText', ref: ref(area), start: 4, end: 11 });
    expect(area.value.slice(area.selectionStart!, area.selectionEnd!)).toBe('two one');
  });

  it('in an element: a DOM range across text nodes, with the mouse press and release around it', async () => {
    document.body.innerHTML = '<div contenteditable="true"><p>Hello <b>brave</b> world</p></div>';
    const editor = document.querySelector('div')!;
    const seen: string[] = [];
    for (const type of ['mousedown', 'mouseup']) editor.addEventListener(type, () => seen.push(type));
    const reply = await call({ op: 'selectText', ref: ref(editor), text: 'lo brave wo' });
    expect(reply).toMatchObject({ ok: true });
    expect(window.getSelection()!.toString()).toBe('lo brave wo');
    expect(seen).toEqual(['mousedown', 'mouseup']);
  });

  it('says what the element holds when the text is not there', async () => {
    document.body.innerHTML = '<p>Quiet page</p>';
    const reply = await call({ op: 'selectText', ref: ref(document.querySelector('p')!), text: 'loud' });
    expect(reply.error).toMatch(/does not contain the text "loud".*Quiet page/);
  });
});

describe('clipboard (the page\'s events only, never the system clipboard)', () => {
  it('copy: what the page\'s own handler put in the DataTransfer', async () => {
    document.body.innerHTML = '<textarea>secret plans</textarea>';
    const area = document.querySelector('textarea')!;
    area.addEventListener('copy', (event) => {
      (event as ClipboardEvent).clipboardData!.setData('text/plain', 'from the page');
      event.preventDefault();
    });
    await call({ op: 'selectText', ref: ref(area), text: 'plans' });
    const reply = await call({ op: 'clipboard', action: 'copy' });
    expect(reply.clipboard).toBe('from the page');
    expect(reply.note).toMatch(/system clipboard is not touched/);
  });

  it('copy without a handler gives the selected text; cut deletes it from the field', async () => {
    document.body.innerHTML = '<input value="keep cut">';
    const input = document.querySelector('input')!;
    await call({ op: 'selectText', ref: ref(input), text: 'cut' });
    const copy = await call({ op: 'clipboard', action: 'copy' });
    expect(copy.clipboard).toBe('cut');
    const cut = await call({ op: 'clipboard', action: 'cut', ref: ref(input) });
    expect(cut.clipboard).toBe('cut');
    expect(input.value).toBe('keep ');
  });

  it('paste: the page\'s paste handler gets text/plain (through the MAIN-world bridge) and may take it over', async () => {
    document.body.innerHTML = '<div contenteditable="true" aria-label="Editor"></div>';
    const editor = document.querySelector('div')!;
    let got = '';
    editor.addEventListener('paste', (event) => {
      got = (event as ClipboardEvent).clipboardData!.getData('text/plain');
      editor.textContent = `[${got}]`;
      event.preventDefault();
    });
    const pastes: string[] = [];
    window.addEventListener('sidequest-page-actions-pasted', (event) => pastes.push((event as CustomEvent).detail), { once: true });
    const reply = await call({ op: 'clipboard', action: 'paste', ref: ref(editor), text: 'Howdy' });
    expect(pastes).toEqual(['{"cancelled":true}']);
    expect(got).toBe('Howdy');
    expect(editor.textContent).toBe('[Howdy]');
    expect(reply.note).toMatch(/paste handler took them/);
  });

  it('paste not taken by the page: typed into the field at the selection', async () => {
    document.body.innerHTML = '<input value="ab">';
    const input = document.querySelector('input')!;
    input.focus();
    input.setSelectionRange(1, 1);
    const reply = await call({ op: 'clipboard', action: 'paste', ref: ref(input), text: 'X' });
    expect(reply).toMatchObject({ ok: true });
    expect(input.value).toBe('aXb');
  });
});

describe('dialogs during an action', () => {
  it('are answered at once (Cancel; an alert OK) and reported; outside actions the real dialogs stay', async () => {
    document.body.innerHTML = '<button>Go</button><output></output>';
    const button = document.querySelector('button')!;
    button.addEventListener('click', () => {
      alert('Hi');
      document.querySelector('output')!.textContent = `${confirm('Sure?')} ${prompt('Name?', 'Ada')}`;
    });
    const reply = await call({ op: 'click', ref: ref(button) });
    expect(document.querySelector('output')!.textContent).toBe('false null');
    expect(reply.dialogs).toEqual([
      { type: 'alert', message: 'Hi', accepted: true, armed: false },
      { type: 'confirm', message: 'Sure?', accepted: false, armed: false },
      { type: 'prompt', message: 'Name?', defaultText: 'Ada', accepted: false, armed: false },
    ]);
    for (const fn of Object.values(realDialogs)) expect(fn).not.toHaveBeenCalled();
    expect(window.confirm('Outside?')).toBe(true);
    expect(realDialogs.confirm).toHaveBeenCalledWith('Outside?');
  });

  it('dialog arms one answer for the next dialog, then the default again', async () => {
    document.body.innerHTML = '<button>Go</button><output></output>';
    const button = document.querySelector('button')!;
    button.addEventListener('click', () => void (document.querySelector('output')!.textContent = String(prompt('Name?'))));
    await call({ op: 'dialog', accept: true, text: 'Grace' });
    const first = await call({ op: 'click', ref: ref(button) });
    expect(document.querySelector('output')!.textContent).toBe('Grace');
    expect(first.dialogs[0]).toMatchObject({ accepted: true, text: 'Grace', armed: true });
    await call({ op: 'click', ref: ref(button) });
    expect(document.querySelector('output')!.textContent).toBe('null');
  });

  it('a storm of dialogs is answered and counted past ten; a page spoofing the signal only answers its own', async () => {
    document.body.innerHTML = '<button>Go</button>';
    const button = document.querySelector('button')!;
    button.addEventListener('click', () => {
      for (let i = 0; i < 300; i++) confirm(`#${i}`);
    });
    const reply = await call({ op: 'click', ref: ref(button) });
    expect(reply.dialogs).toHaveLength(10);
    expect(reply.moreDialogs).toBe(290);
    // The page says "the agent acts, answer OK": only its own dialog is answered so, and the
    // agent's next action starts from its own signal (Cancel).
    window.dispatchEvent(new CustomEvent('sidequest-page-actions-dialogs', { detail: JSON.stringify({ acting: true, answer: { accept: true } }) }));
    expect(window.confirm('own')).toBe(true);
    expect(realDialogs.confirm).not.toHaveBeenCalled();
    let answer: boolean | undefined;
    button.replaceWith(button.cloneNode(true));
    const fresh = document.querySelector('button')!;
    fresh.addEventListener('click', () => void (answer = confirm('Delete?')));
    await call({ op: 'click', ref: ref(fresh) });
    expect(answer).toBe(false);
  });
});

/**
 * The page's paste event (and a file's drop on a drop zone), made in the page's MAIN world. Firefox keeps each `DataTransfer` entry
 * with the principal that set it and hides an extension's entries from the page, so a paste made
 * in the isolated world arrives empty there (Quill read "" in Firefox ESR 153). The page agent asks
 * this bridge instead: a `PASTE_REQUEST_EVENT` fired at the element that receives the paste, with
 * the text as a JSON string; the bridge fires the real `paste` ClipboardEvent there with a
 * `DataTransfer` holding text/plain (Firefox: its own init fields `dataType` + `data`), and answers `PASTE_DONE_EVENT` (`{cancelled}`). The page can
 * see and fake both events: it learns the text it is being given anyway, and a fake answer only
 * changes what happens to its own paste. The user's clipboard is not involved.
 */
export const PASTE_REQUEST_EVENT = 'sidequest-page-actions-paste';
export const PASTE_DONE_EVENT = 'sidequest-page-actions-pasted';
/** The same for a file dropped on a drop zone (`upload_file`): `{name, type, base64, lastModified, x, y}`. */
export const DROP_REQUEST_EVENT = 'sidequest-page-actions-drop';
/** `{accepted}`: the zone cancelled dragover (it takes drops), and the drop was fired. */
export const DROP_DONE_EVENT = 'sidequest-page-actions-dropped';

export function installClipboardBridge(win: Window & typeof globalThis = window): void {
  const marker = Symbol.for('sidequest.page-actions.clipboard');
  const holder = win as unknown as Record<symbol, unknown>;
  if (holder[marker]) return;
  holder[marker] = true;
  // The page's built-ins as they are at document start: a later page script cannot bend them.
  const { DataTransfer: Transfer, ClipboardEvent: Clip, CustomEvent: Custom, EventTarget: Target } = win;
  const dispatch = Target.prototype.dispatchEvent;
  const tellAgent = win.dispatchEvent.bind(win);
  const setData = Transfer.prototype.setData;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  win.addEventListener(
    PASTE_REQUEST_EVENT,
    (event) => {
      let text: unknown;
      try {
        text = (parse(String((event as CustomEvent).detail)) as { text?: unknown }).text;
      } catch {
        return;
      }
      if (typeof text !== 'string') return;
      const target = (event.composedPath()[0] ?? event.target) as EventTarget;
      const data = new Transfer();
      Reflect.apply(setData, data, ['text/plain', text]);
      // Firefox's ClipboardEvent ignores `clipboardData` and builds its own from `dataType` + `data`.
      const init = { bubbles: true, cancelable: true, composed: true, clipboardData: data, dataType: 'text/plain', data: text } as ClipboardEventInit;
      const paste = new Clip('paste', init);
      const notCancelled = Reflect.apply(dispatch, target, [paste]) as boolean;
      tellAgent(new Custom(PASTE_DONE_EVENT, { detail: stringify({ cancelled: !notCancelled }) }));
    },
    true,
  );
  const Drag = win.DragEvent;
  const File_ = win.File;
  const Bytes = win.Uint8Array;
  const decode = win.atob.bind(win);
  win.addEventListener(
    DROP_REQUEST_EVENT,
    (event) => {
      let file: { name?: unknown; type?: unknown; base64?: unknown; lastModified?: unknown; x?: unknown; y?: unknown };
      try {
        file = parse(String((event as CustomEvent).detail));
      } catch {
        return;
      }
      if (typeof file.name !== 'string' || typeof file.base64 !== 'string') return;
      const binary = decode(file.base64);
      const bytes = new Bytes(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      const made = new File_([bytes], file.name, { type: typeof file.type === 'string' ? file.type : '', lastModified: typeof file.lastModified === 'number' ? file.lastModified : Date.now() });
      const data = new Transfer();
      data.items.add(made);
      const target = (event.composedPath()[0] ?? event.target) as EventTarget;
      const at = { clientX: typeof file.x === 'number' ? file.x : 0, clientY: typeof file.y === 'number' ? file.y : 0 };
      const fireDrag = (type: string) => Reflect.apply(dispatch, target, [new Drag(type, { bubbles: true, cancelable: true, composed: true, ...at, dataTransfer: data })]) as boolean;
      fireDrag('dragenter');
      const accepted = !fireDrag('dragover');
      if (accepted) fireDrag('drop');
      tellAgent(new Custom(DROP_DONE_EVENT, { detail: stringify({ accepted }) }));
    },
    true,
  );
}

import { DIALOG_ARM_EVENT, DIALOG_MESSAGE_CHARS, DIALOG_RAISED_EVENT, type DialogAnswer, type DialogSeen, type DialogType } from './dialogs-protocol';

/**
 * Runs in the page's MAIN world (`entrypoints/page-actions-main.content.ts`, at document start):
 * wraps `alert`, `confirm` and `prompt` so that a dialog the page raises **while the agent acts**
 * (the page agent says so around each action, `DIALOG_ARM_EVENT`) never blocks the page or the
 * agent: it is answered at once — with the answer the `dialog` tool armed, else Cancel (an alert:
 * OK) — and reported to the page agent (`DIALOG_RAISED_EVENT`), which puts it in the action's
 * result. Outside actions the page's dialogs are the browser's own, for the user, as before.
 *
 * The page can see and send these events. Sending "acting" only makes its own dialogs answer
 * Cancel (or an answer it chose itself); sending "not acting" during an action lets its own dialog
 * block, which the page call's time limit ends. Nothing here reads or changes anything but the
 * page's own dialogs.
 */
export function installDialogHooks(win: Window & typeof globalThis = window): void {
  const marker = Symbol.for('sidequest.page-actions.dialogs');
  const holder = win as unknown as Record<symbol, unknown>;
  if (holder[marker]) return;
  holder[marker] = true;
  const state: { acting: boolean; answer: DialogAnswer | null } = { acting: false, answer: null };
  const originals = { alert: win.alert, confirm: win.confirm, prompt: win.prompt };
  const dispatch = win.dispatchEvent.bind(win);
  const Custom = win.CustomEvent;

  win.addEventListener(
    DIALOG_ARM_EVENT,
    (event) => {
      try {
        const detail = JSON.parse(String((event as CustomEvent).detail)) as { acting?: unknown; answer?: { accept?: unknown; text?: unknown } | null };
        state.acting = detail.acting === true;
        const answer = detail.answer;
        state.answer = state.acting && answer && typeof answer.accept === 'boolean' ? { accept: answer.accept, ...(typeof answer.text === 'string' ? { text: answer.text } : {}) } : null;
      } catch {
        // Not ours (or broken): no change.
      }
    },
    true,
  );

  function text(value: unknown): string {
    try {
      return String(value ?? '').slice(0, DIALOG_MESSAGE_CHARS);
    } catch {
      return '';
    }
  }

  function hook(type: DialogType) {
    const real = originals[type] as (...args: unknown[]) => unknown;
    return {
      [type](this: unknown, ...args: unknown[]): unknown {
        if (!state.acting) return Reflect.apply(real, win, args);
        const armed = state.answer;
        state.answer = null;
        const message = text(args[0]);
        const accepted = type === 'alert' ? true : armed ? armed.accept : false;
        const seen: DialogSeen = { type, message, accepted, armed: Boolean(armed) };
        let result: unknown;
        if (type === 'prompt') {
          const defaultText = args.length > 1 && args[1] !== undefined ? text(args[1]) : '';
          seen.defaultText = defaultText;
          result = accepted ? (armed?.text ?? defaultText) : null;
          if (typeof result === 'string') seen.text = result;
        } else result = type === 'confirm' ? accepted : undefined;
        try {
          dispatch(new Custom(DIALOG_RAISED_EVENT, { detail: JSON.stringify(seen) }));
        } catch {
          // The report is lost; the page still got its answer and goes on.
        }
        return result;
      },
    }[type];
  }

  for (const type of ['alert', 'confirm', 'prompt'] as const) {
    try {
      win[type] = hook(type) as never;
    } catch {
      // A page that froze its window's dialogs keeps them.
    }
  }
}

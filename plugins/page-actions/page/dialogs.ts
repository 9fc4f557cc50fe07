import { DIALOG_ARM_EVENT, DIALOG_MESSAGE_CHARS, DIALOG_RAISED_EVENT, DIALOGS_REPORTED, type DialogAnswer, type DialogSeen } from './dialogs-protocol';

/**
 * The page agent's side of dialogs (isolated world): around each action it tells the MAIN-world
 * hooks (`dialogs-main.ts`) that the agent acts, with the answer the `dialog` tool armed, and
 * collects the dialogs the page raised meanwhile for the action's result. An armed answer serves
 * the next dialog of this document, then is gone.
 */
export interface DialogWatch {
  /** The `dialog` tool: the answer for the page's next dialog during an action. */
  arm(answer: DialogAnswer): void;
  /** The answer armed and not yet used, if any. */
  armed(): DialogAnswer | null;
  /** Runs `work` as an action: dialogs raised meanwhile are answered at once and returned. */
  during<T>(work: () => Promise<T>): Promise<{ value: T; dialogs: DialogSeen[]; more: number }>;
}

/** A report from the MAIN world, checked (the page can send one too: it is page data all the same). */
function parse(detail: unknown): DialogSeen | null {
  try {
    const raw = JSON.parse(String(detail)) as Record<string, unknown>;
    const type = raw.type;
    if (type !== 'alert' && type !== 'confirm' && type !== 'prompt') return null;
    const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, DIALOG_MESSAGE_CHARS) : undefined);
    return {
      type,
      message: str(raw.message) ?? '',
      accepted: raw.accepted === true,
      armed: raw.armed === true,
      ...(str(raw.defaultText) !== undefined ? { defaultText: str(raw.defaultText) } : {}),
      ...(str(raw.text) !== undefined ? { text: str(raw.text) } : {}),
    };
  } catch {
    return null;
  }
}

export function dialogWatch(win: Window): DialogWatch {
  let pending: DialogAnswer | null = null;
  // The window's own dispatchEvent: this world's, out of the page's reach.
  const tell = (detail: unknown) => win.dispatchEvent(new CustomEvent(DIALOG_ARM_EVENT, { detail: JSON.stringify(detail) }));
  return {
    arm(answer) {
      pending = answer;
    },
    armed: () => pending,
    async during(work) {
      const dialogs: DialogSeen[] = [];
      let more = 0;
      const onRaised = (event: Event) => {
        const seen = parse((event as CustomEvent).detail);
        if (!seen) return;
        if (seen.armed) pending = null;
        if (dialogs.length < DIALOGS_REPORTED) dialogs.push(seen);
        else more++;
      };
      win.addEventListener(DIALOG_RAISED_EVENT, onRaised, true);
      tell({ acting: true, answer: pending });
      try {
        const value = await work();
        return { value, dialogs, more };
      } finally {
        tell({ acting: false });
        win.removeEventListener(DIALOG_RAISED_EVENT, onRaised, true);
      }
    },
  };
}

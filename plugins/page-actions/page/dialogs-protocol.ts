/**
 * The two events between the page agent (isolated world) and the dialog hooks (the page's MAIN
 * world, `dialogs-main.ts`). Both worlds see DOM events on `window`, and only strings cross worlds
 * reliably (Firefox's Xrays), so every `detail` is a JSON string. The page sees these events too
 * and can send them: see SECURITY.md ("Dialogs") for why that is harmless.
 */

/** Isolated → MAIN: an action begins (`{acting: true, answer?}`) or ends (`{acting: false}`). */
export const DIALOG_ARM_EVENT = 'sidequest-page-actions-dialogs';
/** MAIN → isolated: the page raised a dialog during an action and got this answer. */
export const DIALOG_RAISED_EVENT = 'sidequest-page-actions-dialog';

export type DialogType = 'alert' | 'confirm' | 'prompt';

/** The answer the `dialog` tool arms for the next dialog of a tab. */
export interface DialogAnswer {
  accept: boolean;
  text?: string;
}

/** One dialog the page raised during an action, as the hook answered it. */
export interface DialogSeen {
  type: DialogType;
  message: string;
  /** A prompt's default text. */
  defaultText?: string;
  /** OK (true) or Cancel (false); an alert is always OK. */
  accepted: boolean;
  /** The text a prompt got back. */
  text?: string;
  /** The answer came from the `dialog` tool (else the default: Cancel). */
  armed: boolean;
}

/** The longest dialog message kept. */
export const DIALOG_MESSAGE_CHARS = 2_000;
/** Dialogs reported per action; more are answered the same way and counted. */
export const DIALOGS_REPORTED = 10;

/** The sidebar's message box (`ChatComposer`). */
export const COMPOSER_ID = 'message-box';

/**
 * Gives the keyboard's focus back to the message box, once the element that had it (an answered
 * ask card) has gone from the page.
 */
export function focusComposer(doc: Document = document): void {
  setTimeout(() => doc.getElementById(COMPOSER_ID)?.focus(), 0);
}

/** The sidebar's message box (`ChatComposer`). */
export const COMPOSER_ID = 'message-box';

/**
 * Gives the keyboard's focus back to the message box, once the element that had it (an answered
 * ask) has gone from the page. An approval card never takes the focus when it appears (keys typed
 * in the message box must not answer it): someone who moved onto it with Tab returns here.
 */
export function focusComposer(doc: Document = document): void {
  setTimeout(() => doc.getElementById(COMPOSER_ID)?.focus(), 0);
}

/**
 * The two event names the MAIN-world listener tracker (`listener-tracker.ts`) and the isolated
 * world (`clickable.ts`) talk through. The page can dispatch them too: what it says only adds or
 * removes references (it controls its own DOM anyway), never passes the approval gate.
 */
/** Isolated → MAIN, dispatched on the document: "mark the elements you remember". */
export const ASK_EVENT = 'sidequest-page-actions-listeners-ask';
/** MAIN → isolated, dispatched (composed, bubbling) on each remembered element that is connected. */
export const MARK_EVENT = 'sidequest-page-actions-listener';

import type { DialogSeen } from './page/dialogs-protocol';
import type { UploadFile } from './page/forms';

/**
 * The contract between the background (`service.ts`) and the page agent
 * (`page/agent.ts`, injected into the tab's isolated world by `entrypoints/page-actions-agent.ts`).
 * The background calls `globalThis[Symbol.for(PAGE_AGENT_KEY)].handle(request)` through
 * `scripting.executeScript` and gets a `PageReply` back (structured-cloneable, plain data). What
 * comes back is page data: the background checks its shape and sizes before use.
 *
 * References: the outline prints `[ref=e12]`; `e12` means `@<token>.12` in the element-reference
 * registry of that document (`core/page/element-refs.ts`, in the isolated world). Every reply that
 * read the page carries the document's `token`; the background keeps the last one per tab and
 * sends it back with each request (`token`), so a reference read before a navigation or reload is
 * refused as stale instead of naming another element.
 */
export const PAGE_AGENT_KEY = 'sidequest.page-actions';

/** What every request may carry. */
interface Base {
  /** The document token the background last saw in this tab (absent: accept whatever the page has). */
  token?: string;
  /**
   * Deliver this action's clicks, keys and text as trusted input (Chrome's debugger, attached by
   * the background for it: `trusted-input.ts`). Only for `TRUSTED_OPS`.
   */
  trusted?: boolean;
}

/** The actions whose input can go through Chrome's debugger (the "Trusted input" setting). */
export const TRUSTED_OPS: ReadonlySet<string> = new Set(['click', 'hover', 'press', 'fill', 'drag', 'clickAt', 'hoverAt']);

/** The runtime message the page agent sends to have trusted input delivered (`trusted-input.ts` answers). */
export const TRUSTED_INPUT_MESSAGE = 'sidequest-page-actions-trusted-input';

export type PageRequest = Base &
  (
    | { op: 'outline'; selector?: string; ref?: string; maxLength?: number; find?: string }
    | { op: 'click'; ref: string; button?: 'left' | 'right' | 'middle'; double?: boolean; modifiers?: string[] }
    | { op: 'fill'; ref: string; text: string; submit?: boolean }
    | { op: 'select'; ref: string; value?: string; label?: string; values?: string[] }
    /** Issue 41's hands for text and files (`page/forms.ts`) and the dialogs' armed answer (`page/dialogs.ts`). */
    | { op: 'selectText'; ref: string; text?: string; start?: number; end?: number }
    | { op: 'clipboard'; action: 'copy' | 'cut' | 'paste'; ref?: string; text?: string }
    | { op: 'upload'; ref: string; file: UploadFile }
    | { op: 'dialog'; accept: boolean; text?: string }
    | { op: 'press'; key: string; ref?: string }
    | { op: 'hover'; ref: string }
    | { op: 'scroll'; ref?: string; direction?: 'up' | 'down' | 'left' | 'right'; amount?: number }
    | { op: 'wait'; text?: string; textGone?: string; ref?: string; timeoutMs: number }
    /**
     * What an action would act on, for the approval card, the sensitive rule and the outbound rule
     * (no side effect): the element that really receives it (`as`: a fill's field behind a label or
     * a wrapper, a label's control), or without `ref` the focused element (where a key goes).
     */
    | { op: 'describe'; ref?: string; as?: DescribeAs }
    /** Where an element is in the viewport, in CSS pixels, for a cropped screenshot (scrolls it into view). */
    | { op: 'rect'; ref: string }
    /** Drags an element onto another (`toRef`) or by an offset in CSS px (`page/pointer.ts`). */
    | { op: 'drag'; ref: string; toRef?: string; dx?: number; dy?: number }
    /** A click or a hover at (x, y) of the last full-tab screenshot (`shot`: its size, from the background). */
    | { op: 'clickAt'; x: number; y: number; shot?: ShotSize; button?: 'left' | 'right' | 'middle'; double?: boolean }
    | { op: 'hoverAt'; x: number; y: number; shot?: ShotSize }
    /** What is at (x, y) of the last screenshot, for the card (remembered: `clickAt` refuses if it changed). */
    | { op: 'describeAt'; x: number; y: number; shot?: ShotSize }
    /** Shows or hides the acting bar (`page/bar.ts`); `words` are its labels in the user's language. */
    | { op: 'bar'; state: BarState; reason?: string }
  );

/** The page side's answer: its own fields on success, or an error worded for the model. */
export type PageReply<T = Record<string, unknown>> = ({ ok: true; token: string } & T) | { ok: false; error: string; stale?: boolean };

/** `outline`'s fields. */
export interface OutlineReply {
  /** The outline, one node a line (Playwright MCP's snapshot convention). */
  text: string;
  /** How many nodes it lists, and whether it was cut at `maxLength`. */
  nodes: number;
  truncated: boolean;
  url: string;
  title: string;
}

/** Every action's fields: what changed, so the model rarely needs a second read. */
export interface ActionReply {
  /** The outline of the part of the page that changed (merged, cut), or '' for no visible change. */
  changed: string;
  url: string;
  title: string;
  /** A line about what was done, for the model ("Clicked button \"Add\"."). */
  note?: string;
  /** `clipboard` copy/cut: what the page put on the clipboard, or the selected text (page data). */
  clipboard?: string;
  /** Dialogs the page raised during the action, answered at once (`page/dialogs-main.ts`), and how many more. */
  dialogs?: DialogSeen[];
  moreDialogs?: number;
  /** The document began to unload during the action (a navigation is on its way). */
  navigating?: boolean;
}

/** Which action `describe` is asked for: it decides which element receives it, and where it may send. */
export type DescribeAs = 'click' | 'fill' | 'select' | 'press' | 'other';

/** `describe`'s fields: what a person would call the element that receives the action. */
export interface ElementFacts {
  role: string;
  name: string;
  tag: string;
  /** For inputs: their type ("password", "email"…). */
  type?: string;
  /** The element submits a form whose method is POST (or the form's button is its default). */
  submitsPost?: boolean;
  /** contenteditable, a text field, a select… */
  editable?: boolean;
  /** No `ref` was given: these are the facts of the focused element (`body` when none has the focus). */
  focused?: boolean;
  /** The address a link the action follows leads to (the element, or the link around it), resolved. */
  link?: string;
  /** Where the form the action submits sends its fields (its submitter's `formaction`, else its `action`), resolved. */
  form?: string;
}

/** The last full-tab screenshot's size: the JPEG the model saw, and the captured (device) pixels it was scaled from. */
export interface ShotSize {
  width: number;
  height: number;
  captureWidth: number;
  captureHeight: number;
}

/** `rect`'s fields (CSS pixels of the viewport) and the page's device pixel ratio. */
export interface RectReply {
  x: number;
  y: number;
  width: number;
  height: number;
  devicePixelRatio: number;
}

/** The acting bar's state, set by the background (`control.ts`) through the page agent. */
export type BarState = 'acting' | 'paused' | 'off';

/** A press on one of the bar's buttons (trusted clicks only), sent by the page agent to the background. */
export type BarButton = 'stop' | 'take-over' | 'resume';

/** The port the page agent opens to tell the background about the bar's buttons. */
export const BAR_PORT = 'sidequest-page-actions-bar';

/** A conversation whose run waits while the user has a tab (Take over, or the agent's hand-over). */
export interface PausedTab {
  conversationId: string;
  tabId: number;
  /** The tab's site (host name), as the panel shows it. */
  site: string;
  /** Why the agent handed the tab over (the model's words, shown as text), if it did. */
  reason?: string;
}

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** The tab the conversation's run waits on while the user has it, or null. */
    getPagePause(data: { conversationId: string }): PausedTab | null;
    /** The sidebar's Resume: hands the tab back to the conversation's run. */
    resumePageActions(data: { conversationId: string }): void;
  }
  interface UiEventMap {
    /** A conversation's run paused (the user has a tab) or went on (`paused: null`). */
    'page-actions-paused': { conversationId: string; paused: PausedTab | null };
  }
}

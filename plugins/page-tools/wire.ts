/**
 * The messages of the page-tools bridge, between its three places:
 *
 *   page MAIN world  ⇄  (CustomEvents on window, detail = a JSON string)  ⇄  isolated content script
 *   isolated content script  ⇄  (a runtime port per document)  ⇄  background
 *
 * Everything that comes from the MAIN world is page-controlled: the page can read and forge these
 * events. So nothing here is trusted for more than the page itself could do by registering a
 * tool; the background takes the tab and origin from the port's `sender`, never from a message.
 *
 * Type-only imports here: this file is also read by the MAIN-world script, which must stay small.
 */

/** The event the MAIN world sends to the isolated relay. */
export const TO_ISOLATED_EVENT = 'sidequest:page-tools:to-isolated';
/** The event the isolated relay sends to the MAIN world. */
export const TO_MAIN_EVENT = 'sidequest:page-tools:to-main';
/** The runtime port a document's relay opens to the background once its page offers tools. */
export const PAGE_TOOLS_PORT = 'sidequest:page-tools';
/** `tabs.sendMessage` type: the background asks a tab for a fresh list (or to reconnect). */
export const REFRESH_MESSAGE = 'sidequest:page-tools:refresh';

/** Where a page tool came from. */
export type PageToolSource = 'devtools' | 'webmcp';

/** A tool as it crosses worlds: the definition without its function. */
export interface WireTool {
  /** Unique within the document; what a call names. */
  key: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** WebMCP annotations, when given (readOnlyHint, untrustedContentHint…). */
  annotations?: Record<string, boolean>;
  title?: string;
  /** A declarative WebMCP form (`<form toolname>`): submitted by the call itself, or by the user. */
  form?: { autosubmit: boolean };
}

export interface WireGroup {
  name: string;
  description: string;
  source: PageToolSource;
  tools: WireTool[];
  /** Tools found in a same-origin child frame: that frame's address. */
  frame?: string;
}

/** What a running call reports before its result: waiting for the user's submit, or the form navigated. */
export type WireCallStatus = 'waiting-user' | 'navigating';

/** What one discovery (or a WebMCP change) found in the page. */
export interface WireToolList {
  groups: WireGroup[];
  /** What was dropped and why, in words (also logged to the page's console). */
  problems: string[];
  /** Why the list was made: load, a route change, a refresh, a WebMCP change. */
  reason: string;
  /** How long the discovery took in the page, in ms. */
  discoveryMs: number;
}

/** The result of one call, as the MAIN world reports it. */
export type WireCallResult =
  | { ok: true; json: string; cut?: { totalChars: number } }
  | { ok: false; error: string };

/** MAIN world → isolated relay. */
export type MainToIsolated =
  | { type: 'tools'; list: WireToolList; requestId?: string }
  | { type: 'result'; callId: string; result: WireCallResult }
  | { type: 'status'; callId: string; status: WireCallStatus };

/** Isolated relay → MAIN world. */
export type IsolatedToMain =
  | { type: 'discover'; reason: string; requestId?: string }
  | { type: 'call'; callId: string; key: string; input: Record<string, unknown> }
  | { type: 'cancel'; callId: string; reason: string };

/** Relay → background, over the port. */
export type RelayToBackground =
  | { type: 'tools'; list: WireToolList; title: string; url: string }
  | { type: 'result'; callId: string; result: WireCallResult }
  | { type: 'status'; callId: string; status: WireCallStatus };

/** Background → relay, over the port. */
export type BackgroundToRelay =
  | { type: 'call'; callId: string; key: string; input: Record<string, unknown> }
  | { type: 'cancel'; callId: string; reason: string }
  | { type: 'discover'; reason: string };

/** `tabs.sendMessage` from the background; the reply is the fresh list (null: nothing in the page). */
export interface RefreshRequest {
  type: typeof REFRESH_MESSAGE;
  reason: string;
}

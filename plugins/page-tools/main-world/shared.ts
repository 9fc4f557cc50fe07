/**
 * What the MAIN-world bridge's files share: its limits, its state, the context each section takes
 * (the window, the page's intrinsics, the state, and the few calls sections make of each other),
 * and small helpers. Imports: types and import-free page-side modules only.
 */
import type { ElementRefs } from '@/core/page/element-refs';
import type { Intrinsics, PageWindow } from './intrinsics';
import type { MainToIsolated, PageToolSource, WireCallResult, WireCallStatus, WireGroup, WireTool, WireToolList } from '../wire';

/** Limits that keep one page from flooding the agent. */
export const LIMITS = {
  /** Tools one page may offer in all (the rest are dropped with a message). */
  toolsPerPage: 256,
  groupName: 200,
  toolName: 128,
  description: 4000,
  /** Characters of an input schema as JSON. */
  schemaChars: 32_000,
  /** Characters of a result as JSON before it is cut (the registry caps at 60 000 after wrapping). */
  resultChars: 50_000,
  /** How long a Promise given to respondWith may take to settle. */
  promiseWaitMs: 3000,
} as const;

/** WebMCP tool names: 1–128 of these characters. */
export const WEBMCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Where a window's bridge is kept, so a same-origin parent frame's bridge can reach it. */
export const BRIDGE_KEY = Symbol.for('sidequest.page-tools.bridge');

export type AnyFn = (...args: any[]) => unknown;

/** A `devtoolstooldiscovery` tool as the last discovery found it. */
export interface LiveTool {
  execute: AnyFn;
  source: PageToolSource;
  /** The page's own input schema: where element parameters are. */
  schema: Record<string, unknown>;
}

/** A tool registered through WebMCP (`document.modelContext` or the older `navigator.modelContext`). */
export interface WebMcpEntry {
  wire: WireTool;
  execute: AnyFn;
  /** Registered by the older `navigator.modelContext.provideContext` (replaced as a set). */
  provided: boolean;
  /** The input schema as the page gave it, as JSON (what `getTools()` returns). */
  schemaJson: string;
  readOnlyHint: boolean;
  untrustedContentHint: boolean;
  exposedTo: string[];
}

/** A declarative WebMCP form (`<form toolname>`). */
export interface FormEntry {
  form: HTMLFormElement;
  wire: WireTool;
}

export interface MainWorldBridge {
  /** Dispatches `devtoolstooldiscovery`, collects the groups, adds WebMCP tools and frames; posts and returns the list. */
  discover(reason: string, requestId?: string): Promise<WireToolList>;
  /** Runs one tool by key; never throws. `onStatus` hears a form waiting for the user or navigating. */
  call(key: string, input: Record<string, unknown>, callId?: string, onStatus?: (status: WireCallStatus) => void): Promise<WireCallResult>;
  /** Cancels a running call (the agent stopped waiting). */
  cancel(callId: string, reason: string): void;
  /** A child frame's tools changed: the top frame asks its frames again. */
  childChanged(): void;
  /** Stops listening (tests). */
  dispose(): void;
}

export interface BridgeOptions {
  /** Discover on DOMContentLoaded, load and route changes (default true). */
  autoDiscover?: boolean;
  /** Provide `document.modelContext` / `navigator.modelContext` where missing (default true). */
  webmcp?: boolean;
  /** Find `<form toolname>` tools and follow changes to them (default true). */
  declarative?: boolean;
  /** Time limits for a WebMCP runtime the page installs itself (tests shorten them). */
  pageRuntime?: { listTimeoutMs?: number; callTimeoutMs?: number };
}

/** The bridge's mutable state, shared by its sections. */
export interface BridgeState {
  devtoolsTools: Map<string, LiveTool>;
  lastDevtoolsGroups: WireGroup[];
  /** By tool name. */
  webmcpTools: Map<string, WebMcpEntry>;
  /** By key (`df:<name>`). */
  formTools: Map<string, FormEntry>;
  formProblems: string[];
  frameGroups: WireGroup[];
  disposed: boolean;
  /** Fires `toolchange` on the provided `document.modelContext` (set by the WebMCP section). */
  fireToolChange: () => void;
  /** The `document.modelContext` the bridge provided or wraps (a native one), and its `navigator.modelContext`. */
  ownContext?: object;
  legacyContext?: object;
}

/** What each section of the bridge takes. */
export interface BridgeContext {
  readonly win: PageWindow;
  /** The page's built-ins as they were at document start: the only ones the bridge calls. */
  readonly I: Intrinsics;
  readonly isTop: boolean;
  readonly refs: ElementRefs;
  readonly state: BridgeState;
  /** Posts to the isolated relay (only the top frame does). */
  post(message: MainToIsolated): void;
  /** Adds a problem to `list` and logs it in the page's console. */
  problem(list: string[], text: string, value?: unknown): void;
  /**
   * WebMCP or form tools changed: posts the list at the end of this task, `toolchange` on our
   * `modelContext` a task later (not with `toolchange` false: a page runtime's own tools changed).
   */
  announceChange(toolchange?: boolean): void;
  /** A value the page gave as a result: an element becomes its reference; `{error}` is a failure. */
  resultOf(value: unknown): WireCallResult;
}

/** Every tool the page offers now, devtools, WebMCP, forms. */
export function countTools(state: BridgeState): number {
  return state.devtoolsTools.size + state.webmcpTools.size + state.formTools.size;
}

/** The values of a (safe) map, in order, without its iterator. */
export function valuesOf<V>(I: Intrinsics, map: Map<unknown, V>): V[] {
  const out: V[] = [];
  map.forEach((value) => I.push(out, value));
  return out;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function describeType(I: Intrinsics, value: unknown): string {
  if (value === null) return 'null';
  if (I.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function clip(I: Intrinsics, text: string, max: number): string {
  return text.length > max ? `${I.strSlice(text, 0, max - 1)}…` : text;
}

/** An error's message (or name), a string as is, anything else as JSON. */
export function errorText(I: Intrinsics, error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error && typeof (error as Error).message === 'string') {
    return (error as Error).message || (error as Error).name || 'Error';
  }
  if (typeof error === 'string') return error;
  try {
    return I.stringify(error) ?? I.String(error);
  } catch {
    return I.String(error);
  }
}

/** A property descriptor with no prototype: a page's `Object.prototype.get` cannot change it. */
export function own(descriptor: PropertyDescriptor): PropertyDescriptor {
  return { __proto__: null, ...descriptor } as PropertyDescriptor;
}

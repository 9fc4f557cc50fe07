/**
 * Same-origin child frames: each runs its own bridge (the MAIN-world script runs in every frame)
 * and keeps it on its window under `BRIDGE_KEY`. The top frame's bridge asks theirs during
 * discovery and routes calls to them (keys `fr<n>|…`); a child tells its parent when its tools
 * change. Cross-origin frames are never read: their tools would be another site's.
 */
import type { WireCallResult, WireCallStatus, WireGroup, WireToolList } from '../wire';
import { BRIDGE_KEY, clip, isObject, LIMITS, type BridgeContext, type MainWorldBridge } from './shared';

export interface FramesSection {
  /** Asks each same-origin child frame's bridge for its list; its groups, keys prefixed with the frame's id. */
  discover(problems: string[]): Promise<WireGroup[]>;
  /** Runs a `fr<n>|…` key in its frame, or undefined when the key is not a frame's. */
  call(key: string, input: Record<string, unknown>, callId: string | undefined, onStatus: ((status: WireCallStatus) => void) | undefined, running: Map<string, (reason: unknown) => void>): Promise<WireCallResult> | undefined;
  /** A child frame's tools changed: discover again shortly. */
  childChanged(): void;
  /** This frame's tools changed: tell a same-origin parent's bridge. */
  notifyParent(): void;
  dispose(): void;
}

const FRAME_KEY = /^(fr\d+)\|(.+)$/;

export function createFrames(ctx: BridgeContext, rediscover: (reason: string) => void): FramesSection {
  const { I, win } = ctx;
  /** Child frames by the id their keys carry (`fr3|…`). */
  const frameWindows = new I.Map<string, Window>();
  const frameIds = new I.WeakMap<Window, string>();
  let frameCounter = 0;
  let childTimer: number | undefined;

  function sameOriginChildren(): Window[] {
    const out: Window[] = [];
    let count = 0;
    try {
      count = win.frames.length;
    } catch {
      return out;
    }
    for (let i = 0; i < count && i < 32; i++) {
      try {
        const child = win.frames[i] as Window & typeof globalThis;
        if (child && child.location.origin === win.location.origin && (child as unknown as Record<symbol, unknown>)[BRIDGE_KEY]) I.push(out, child);
      } catch {
        // Another origin: its tools are its own site's, never this one's.
      }
    }
    return out;
  }

  function frameIdOf(child: Window): string {
    let id = frameIds.get(child);
    if (!id) {
      id = `fr${++frameCounter}`;
      frameIds.set(child, id);
      frameWindows.set(id, child);
    }
    return id;
  }

  async function discover(problems: string[]): Promise<WireGroup[]> {
    const groups: WireGroup[] = [];
    const children = sameOriginChildren();
    for (let c = 0; c < children.length; c++) {
      const child = children[c]!;
      // What sits under the key is the frame's (same-origin) business: a page could plant its own
      // object in a frame without our script (about:blank). It gets a time limit and a shape check,
      // and what it lists is cleaned like any list, in the relay and the background.
      try {
        const bridge = (child as unknown as Record<symbol, MainWorldBridge>)[BRIDGE_KEY]!;
        // A race by hand: `Promise.race` looks up `resolve` and `then` when it runs.
        const list = await new I.Promise<WireToolList | null>((resolve, reject) => {
          I.setTimeout(() => resolve(null), LIMITS.promiseWaitMs + 500);
          I.then(I.resolve(bridge.discover('parent frame asked')), resolve, reject);
        });
        if (!list || !I.isArray(list.groups)) continue;
        const id = frameIdOf(child);
        const href = I.String(child.location.href);
        if (I.isArray(list.problems)) {
          const first = I.slice(list.problems, 0, 5);
          for (let i = 0; i < first.length; i++) I.push(problems, `In a frame (${clip(I, href, 100)}): ${I.String(first[i])}`);
        }
        for (let i = 0; i < list.groups.length; i++) {
          const g = list.groups[i];
          if (!isObject(g) || !I.isArray(g.tools)) continue;
          I.push(groups, { ...g, frame: typeof g.frame === 'string' ? g.frame : href, tools: I.map(g.tools, (t) => ({ ...t, key: `${id}|${I.String(t?.key)}` })) });
        }
      } catch {
        // A frame that went away or answered nonsense: its tools are left out.
      }
    }
    return groups;
  }

  function call(
    key: string,
    input: Record<string, unknown>,
    callId: string | undefined,
    onStatus: ((status: WireCallStatus) => void) | undefined,
    running: Map<string, (reason: unknown) => void>,
  ): Promise<WireCallResult> | undefined {
    const frameMatch = I.exec(FRAME_KEY, key);
    if (!frameMatch) return undefined;
    const child = frameWindows.get(frameMatch[1]!);
    let bridge: MainWorldBridge | undefined;
    try {
      if (child && child.location.origin === win.location.origin) bridge = (child as unknown as Record<symbol, MainWorldBridge>)[BRIDGE_KEY];
    } catch {
      bridge = undefined;
    }
    if (!bridge) return I.resolve({ ok: false, error: 'The frame that offered this tool is gone or now shows another site. Call list_page_tools to see what the page offers now.' });
    const target = bridge;
    const inner = frameMatch[2]!;
    return (async () => {
      if (callId) running.set(callId, (reason) => target.cancel(callId, I.String((reason as Error)?.message ?? reason ?? '')));
      try {
        return await target.call(inner, input, callId, onStatus);
      } finally {
        if (callId) running.delete(callId);
      }
    })();
  }

  function childChanged(): void {
    I.clearTimeout(childTimer);
    childTimer = I.setTimeout(() => rediscover('a frame changed its tools'), 50);
  }

  function notifyParent(): void {
    if (ctx.isTop) return;
    try {
      const parentBridge = (win.parent as unknown as Record<symbol, MainWorldBridge | undefined>)[BRIDGE_KEY];
      if (win.parent.location.origin === win.location.origin) parentBridge?.childChanged();
    } catch {
      // A parent of another origin: it never gets this frame's tools.
    }
  }

  return { discover, call, childChanged, notifyParent, dispose: () => I.clearTimeout(childTimer) };
}

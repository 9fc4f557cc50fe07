/**
 * The page side of page tools, run in the page's MAIN world at document_start (before the page's
 * own scripts): discovery of `devtoolstooldiscovery` groups (`discovery.ts`), the WebMCP
 * `modelContext` API where the browser has none (`webmcp.ts`), a WebMCP runtime the page installs
 * over it (`page-webmcp.ts`), declarative forms (`forms.ts`),
 * same-origin frames (`frames.ts`), executing tools in the page and making results JSON-safe
 * (`results.ts`). This file wires them: lists, calls, the relay's messages, route changes.
 *
 * First of all it takes the page's built-ins (`intrinsics.ts`): every section calls built-ins only
 * through that frozen object, so a page that later patches them cannot steer the bridge.
 *
 * It talks to the isolated relay only with CustomEvents on `window` whose detail is a JSON string
 * (the only thing that crosses between worlds the same way in Chromium and Firefox). It never
 * sees an extension API. The page can read and forge these events, which gives it nothing it
 * could not do by registering a tool: the background treats whatever arrives as page-provided.
 *
 * Every function that reads the page takes the window, so unit tests run it on a happy-dom window.
 * Imports: types, the event names, and import-free page-side modules only (`core/page/*`,
 * `core/registry/json-safe.ts`, `../declarative.ts`). The bundler inlines them all into the one
 * MAIN-world content script.
 */
import { elementRefsFor } from '@/core/page/element-refs';
import { resolveElementParams } from '@/core/page/element-schema';
import { TO_ISOLATED_EVENT, TO_MAIN_EVENT, type IsolatedToMain, type MainToIsolated, type WireCallResult, type WireCallStatus, type WireGroup, type WireToolList } from '../wire';
import { discoverDevtools } from './discovery';
import { createForms } from './forms';
import { createFrames } from './frames';
import { captureIntrinsics, type Intrinsics, type PageWindow } from './intrinsics';
import { errorShaped, serializeResult } from './results';
import { BRIDGE_KEY, errorText, isObject, own, type BridgeContext, type BridgeOptions, type BridgeState, type MainWorldBridge } from './shared';
import { createPageWebMcp, installAgentClusterShim } from './page-webmcp';
import { installWebMcp, webmcpGroups } from './webmcp';

export { LIMITS, WEBMCP_NAME, BRIDGE_KEY, type MainWorldBridge, type BridgeOptions } from './shared';
export { errorShaped, serializeResult } from './results';
export { captureIntrinsics, type Intrinsics, type PageWindow } from './intrinsics';

/**
 * Installs the bridge in `win` (the page's own window in the MAIN world). `intrinsics` are taken
 * from `win` first thing unless given (taken earlier by the caller).
 */
export function installMainWorldBridge(win: PageWindow, options: BridgeOptions = {}, intrinsics?: Intrinsics): MainWorldBridge {
  // Taken now, before page scripts run, so a page that later replaces built-ins does not reach the bridge.
  const I = intrinsics ?? captureIntrinsics(win);
  const isTop = (() => {
    try {
      return win.top === win;
    } catch {
      return false;
    }
  })();
  const state: BridgeState = {
    devtoolsTools: new I.Map(),
    lastDevtoolsGroups: [],
    webmcpTools: new I.Map(),
    formTools: new I.Map(),
    formProblems: [],
    frameGroups: [],
    disposed: false,
    fireToolChange: () => undefined,
  };
  /** Running calls by id: how each is cancelled. */
  const running = new I.Map<string, (reason: unknown) => void>();
  let lastPosted = '';
  let announcePending = false;
  let toolchangeWanted = false;
  let generation = 0;

  const ctx: BridgeContext = {
    win,
    I,
    isTop,
    refs: elementRefsFor(win),
    state,
    post(message: MainToIsolated): void {
      // Only the top frame talks to the relay; a child frame's bridge answers its parent.
      if (state.disposed || !isTop) return;
      I.dispatch(win, new I.CustomEvent(TO_ISOLATED_EVENT, { detail: I.stringify(message) }));
    },
    problem(list: string[], text: string, value?: unknown): void {
      I.push(list, text);
      if (value === undefined) I.logError(`[Sidequest page tools] ${text}`);
      else I.logError(`[Sidequest page tools] ${text}`, value);
    },
    /** WebMCP changes are posted at the end of the current task: at once, and once per batch; `toolchange` fires a task later. */
    announceChange(toolchange = true): void {
      if (toolchange) toolchangeWanted = true;
      if (announcePending) return;
      announcePending = true;
      I.queueMicrotask(() => {
        announcePending = false;
        postList({ groups: currentGroups(), problems: I.slice(state.formProblems), reason: 'webmcp', discoveryMs: 0 });
        frames.notifyParent();
      });
      void I.then(I.macrotask(), () => {
        if (!toolchangeWanted) return;
        toolchangeWanted = false;
        state.fireToolChange();
      });
    },
    resultOf(value: unknown): WireCallResult {
      const failure = errorShaped(value, I);
      if (failure !== undefined) return { ok: false, error: failure };
      return serializeResult(value, I, ctx.refs);
    },
  };
  const frames = createFrames(ctx, (reason) => void discover(reason));
  const forms = createForms(ctx);
  // A WebMCP runtime the page installs over ours (MCP-B): read through its own API.
  const pageWebMcp = createPageWebMcp(ctx, options.pageRuntime);

  function currentGroups(): WireGroup[] {
    return I.concat(state.lastDevtoolsGroups, webmcpGroups(ctx), pageWebMcp.groups(), state.frameGroups);
  }

  async function discover(reason: string, requestId?: string): Promise<WireToolList> {
    const started = I.now();
    const mine = ++generation;
    const problems: string[] = [];
    const { groups, live } = await discoverDevtools(ctx, problems);
    if (options.declarative !== false) forms.scan();
    if (options.webmcp !== false) await pageWebMcp.refresh(problems);
    const frameGroups = await frames.discover(problems);
    // Two discoveries may overlap (a route change during a refresh): the newest one wins.
    if (mine === generation) {
      state.devtoolsTools = live;
      state.lastDevtoolsGroups = groups;
      state.frameGroups = frameGroups;
    }
    for (let i = 0; i < state.formProblems.length; i++) I.push(problems, state.formProblems[i]!);
    const list = { groups: currentGroups(), problems, reason, discoveryMs: I.now() - started };
    // Always posted: the relay re-announces after a port it lost (a route change after a restart).
    return postList(list, requestId, true);
  }

  /** Posts a list when it differs from the last one posted, or when someone asked for it. */
  function postList(list: WireToolList, requestId?: string, force = false): WireToolList {
    const signature = I.stringify(list.groups)!;
    if (force || signature !== lastPosted) {
      lastPosted = signature;
      ctx.post({ type: 'tools', list, ...(requestId ? { requestId } : {}) });
    }
    return list;
  }

  async function call(key: string, input: Record<string, unknown>, callId?: string, onStatus?: (status: WireCallStatus) => void): Promise<WireCallResult> {
    const viaFrame = frames.call(key, input, callId, onStatus, running);
    if (viaFrame) return await viaFrame;
    if (I.startsWith(key, 'pw:')) {
      const controller = new I.AbortController();
      if (callId) running.set(callId, (reason) => I.abort(controller, reason));
      try {
        return await pageWebMcp.call(key, input, I.signalOf(controller))!;
      } finally {
        if (callId) running.delete(callId);
      }
    }
    const live = state.devtoolsTools.get(key);
    const web = I.startsWith(key, 'wm:') ? state.webmcpTools.get(I.strSlice(key, 3)) : undefined;
    const form = I.startsWith(key, 'df:') ? state.formTools.get(key) : undefined;
    const execute = live?.execute ?? web?.execute;
    if (!execute && !form) {
      return {
        ok: false,
        error: 'The page no longer offers this tool (it changed its tools or navigated). Call list_page_tools to see what it offers now.',
      };
    }
    const controller = new I.AbortController();
    const signal = I.signalOf(controller);
    if (callId) running.set(callId, (reason) => I.abort(controller, reason));
    try {
      if (form) return await forms.call(form, input, signal, onStatus);
      let args: unknown;
      try {
        args = resolveElementParams(input, live?.schema ?? web?.wire.inputSchema, (text) => ctx.refs.resolve(text), ctx.refs.looksLikeRef);
      } catch (error) {
        return { ok: false, error: errorText(I, error) };
      }
      const client = { signal, requestUserInteraction: (cb: () => unknown) => I.then(I.resolve(undefined), cb) };
      const value = await execute!(args, client);
      return ctx.resultOf(value);
    } catch (error) {
      return { ok: false, error: errorText(I, error) || 'The tool threw an error without a message.' };
    } finally {
      if (callId) running.delete(callId);
    }
  }

  function cancel(callId: string, reason: string): void {
    running.get(callId)?.(new I.DOMException(reason || 'Cancelled', 'AbortError'));
  }

  function onMessage(event: Event): void {
    let message: IsolatedToMain;
    try {
      const detail = I.detailOf(event);
      if (typeof detail !== 'string') return;
      message = I.parse(detail) as IsolatedToMain;
    } catch {
      return;
    }
    if (!isObject(message)) return;
    if (message.type === 'discover') {
      void discover(I.String(message.reason ?? 'refresh'), typeof message.requestId === 'string' ? message.requestId : undefined);
    } else if (message.type === 'call' && typeof message.callId === 'string' && typeof message.key === 'string') {
      const callId = message.callId;
      const input = isObject(message.input) ? message.input : {};
      void I.then(call(message.key, input, callId, (status) => ctx.post({ type: 'status', callId, status })), (result) => ctx.post({ type: 'result', callId, result }));
    } else if (message.type === 'cancel' && typeof message.callId === 'string') {
      cancel(message.callId, I.String(message.reason ?? 'Cancelled'));
    }
  }

  // ——— Wiring ———

  const doc = win.document;
  if (isTop) I.listen(win, TO_MAIN_EVENT, onMessage);
  if (options.webmcp !== false) {
    installWebMcp(ctx);
    installAgentClusterShim(ctx);
  }
  let stopForms = () => {};
  if (options.declarative !== false) {
    forms.installSubmitEventApi();
    const begin = () => {
      if (state.disposed) return;
      if (forms.scan()) ctx.announceChange();
      stopForms = forms.watch();
    };
    if (doc.readyState === 'loading') I.listen(doc, 'DOMContentLoaded', begin, { once: true });
    else begin();
  }

  let routeTimer: number | undefined;
  const onRoute = () => {
    I.clearTimeout(routeTimer);
    // After the router has rendered the new route (a task later), ask again.
    routeTimer = I.setTimeout(() => void discover('route change'), 50);
  };
  const onLoad = (reason: string) => () => {
    void discover(reason);
    frames.notifyParent();
  };
  const onDomReady = onLoad('page loaded');
  const onWindowLoad = onLoad('page loaded');
  let restoreHistory = () => {};
  if (options.autoDiscover !== false) {
    if (doc.readyState === 'loading') I.listen(doc, 'DOMContentLoaded', onDomReady, { once: true });
    else void discover('page loaded');
    if (doc.readyState !== 'complete') I.listen(win, 'load', onWindowLoad, { once: true });
    I.listen(win, 'popstate', onRoute);
    I.listen(win, 'hashchange', onRoute);
    restoreHistory = patchHistory(I, win, onRoute);
  }

  const bridge: MainWorldBridge = {
    discover,
    call,
    cancel,
    childChanged: frames.childChanged,
    dispose() {
      state.disposed = true;
      I.unlisten(win, TO_MAIN_EVENT, onMessage);
      I.unlisten(win, 'popstate', onRoute);
      I.unlisten(win, 'hashchange', onRoute);
      restoreHistory();
      stopForms();
      I.clearTimeout(routeTimer);
      frames.dispose();
    },
  };
  try {
    I.defineProperty(win, BRIDGE_KEY, own({ value: bridge, configurable: true, enumerable: false, writable: false }));
  } catch {
    // A frozen window: frames of this page are not asked.
  }
  return bridge;
}

/** Wraps pushState/replaceState so an SPA's route change triggers a fresh discovery. */
function patchHistory(I: Intrinsics, win: Window, onChange: () => void): () => void {
  const history = win.history;
  const originals = { pushState: history.pushState, replaceState: history.replaceState };
  const wrap = (original: History['pushState']) =>
    function (this: History, ...args: Parameters<History['pushState']>) {
      const result = I.apply(original, this, args);
      onChange();
      return result;
    };
  history.pushState = wrap(originals.pushState);
  history.replaceState = wrap(originals.replaceState);
  return () => {
    history.pushState = originals.pushState;
    history.replaceState = originals.replaceState;
  };
}

/**
 * The page side of page tools, run in the page's MAIN world at document_start (before the page's
 * own scripts): discovery of `devtoolstooldiscovery` groups, the WebMCP `modelContext` API where
 * the browser has none, executing tools in the page, and making results JSON-safe.
 *
 * It talks to the isolated relay only with CustomEvents on `window` whose detail is a JSON string
 * (the only thing that crosses between worlds the same way in Chromium and Firefox). It never
 * sees an extension API. The page can read and forge these events, which gives it nothing it
 * could not do by registering a tool: the background treats whatever arrives as page-provided.
 *
 * Every function that reads the page takes the window as a parameter, so unit tests run it on a
 * happy-dom window. Imports: types, the event names, and the import-free `json-safe.ts` only.
 */
import { toJsonSafe } from '@/core/registry/json-safe';
import {
  TO_ISOLATED_EVENT,
  TO_MAIN_EVENT,
  type IsolatedToMain,
  type MainToIsolated,
  type PageToolSource,
  type WireCallResult,
  type WireGroup,
  type WireTool,
  type WireToolList,
} from './wire';

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
const WEBMCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

type AnyFn = (...args: any[]) => unknown;

interface LiveTool {
  execute: AnyFn;
  source: PageToolSource;
}

interface WebMcpEntry {
  wire: WireTool;
  execute: AnyFn;
  /** Registered by the older `navigator.modelContext.provideContext` (replaced as a set). */
  provided: boolean;
}

export interface MainWorldBridge {
  /** Dispatches `devtoolstooldiscovery`, collects the groups, adds WebMCP tools; posts and returns the list. */
  discover(reason: string, requestId?: string): Promise<WireToolList>;
  /** Runs one tool by key; never throws. */
  call(key: string, input: Record<string, unknown>, callId?: string): Promise<WireCallResult>;
  /** Stops listening (tests). */
  dispose(): void;
}

export interface BridgeOptions {
  /** Discover on DOMContentLoaded, load and route changes (default true). */
  autoDiscover?: boolean;
  /** Provide `document.modelContext` / `navigator.modelContext` where missing (default true). */
  webmcp?: boolean;
}

/** Installs the bridge in `win` (the page's own window in the MAIN world). */
export function installMainWorldBridge(win: Window & typeof globalThis, options: BridgeOptions = {}): MainWorldBridge {
  // Taken now, before page scripts run, so a page that later replaces them does not break the bridge.
  const { JSON: Json, Promise: PromiseCtor, Object: ObjectCtor, Array: ArrayCtor } = win;
  const stringify = Json.stringify.bind(Json);
  const parse = Json.parse.bind(Json);
  const CustomEventCtor = win.CustomEvent;
  // Bound now: a page that later replaces these on window or EventTarget.prototype changes nothing.
  const dispatch = win.dispatchEvent.bind(win);
  const addListener = win.addEventListener.bind(win);
  const removeListener = win.removeEventListener.bind(win);
  const defineProperty = ObjectCtor.defineProperty;
  const isArray = ArrayCtor.isArray;
  const consoleRef = win.console;
  const logError = (...args: unknown[]) => {
    try {
      consoleRef.error(...args);
    } catch {
      // A page that broke its console.
    }
  };
  const setTimer = win.setTimeout.bind(win);
  const clearTimer = win.clearTimeout.bind(win);
  const now = () => win.performance.now();
  // One macrotask, not throttled in background tabs the way setTimeout is.
  const macrotask = makeMacrotask(win);

  let devtoolsTools = new Map<string, LiveTool>();
  let lastDevtoolsGroups: WireGroup[] = [];
  const webmcpTools = new Map<string, WebMcpEntry>();
  const running = new Map<string, AbortController>();
  let lastPosted = '';
  let disposed = false;

  function post(message: MainToIsolated): void {
    if (disposed) return;
    dispatch(new CustomEventCtor(TO_ISOLATED_EVENT, { detail: stringify(message) }));
  }

  function problem(list: string[], text: string, value?: unknown): void {
    list.push(text);
    logError(`[Sidequest page tools] ${text}`, ...(value === undefined ? [] : [value]));
  }

  // ——— devtoolstooldiscovery ———

  async function discoverDevtools(problems: string[]): Promise<{ groups: WireGroup[]; live: Map<string, LiveTool> }> {
    // A Promise is watched from the moment it is given, so its rejection is never "unhandled".
    const responses: Array<Promise<{ value: unknown } | { error: string }> | { value: unknown }> = [];
    let open = true;
    const event = new CustomEventCtor('devtoolstooldiscovery');
    defineProperty(event, 'respondWith', {
      value: (group: unknown) => {
        if (!open) {
          problem(problems, 'respondWith was called too late (after the discovery ended); answer synchronously, in a microtask, or with a Promise.');
          return;
        }
        responses.push(isThenable(group) ? settle(group, LIMITS.promiseWaitMs) : { value: group });
      },
      enumerable: true,
    });
    dispatch(event);
    // Synchronous answers and those given in a microtask are in; then give Promises time to settle.
    await macrotask();
    open = false;
    const settled = await PromiseCtor.all(responses);
    const groups: WireGroup[] = [];
    const live = new Map<string, LiveTool>();
    settled.forEach((outcome, index) => {
      if ('error' in outcome) {
        problem(problems, `Invalid toolGroup #${index + 1}: its Promise ${outcome.error}.`);
        return;
      }
      const group = checkGroup(outcome.value, index, problems, live);
      if (group) groups.push(group);
    });
    return { groups, live };
  }

  function checkGroup(raw: unknown, index: number, problems: string[], live: Map<string, LiveTool>): WireGroup | null {
    const label = `toolGroup #${index + 1}`;
    if (!isObject(raw)) {
      problem(problems, `Invalid toolGroup: ${label} is ${describeType(raw)}, not an object with name, description and tools.`, raw);
      return null;
    }
    const { name, description, tools } = raw as { name?: unknown; description?: unknown; tools?: unknown };
    if (typeof name !== 'string' || !name.trim()) {
      problem(problems, `Invalid toolGroup: ${label} has no string "name".`, raw);
      return null;
    }
    const groupName = clip(name.trim(), LIMITS.groupName);
    if (description !== undefined && typeof description !== 'string') {
      problem(problems, `Invalid toolGroup "${groupName}": "description" must be a string.`, raw);
      return null;
    }
    if (!isArray(tools)) {
      problem(problems, `Invalid toolGroup "${groupName}": "tools" must be an array.`, raw);
      return null;
    }
    const wireTools: WireTool[] = [];
    tools.forEach((tool: unknown, toolIndex: number) => {
      const checked = checkTool(tool, `toolGroup "${groupName}"`, problems);
      if (!checked) return;
      if (countTools() + live.size >= LIMITS.toolsPerPage) {
        problem(problems, `Invalid tool "${checked.wire.name}": the page offers more than ${LIMITS.toolsPerPage} tools; the rest are dropped.`);
        return;
      }
      const key = `dt:${index}:${toolIndex}:${checked.wire.name}`;
      live.set(key, { execute: checked.execute, source: 'devtools' });
      wireTools.push({ ...checked.wire, key });
    });
    if (!wireTools.length && tools.length) {
      problem(problems, `Invalid toolGroup "${groupName}": none of its tools is valid.`);
      return null;
    }
    return { name: groupName, description: clip(description ?? '', LIMITS.description), source: 'devtools', tools: wireTools };
  }

  function countTools(): number {
    return webmcpTools.size;
  }

  /** The reference's checks for one tool, plus what the agent needs: a JSON object schema. */
  function checkTool(raw: unknown, where: string, problems: string[]): { wire: Omit<WireTool, 'key'> & { key?: string }; execute: AnyFn } | null {
    if (!isObject(raw)) {
      problem(problems, `Invalid tool in ${where}: it is ${describeType(raw)}, not an object.`, raw);
      return null;
    }
    const tool = raw as { name?: unknown; description?: unknown; inputSchema?: unknown; execute?: unknown };
    if (typeof tool.name !== 'string' || !tool.name.trim()) {
      problem(problems, `Invalid tool in ${where}: it has no string "name".`, raw);
      return null;
    }
    const name = tool.name.trim();
    if (name.length > LIMITS.toolName) {
      problem(problems, `Invalid tool "${clip(name, 40)}" in ${where}: its name is longer than ${LIMITS.toolName} characters.`, raw);
      return null;
    }
    if (typeof tool.description !== 'string') {
      problem(problems, `Invalid tool "${name}" in ${where}: "description" must be a string.`, raw);
      return null;
    }
    if (typeof tool.execute !== 'function') {
      problem(problems, `Invalid tool "${name}" in ${where}: "execute" must be a function.`, raw);
      return null;
    }
    const schema = checkSchema(tool.inputSchema);
    if (typeof schema === 'string') {
      problem(problems, `Invalid tool "${name}" in ${where}: ${schema}`, raw);
      return null;
    }
    return {
      wire: { name, description: clip(tool.description, LIMITS.description), inputSchema: schema },
      execute: tool.execute as AnyFn,
    };
  }

  /** The schema as plain JSON, or a sentence saying what is wrong with it. */
  function checkSchema(schema: unknown): Record<string, unknown> | string {
    if (!isObject(schema) || isArray(schema)) return `"inputSchema" must be a JSON Schema object, not ${describeType(schema)}.`;
    let json: string | undefined;
    try {
      json = stringify(schema);
    } catch (error) {
      return `"inputSchema" cannot be turned into JSON (${errorText(error)}).`;
    }
    if (json === undefined) return '"inputSchema" cannot be turned into JSON.';
    if (json.length > LIMITS.schemaChars) return `"inputSchema" is larger than ${LIMITS.schemaChars} characters of JSON.`;
    const plain = parse(json) as Record<string, unknown>;
    const type = plain.type;
    if (type !== undefined && type !== 'object' && !(isArray(type) && type.includes('object'))) {
      return `"inputSchema" must describe an object of named arguments (type "object"), not type ${stringify(type)}.`;
    }
    return plain;
  }

  // ——— WebMCP ———

  function webmcpGroup(): WireGroup[] {
    if (!webmcpTools.size) return [];
    return [
      {
        name: 'WebMCP',
        description: 'Tools the page registered with WebMCP (document.modelContext).',
        source: 'webmcp',
        tools: [...webmcpTools.values()].map((entry) => entry.wire),
      },
    ];
  }

  /** Registers one WebMCP tool, or throws the error the API would reject with. */
  function registerWebMcp(raw: unknown, provided: boolean): string {
    if (!isObject(raw)) throw new TypeError('registerTool: the tool must be an object.');
    const tool = raw as { name?: unknown; title?: unknown; description?: unknown; inputSchema?: unknown; execute?: unknown; annotations?: unknown };
    if (typeof tool.name !== 'string' || !WEBMCP_NAME.test(tool.name)) {
      throw new TypeError('registerTool: "name" must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and ".".');
    }
    if (typeof tool.description !== 'string' || !tool.description) {
      throw new TypeError(`registerTool: tool "${tool.name}" needs a non-empty "description".`);
    }
    if (typeof tool.execute !== 'function') throw new TypeError(`registerTool: tool "${tool.name}" needs an "execute" function.`);
    if (webmcpTools.has(tool.name)) {
      throw new win.DOMException(`registerTool: a tool named "${tool.name}" is already registered.`, 'InvalidStateError');
    }
    let rawSchema = tool.inputSchema ?? { type: 'object', properties: {} };
    if (typeof rawSchema === 'string') {
      try {
        rawSchema = parse(rawSchema);
      } catch {
        throw new TypeError(`registerTool: the "inputSchema" of "${tool.name}" is not valid JSON.`);
      }
    }
    const schema = checkSchema(rawSchema);
    if (typeof schema === 'string') throw new TypeError(`registerTool: tool "${tool.name}": ${schema}`);
    if (webmcpTools.size + devtoolsTools.size >= LIMITS.toolsPerPage) {
      throw new win.DOMException(`registerTool: the page already offers ${LIMITS.toolsPerPage} tools.`, 'QuotaExceededError');
    }
    const annotations: Record<string, boolean> = {};
    if (isObject(tool.annotations)) {
      for (const [k, v] of ObjectCtor.entries(tool.annotations as object)) if (typeof v === 'boolean') annotations[k] = v;
    }
    webmcpTools.set(tool.name, {
      wire: {
        key: `wm:${tool.name}`,
        name: tool.name,
        description: clip(tool.description, LIMITS.description),
        inputSchema: schema,
        ...(typeof tool.title === 'string' ? { title: clip(tool.title, LIMITS.groupName) } : {}),
        ...(ObjectCtor.keys(annotations).length ? { annotations } : {}),
      },
      execute: tool.execute as AnyFn,
      provided,
    });
    announceWebMcpChange();
    return tool.name;
  }

  function unregisterWebMcp(name: string): void {
    if (webmcpTools.delete(name)) announceWebMcpChange();
  }

  let announcePending = false;
  /** WebMCP changes are posted at the end of the current task: at once, and once per batch. */
  function announceWebMcpChange(): void {
    if (announcePending) return;
    announcePending = true;
    queueMicrotask(() => {
      announcePending = false;
      postList({ groups: [...lastDevtoolsGroups, ...webmcpGroup()], problems: [], reason: 'webmcp', discoveryMs: 0 });
    });
  }

  function installWebMcp(): void {
    const doc = win.document as Document & { modelContext?: any };
    const nav = win.navigator as Navigator & { modelContext?: any };
    const registerWithSignal = (tool: unknown, opts?: { signal?: AbortSignal }) =>
      new PromiseCtor<undefined>((resolve, reject) => {
        const signal = opts?.signal;
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        let name: string;
        try {
          name = registerWebMcp(tool, false);
        } catch (error) {
          reject(error);
          return;
        }
        signal?.addEventListener('abort', () => {
          // The tool goes at once; a promise not yet settled rejects with the reason.
          if (webmcpTools.get(name)?.wire.key === `wm:${name}`) unregisterWebMcp(name);
          reject(signal.reason);
        }, { once: true });
        queueMicrotask(() => (signal?.aborted ? reject(signal.reason) : resolve(undefined)));
      });

    if (doc.modelContext && typeof doc.modelContext.registerTool === 'function') {
      // A native implementation: keep it, and see what the page registers through it.
      const native = doc.modelContext;
      const nativeRegister = native.registerTool;
      native.registerTool = function (tool: unknown, opts?: { signal?: AbortSignal }) {
        const result = nativeRegister.call(this, tool, opts);
        void PromiseCtor.resolve(result).then(() => {
          try {
            const name = registerWebMcp(tool, false);
            opts?.signal?.addEventListener('abort', () => unregisterWebMcp(name), { once: true });
          } catch {
            // Already known, or invalid: the native API answered the page.
          }
        }, () => undefined);
        return result;
      };
    } else {
      const modelContext = {
        registerTool: registerWithSignal,
        /** The consumer side, for in-page agents and tests: what is registered. */
        getTools: () =>
          [...webmcpTools.values()].map((e) => ({ name: e.wire.name, description: e.wire.description, inputSchema: e.wire.inputSchema })),
      };
      defineProperty(doc, 'modelContext', { value: modelContext, configurable: true, enumerable: false, writable: false });
    }

    if (!nav.modelContext) {
      // The older API (navigator.modelContext): provideContext replaces the set it provided before.
      const legacy = {
        provideContext(context?: { tools?: unknown[] }) {
          for (const [name, entry] of [...webmcpTools]) if (entry.provided) webmcpTools.delete(name);
          for (const tool of context?.tools ?? []) registerWebMcp(tool, true);
          announceWebMcpChange();
        },
        registerTool(tool: unknown) {
          const name = registerWebMcp(tool, false);
          return { unregister: () => unregisterWebMcp(name) };
        },
        unregisterTool(name: unknown) {
          if (typeof name === 'string') unregisterWebMcp(name);
        },
        clearContext() {
          if (!webmcpTools.size) return;
          webmcpTools.clear();
          announceWebMcpChange();
        },
      };
      defineProperty(nav, 'modelContext', { value: legacy, configurable: true, enumerable: false, writable: false });
    }
  }

  // ——— Lists and calls ———

  let generation = 0;

  async function discover(reason: string, requestId?: string): Promise<WireToolList> {
    const started = now();
    const mine = ++generation;
    const problems: string[] = [];
    const { groups, live } = await discoverDevtools(problems);
    // Two discoveries may overlap (a route change during a refresh): the newest one wins.
    if (mine === generation) {
      devtoolsTools = live;
      lastDevtoolsGroups = groups;
    }
    const list = { groups: [...lastDevtoolsGroups, ...webmcpGroup()], problems, reason, discoveryMs: now() - started };
    // Always posted: the relay re-announces after a port it lost (a route change after a restart).
    return postList(list, requestId, true);
  }

  /** Posts a list when it differs from the last one posted, or when someone asked for it. */
  function postList(list: WireToolList, requestId?: string, force = false): WireToolList {
    const signature = stringify(list.groups);
    if (force || signature !== lastPosted) {
      lastPosted = signature;
      post({ type: 'tools', list, ...(requestId ? { requestId } : {}) });
    }
    return list;
  }

  async function call(key: string, input: Record<string, unknown>, callId?: string): Promise<WireCallResult> {
    const live = devtoolsTools.get(key);
    const web = key.startsWith('wm:') ? webmcpTools.get(key.slice(3)) : undefined;
    const execute = live?.execute ?? web?.execute;
    if (!execute) {
      return {
        ok: false,
        error: 'The page no longer offers this tool (it changed its tools or navigated). Call list_page_tools to see what it offers now.',
      };
    }
    const controller = new AbortController();
    if (callId) running.set(callId, controller);
    try {
      const client = { signal: controller.signal, requestUserInteraction: (cb: () => unknown) => PromiseCtor.resolve().then(cb) };
      const value = await execute(input, client);
      return serializeResult(value, stringify);
    } catch (error) {
      return { ok: false, error: errorText(error) || 'The tool threw an error without a message.' };
    } finally {
      if (callId) running.delete(callId);
    }
  }

  function onMessage(event: Event): void {
    let message: IsolatedToMain;
    try {
      const detail = (event as CustomEvent).detail;
      if (typeof detail !== 'string') return;
      message = parse(detail) as IsolatedToMain;
    } catch {
      return;
    }
    if (!isObject(message)) return;
    if (message.type === 'discover') {
      void discover(String(message.reason ?? 'refresh'), typeof message.requestId === 'string' ? message.requestId : undefined);
    } else if (message.type === 'call' && typeof message.callId === 'string' && typeof message.key === 'string') {
      const callId = message.callId;
      const input = isObject(message.input) ? message.input : {};
      void call(message.key, input, callId).then((result) => post({ type: 'result', callId, result }));
    } else if (message.type === 'cancel' && typeof message.callId === 'string') {
      running.get(message.callId)?.abort(new win.DOMException(String(message.reason ?? 'Cancelled'), 'AbortError'));
    }
  }

  // ——— Wiring ———

  addListener(TO_MAIN_EVENT, onMessage);
  if (options.webmcp !== false) installWebMcp();

  let routeTimer: number | undefined;
  const onRoute = () => {
    clearTimer(routeTimer);
    // After the router has rendered the new route (a task later), ask again.
    routeTimer = setTimer(() => void discover('route change'), 50);
  };
  const onLoad = (reason: string) => () => void discover(reason);
  const onDomReady = onLoad('page loaded');
  const onWindowLoad = onLoad('page loaded');
  let restoreHistory = () => {};
  if (options.autoDiscover !== false) {
    if (win.document.readyState === 'loading') win.document.addEventListener('DOMContentLoaded', onDomReady, { once: true });
    else void discover('page loaded');
    if (win.document.readyState !== 'complete') addListener('load', onWindowLoad, { once: true });
    addListener('popstate', onRoute);
    addListener('hashchange', onRoute);
    restoreHistory = patchHistory(win, onRoute);
  }

  return {
    discover,
    call,
    dispose() {
      disposed = true;
      removeListener(TO_MAIN_EVENT, onMessage);
      removeListener('popstate', onRoute);
      removeListener('hashchange', onRoute);
      restoreHistory();
      clearTimer(routeTimer);
    },
  };
}

/** Wraps pushState/replaceState so an SPA's route change triggers a fresh discovery. */
function patchHistory(win: Window, onChange: () => void): () => void {
  const history = win.history;
  const originals = { pushState: history.pushState, replaceState: history.replaceState };
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = originals[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      onChange();
      return result;
    };
  }
  return () => {
    history.pushState = originals.pushState;
    history.replaceState = originals.replaceState;
  };
}

/** Makes a value JSON-safe by the reference rules and serializes it, cut when it is too long. */
export function serializeResult(value: unknown, stringify: (v: unknown) => string | undefined = JSON.stringify): WireCallResult {
  let json: string;
  try {
    const safe = toJsonSafe(value);
    json = safe === undefined ? '' : (stringify(safe) ?? '');
  } catch (error) {
    return { ok: false, error: `The tool's result could not be turned into JSON: ${errorText(error)}` };
  }
  if (json.length > LIMITS.resultChars) return { ok: true, json: json.slice(0, LIMITS.resultChars), cut: { totalChars: json.length } };
  return { ok: true, json };
}

function makeMacrotask(win: Window & typeof globalThis): () => Promise<void> {
  const Channel = win.MessageChannel;
  if (typeof Channel !== 'function') return () => new Promise((resolve) => win.setTimeout(resolve, 0));
  return () =>
    new Promise((resolve) => {
      const channel = new Channel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(null);
    });
}

function settle(promise: PromiseLike<unknown>, timeoutMs: number): Promise<{ value: unknown } | { error: string }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ error: `did not settle within ${timeoutMs} ms` }), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve({ value });
      },
      (error) => {
        clearTimeout(timer);
        resolve({ error: `was rejected (${errorText(error)})` });
      },
    );
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function errorText(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error && typeof (error as Error).message === 'string') {
    return (error as Error).message || (error as Error).name || 'Error';
  }
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

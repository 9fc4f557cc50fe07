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
 * happy-dom window. Imports: types, the event names, and import-free page-side modules only
 * (`json-safe.ts`, `core/page/*`, `declarative.ts`).
 *
 * Same-origin child frames run their own bridge (the MAIN-world script runs in all frames); the
 * top frame's bridge asks theirs during discovery and routes calls to them (keys `fr<n>|…`). Only
 * the top frame's bridge talks to the relay.
 */
import { elementRefsFor, type ElementRefs } from '@/core/page/element-refs';
import { resolveElementParams } from '@/core/page/element-schema';
import { toJsonSafe } from '@/core/registry/json-safe';
import { fillForm, formToolInfo } from './declarative';
import {
  TO_ISOLATED_EVENT,
  TO_MAIN_EVENT,
  type IsolatedToMain,
  type MainToIsolated,
  type PageToolSource,
  type WireCallResult,
  type WireCallStatus,
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
export const WEBMCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Where a window's bridge is kept, so a same-origin parent frame's bridge can reach it. */
export const BRIDGE_KEY = Symbol.for('sidequest.page-tools.bridge');

type AnyFn = (...args: any[]) => unknown;

interface LiveTool {
  execute: AnyFn;
  source: PageToolSource;
  /** The page's own input schema: where element parameters are. */
  schema: Record<string, unknown>;
}

interface WebMcpEntry {
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

interface FormEntry {
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
}

/** Installs the bridge in `win` (the page's own window in the MAIN world). */
export function installMainWorldBridge(win: Window & typeof globalThis, options: BridgeOptions = {}): MainWorldBridge {
  // Taken now, before page scripts run, so a page that later replaces them does not break the bridge.
  const { JSON: Json, Promise: PromiseCtor, Object: ObjectCtor, Array: ArrayCtor } = win;
  const stringify = Json.stringify.bind(Json);
  const parse = Json.parse.bind(Json);
  const CustomEventCtor = win.CustomEvent;
  const EventCtor = win.Event;
  const DOMExceptionCtor = win.DOMException;
  const URLCtor = win.URL;
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
  const refs: ElementRefs = elementRefsFor(win);
  const isTop = (() => {
    try {
      return win.top === win;
    } catch {
      return false;
    }
  })();

  let devtoolsTools = new Map<string, LiveTool>();
  let lastDevtoolsGroups: WireGroup[] = [];
  const webmcpTools = new Map<string, WebMcpEntry>();
  let formTools = new Map<string, FormEntry>();
  let formProblems: string[] = [];
  let frameGroups: WireGroup[] = [];
  /** Child frames by the id their keys carry (`fr3|…`). */
  const frameWindows = new Map<string, Window>();
  const frameIds = new WeakMap<Window, string>();
  let frameCounter = 0;
  const running = new Map<string, AbortController>();
  let lastPosted = '';
  let disposed = false;

  function post(message: MainToIsolated): void {
    // Only the top frame talks to the relay; a child frame's bridge answers its parent.
    if (disposed || !isTop) return;
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
    // No description is fine (Angular's own group has none); one that is not a string is not.
    if (description !== undefined && description !== null && typeof description !== 'string') {
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
      live.set(key, { execute: checked.execute, source: 'devtools', schema: checked.wire.inputSchema });
      wireTools.push({ ...checked.wire, key });
    });
    if (!wireTools.length && tools.length) {
      problem(problems, `Invalid toolGroup "${groupName}": none of its tools is valid.`);
      return null;
    }
    return { name: groupName, description: clip(typeof description === 'string' ? description : '', LIMITS.description), source: 'devtools', tools: wireTools };
  }

  function countTools(): number {
    return webmcpTools.size + formTools.size;
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
      wire: { name, description: clip(tool.description.trim(), LIMITS.description), inputSchema: schema },
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
    return checkSchemaJson(json);
  }

  function checkSchemaJson(json: string): Record<string, unknown> | string {
    if (json.length > LIMITS.schemaChars) return `"inputSchema" is larger than ${LIMITS.schemaChars} characters of JSON.`;
    const plain = parse(json) as unknown;
    if (!isObject(plain) || isArray(plain)) return `"inputSchema" must be a JSON Schema object, not ${describeType(plain)}.`;
    const type = (plain as Record<string, unknown>).type;
    if (type !== undefined && type !== 'object' && !(isArray(type) && type.includes('object'))) {
      return `"inputSchema" must describe an object of named arguments (type "object"), not type ${stringify(type)}.`;
    }
    return plain as Record<string, unknown>;
  }

  // ——— WebMCP ———

  function webmcpGroups(): WireGroup[] {
    const groups: WireGroup[] = [];
    if (webmcpTools.size) {
      groups.push({
        name: 'WebMCP',
        description: 'Tools the page registered with WebMCP (document.modelContext).',
        source: 'webmcp',
        tools: [...webmcpTools.values()].map((entry) => entry.wire),
      });
    }
    if (formTools.size) {
      groups.push({
        name: 'WebMCP forms',
        description: 'Forms of the page declared as tools (declarative WebMCP): a call fills the form as a user would.',
        source: 'webmcp',
        tools: [...formTools.values()].map((entry) => entry.wire),
      });
    }
    return groups;
  }

  const domError = (message: string, name: string) => new DOMExceptionCtor(message, name);

  /**
   * Registers one WebMCP tool with the spec's checks, in its order (webmachinelearning/webmcp,
   * `registerTool`): dictionary members (TypeError), a taken name, an empty name or description,
   * a name outside `[A-Za-z0-9_.-]{1,128}` (InvalidStateError), a schema JSON cannot hold (the
   * serializer's error), then an `exposedTo` origin that does not parse or is not potentially
   * trustworthy (SecurityError). Throws what the API rejects with; returns the entry to store.
   */
  function checkWebMcpTool(raw: unknown, exposedToRaw: unknown, provided: boolean): WebMcpEntry {
    if (!isObject(raw)) throw new TypeError('registerTool: the tool must be an object (a ModelContextTool dictionary).');
    const tool = raw as { name?: unknown; title?: unknown; description?: unknown; inputSchema?: unknown; execute?: unknown; annotations?: unknown };
    if (tool.name === undefined) throw new TypeError('registerTool: the required member "name" is missing.');
    if (tool.description === undefined) throw new TypeError(`registerTool: tool "${String(tool.name)}": the required member "description" is missing.`);
    if (typeof tool.execute !== 'function') throw new TypeError(`registerTool: tool "${String(tool.name)}" needs an "execute" function.`);
    const name = String(tool.name);
    const description = String(tool.description);
    const title = tool.title === undefined || tool.title === null ? undefined : String(tool.title);
    if (tool.annotations !== undefined && tool.annotations !== null && !isObject(tool.annotations)) {
      throw new TypeError(`registerTool: tool "${name}": "annotations" must be an object.`);
    }
    if (webmcpTools.has(name) || [...formTools.values()].some((f) => f.wire.name === name)) {
      throw domError(`registerTool: a tool named "${name}" is already registered.`, 'InvalidStateError');
    }
    if (!name || !description) throw domError('registerTool: "name" and "description" must not be empty.', 'InvalidStateError');
    if (!WEBMCP_NAME.test(name)) {
      throw domError('registerTool: "name" must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and ".".', 'InvalidStateError');
    }
    let schemaJson = '';
    let schema: Record<string, unknown> = { type: 'object', properties: {} };
    if (tool.inputSchema !== undefined) {
      let source = tool.inputSchema;
      // Older pages pass the schema as a JSON string.
      if (typeof source === 'string') {
        try {
          source = parse(source);
        } catch {
          throw new TypeError(`registerTool: the "inputSchema" of "${name}" is not valid JSON.`);
        }
      }
      const json = stringify(source); // Its own exception (a cycle, a BigInt) is the rejection.
      if (json === undefined) throw new TypeError(`registerTool: the "inputSchema" of "${name}" cannot be serialized to JSON.`);
      const checked = checkSchemaJson(json);
      if (typeof checked === 'string') throw new TypeError(`registerTool: tool "${name}": ${checked}`);
      schemaJson = json;
      schema = checked;
    }
    const annotations = (tool.annotations ?? {}) as Record<string, unknown>;
    const readOnlyHint = annotations.readOnlyHint === true;
    const untrustedContentHint = annotations.untrustedContentHint === true;
    const exposedTo = checkExposedTo(exposedToRaw);
    if (webmcpTools.size + devtoolsTools.size + formTools.size >= LIMITS.toolsPerPage) {
      throw domError(`registerTool: the page already offers ${LIMITS.toolsPerPage} tools.`, 'QuotaExceededError');
    }
    const wireAnnotations: Record<string, boolean> = {};
    if (readOnlyHint) wireAnnotations.readOnlyHint = true;
    if (untrustedContentHint) wireAnnotations.untrustedContentHint = true;
    return {
      wire: {
        key: `wm:${name}`,
        name,
        description: clip(description.trim(), LIMITS.description),
        inputSchema: schema,
        ...(title ? { title: clip(title, LIMITS.groupName) } : {}),
        ...(ObjectCtor.keys(wireAnnotations).length ? { annotations: wireAnnotations } : {}),
      },
      execute: tool.execute as AnyFn,
      provided,
      schemaJson,
      readOnlyHint,
      untrustedContentHint,
      exposedTo,
    };
  }

  /** `exposedTo`: each entry must parse as a URL with a potentially trustworthy origin (kept, not acted on). */
  function checkExposedTo(raw: unknown): string[] {
    if (raw === undefined || raw === null) return [];
    if (!isObject(raw) || typeof (raw as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
      throw new TypeError('registerTool: "exposedTo" must be a sequence of origins.');
    }
    const origins: string[] = [];
    for (const entry of ArrayCtor.from(raw as unknown as Iterable<unknown>)) {
      let url: URL;
      try {
        url = new URLCtor(String(entry));
      } catch {
        throw domError(`registerTool: "exposedTo" entry "${clip(String(entry), 80)}" is not a URL.`, 'SecurityError');
      }
      if (!potentiallyTrustworthy(url)) {
        throw domError(`registerTool: "exposedTo" origin "${clip(String(entry), 80)}" is not potentially trustworthy.`, 'SecurityError');
      }
      origins.push(url.origin);
    }
    return origins;
  }

  function storeWebMcp(entry: WebMcpEntry): string {
    webmcpTools.set(entry.wire.name, entry);
    announceChange();
    return entry.wire.name;
  }

  function unregisterWebMcp(name: string): void {
    if (webmcpTools.delete(name)) announceChange();
  }

  let announcePending = false;
  /** WebMCP changes are posted at the end of the current task: at once, and once per batch; `toolchange` fires a task later. */
  function announceChange(): void {
    if (announcePending) return;
    announcePending = true;
    queueMicrotask(() => {
      announcePending = false;
      postList({ groups: currentGroups(), problems: [...formProblems], reason: 'webmcp', discoveryMs: 0 });
      notifyParent();
    });
    void macrotask().then(fireToolChange);
  }

  let fireToolChange: () => void = () => undefined;

  /**
   * `toolactivated` (an agent filled a declarative form, before it is submitted) and `toolcancel`
   * (the agent cancelled the call; not for the page's own reset) on `document.modelContext`, with
   * `toolName`, as Chrome fires them. A page's listener that throws does not stop the call.
   */
  function fireAgentEvent(type: 'toolactivated' | 'toolcancel', toolName: string): void {
    const target = (win.document as unknown as { modelContext?: { dispatchEvent?: unknown } }).modelContext;
    if (disposed || !target || typeof target.dispatchEvent !== 'function') return;
    const event = new EventCtor(type);
    defineProperty(event, 'toolName', { value: toolName, enumerable: true });
    try {
      (target as EventTarget).dispatchEvent(event);
    } catch {
      // Listeners' errors are reported by the browser, not thrown here.
    }
  }

  function currentGroups(): WireGroup[] {
    return [...lastDevtoolsGroups, ...webmcpGroups(), ...frameGroups];
  }

  function toolListForPage(): Array<Record<string, unknown>> {
    const origin = win.location.origin;
    const imperative = [...webmcpTools.values()].map((e) => ({
      name: e.wire.name,
      ...(e.wire.title ? { title: e.wire.title } : {}),
      description: e.wire.description,
      inputSchema: e.schemaJson,
      annotations: { readOnlyHint: e.readOnlyHint, untrustedContentHint: e.untrustedContentHint },
      origin,
    }));
    const declarative = [...formTools.values()].map((e) => ({
      name: e.wire.name,
      description: e.wire.description,
      inputSchema: stringify(e.wire.inputSchema),
      annotations: { readOnlyHint: false, untrustedContentHint: false },
      origin,
    }));
    return [...imperative, ...declarative];
  }

  function installWebMcp(): void {
    const doc = win.document as Document & { modelContext?: any };
    const nav = win.navigator as Navigator & { modelContext?: any };

    if (doc.modelContext && typeof doc.modelContext.registerTool === 'function') {
      // A native implementation: keep it, and see what the page registers through it.
      const native = doc.modelContext;
      const nativeRegister = native.registerTool;
      native.registerTool = function (tool: unknown, opts?: { signal?: AbortSignal; exposedTo?: unknown }) {
        const result = nativeRegister.call(this, tool, opts);
        void PromiseCtor.resolve(result).then(() => {
          try {
            const name = storeWebMcp(checkWebMcpTool(tool, opts?.exposedTo, false));
            opts?.signal?.addEventListener('abort', () => unregisterWebMcp(name), { once: true });
          } catch {
            // Already known, or invalid: the native API answered the page.
          }
        }, () => undefined);
        return result;
      };
    } else {
      const context = new win.EventTarget() as EventTarget & Record<string, unknown>;
      let handler: ((event: Event) => unknown) | null = null;
      // An event handler attribute: its listener takes its place among the others when first set.
      const handlerListener = (event: Event) => {
        if (typeof handler === 'function') handler.call(context, event);
      };
      fireToolChange = () => {
        if (!disposed) context.dispatchEvent(new EventCtor('toolchange'));
      };
      const registerTool = (tool: unknown, opts?: unknown) =>
        new PromiseCtor<undefined>((resolve, reject) => {
          if (opts !== undefined && opts !== null && !isObject(opts)) {
            reject(new TypeError('registerTool: the options must be an object.'));
            return;
          }
          const { signal, exposedTo } = (opts ?? {}) as { signal?: AbortSignal; exposedTo?: unknown };
          if (signal !== undefined && !(signal instanceof win.AbortSignal)) {
            reject(new TypeError('registerTool: "signal" must be an AbortSignal.'));
            return;
          }
          let entry: WebMcpEntry;
          try {
            entry = checkWebMcpTool(tool, undefined, false);
          } catch (error) {
            reject(error);
            return;
          }
          if (signal?.aborted) {
            reject(signal.reason);
            return;
          }
          try {
            entry.exposedTo = checkExposedTo(exposedTo);
          } catch (error) {
            reject(error);
            return;
          }
          const name = storeWebMcp(entry);
          signal?.addEventListener('abort', () => {
            // The tool goes at once; a promise not yet settled rejects with the reason.
            if (webmcpTools.get(name) === entry) unregisterWebMcp(name);
            reject(signal.reason);
          }, { once: true });
          // `toolchange` is fired a task later, then the promise resolves (the spec's order).
          void macrotask().then(() => macrotask()).then(() => resolve(undefined));
        });
      defineProperty(context, 'registerTool', { value: registerTool, enumerable: true });
      defineProperty(context, 'getTools', {
        /** Chrome's addition: the tools registered in this document, imperative and declarative. */
        value: () => PromiseCtor.resolve(toolListForPage()),
        enumerable: true,
      });
      defineProperty(context, 'ontoolchange', {
        get: () => handler,
        set: (fn: unknown) => {
          const next = typeof fn === 'function' ? (fn as (event: Event) => unknown) : null;
          if (next && !handler) context.addEventListener('toolchange', handlerListener);
          if (!next && handler) context.removeEventListener('toolchange', handlerListener);
          handler = next;
        },
        enumerable: true,
      });
      defineProperty(context, Symbol.toStringTag, { value: 'ModelContext' });
      defineProperty(doc, 'modelContext', { value: context, configurable: true, enumerable: false, writable: false });
    }

    if (!nav.modelContext) {
      // The older API (navigator.modelContext): provideContext replaces the set it provided before.
      const legacy = {
        provideContext(context?: { tools?: unknown[] }) {
          for (const [name, entry] of [...webmcpTools]) if (entry.provided) webmcpTools.delete(name);
          for (const tool of context?.tools ?? []) storeWebMcp(checkWebMcpTool(tool, undefined, true));
          announceChange();
        },
        registerTool(tool: unknown) {
          const name = storeWebMcp(checkWebMcpTool(tool, undefined, false));
          return { unregister: () => unregisterWebMcp(name) };
        },
        unregisterTool(name: unknown) {
          if (typeof name === 'string') unregisterWebMcp(name);
        },
        clearContext() {
          if (!webmcpTools.size) return;
          webmcpTools.clear();
          announceChange();
        },
        /** Some pages read their tools back from here too. */
        getTools: () => PromiseCtor.resolve(toolListForPage()),
      };
      defineProperty(nav, 'modelContext', { value: legacy, configurable: true, enumerable: false, writable: false });
    }
  }

  // ——— Declarative WebMCP ———

  /** Forms with `toolname` now: rebuilt on each change of the DOM that touches them. */
  function scanForms(): boolean {
    const next = new Map<string, FormEntry>();
    const problems: string[] = [];
    const forms = ArrayCtor.from(win.document.querySelectorAll('form[toolname]')) as HTMLFormElement[];
    for (const form of forms) {
      const info = formToolInfo(form, WEBMCP_NAME);
      if (typeof info === 'string') {
        problems.push(info);
        continue;
      }
      const key = `df:${info.name}`;
      if (next.has(key) || webmcpTools.has(info.name)) {
        problems.push(`Invalid form tool "${info.name}": another tool of the page has that name.`);
        continue;
      }
      if (next.size + webmcpTools.size + devtoolsTools.size >= LIMITS.toolsPerPage) break;
      const json = stringify(info.schema);
      if (json.length > LIMITS.schemaChars) {
        problems.push(`Invalid form tool "${info.name}": its form has too many fields.`);
        continue;
      }
      next.set(key, {
        form,
        wire: { key, name: info.name, description: clip(info.description, LIMITS.description), inputSchema: info.schema, form: { autosubmit: info.autosubmit } },
      });
    }
    const before = stringify([...formTools.values()].map((e) => e.wire));
    const after = stringify([...next.values()].map((e) => e.wire));
    // A form whose tool changed or went away cancels its running call (the explainer's rule).
    for (const [key, entry] of formTools) {
      const now = next.get(key);
      if (!now || now.form !== entry.form || stringify(now.wire) !== stringify(entry.wire)) formCancels.get(entry.form)?.('The form\'s tool declaration changed or the form was removed.');
    }
    formTools = next;
    formProblems = problems;
    return before !== after;
  }

  let formTimer: number | undefined;
  function watchForms(): () => void {
    const Observer = win.MutationObserver;
    if (typeof Observer !== 'function') return () => undefined;
    const observer = new Observer((records) => {
      // Our own highlight of a waiting form is no change of its tool.
      if (records.every((r) => r.type === 'attributes' && (r.attributeName === 'style' || r.attributeName === 'data-tool-form-active'))) return;
      clearTimer(formTimer);
      formTimer = setTimer(() => {
        if (scanForms()) announceChange();
      }, 50) as unknown as number;
    });
    const start = () =>
      observer.observe(win.document.documentElement ?? win.document, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['toolname', 'tooldescription', 'toolautosubmit', 'toolparamdescription', 'name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'minlength', 'maxlength', 'multiple', 'disabled', 'value'],
      });
    start();
    return () => observer.disconnect();
  }

  /** Cancels the running call of a form (reset, removed, its tool changed). */
  const formCancels = new WeakMap<HTMLFormElement, (reason: string) => void>();

  function installSubmitEventApi(): void {
    // Where the browser has no declarative WebMCP: a submit the agent did not start says so.
    const proto = win.SubmitEvent?.prototype as (SubmitEvent & Record<string, unknown>) | undefined;
    if (!proto || 'agentInvoked' in proto) return;
    defineProperty(proto, 'agentInvoked', { get: () => false, configurable: true, enumerable: true });
    defineProperty(proto, 'respondWith', {
      value: () => {
        throw domError('respondWith: this submit was not started by an agent.', 'InvalidStateError');
      },
      configurable: true,
      writable: true,
    });
  }

  function callForm(entry: FormEntry, input: Record<string, unknown>, signal: AbortSignal, onStatus?: (status: WireCallStatus) => void): Promise<WireCallResult> {
    const { form } = entry;
    const autosubmit = Boolean(entry.wire.form?.autosubmit);
    if (!form.isConnected) return PromiseCtor.resolve({ ok: false, error: 'The form is no longer in the page.' });
    try {
      fillForm(win, form, input);
    } catch (error) {
      return PromiseCtor.resolve({ ok: false, error: errorText(error) });
    }
    fireAgentEvent('toolactivated', entry.wire.name);
    return new PromiseCtor<WireCallResult>((resolve) => {
      let done = false;
      const previousOutline = form.style.outline;
      const previousOffset = form.style.outlineOffset;
      const finish = (result: WireCallResult) => {
        if (done) return;
        done = true;
        removeListener('submit', onSubmit, true);
        removeListener('pagehide', onPageHide);
        form.removeEventListener('reset', onReset);
        signal.removeEventListener('abort', onAbort);
        formCancels.delete(form);
        if (!autosubmit) {
          form.style.outline = previousOutline;
          form.style.outlineOffset = previousOffset;
          form.removeAttribute('data-tool-form-active');
        }
        resolve(result);
      };
      let navigatingSaid = false;
      const sayNavigating = () => {
        if (navigatingSaid || done) return;
        navigatingSaid = true;
        onStatus?.('navigating');
      };
      let submitted = false;
      // The document may go before a task later (Firefox): leaving after a submit is a navigation.
      const onPageHide = () => {
        if (submitted) sayNavigating();
      };
      const onSubmit = (event: Event) => {
        if (event.target !== form || done) return;
        submitted = true;
        let responded = false;
        defineProperty(event, 'agentInvoked', { value: true, configurable: true, enumerable: true });
        defineProperty(event, 'respondWith', {
          value: (response: unknown) => {
            if (responded) throw domError('respondWith was already called for this submit.', 'InvalidStateError');
            responded = true;
            // The page answers instead of navigating.
            event.preventDefault();
            PromiseCtor.resolve(response).then(
              (value) => finish(resultOf(value)),
              (error) => finish({ ok: false, error: errorText(error) || 'The page rejected the form\'s response without a message.' }),
            );
          },
          configurable: true,
          enumerable: true,
        });
        // After every listener of this submit has run (a task later, whoever dispatched it).
        void macrotask().then(() => {
          if (responded || done) return;
          if (event.defaultPrevented) {
            finish({ ok: true, json: stringify({ submitted: true, note: 'The page took the form without navigating and gave no response.' }) });
          } else {
            // The browser is about to load the form's action: the background reports where it landed.
            sayNavigating();
          }
        });
      };
      const onReset = () => finish({ ok: false, error: 'The form was reset before it was submitted: nothing was sent.' });
      // The agent's cancel (Stop): the page hears `toolcancel`; its own changes end the call quietly.
      const onAbort = () => {
        if (done) return;
        finish({ ok: false, error: 'Cancelled: the agent stopped waiting for the form.' });
        fireAgentEvent('toolcancel', entry.wire.name);
      };
      formCancels.set(form, (reason) => finish({ ok: false, error: reason }));
      addListener('submit', onSubmit, true);
      addListener('pagehide', onPageHide);
      form.addEventListener('reset', onReset);
      signal.addEventListener('abort', onAbort, { once: true });
      if (autosubmit) {
        // An invalid form is not submitted at all (the browser shows its messages): say what is wrong.
        if (!form.noValidate && !form.checkValidity()) {
          finish({ ok: false, error: `The form was not submitted: ${invalidFields(form)}` });
          return;
        }
        try {
          form.requestSubmit();
        } catch (error) {
          finish({ ok: false, error: `The form could not be submitted: ${errorText(error)}` });
        }
        return;
      }
      // Shown to the user, who checks the form and submits it: the sidebar says so too.
      form.setAttribute('data-tool-form-active', '');
      form.style.outline = '3px solid #f59e0b';
      form.style.outlineOffset = '4px';
      try {
        form.scrollIntoView?.({ block: 'center' });
        (form.querySelector('button[type="submit"], button:not([type]), input[type="submit"]') as HTMLElement | null)?.focus?.();
      } catch {
        // Not fatal: the highlight is enough.
      }
      onStatus?.('waiting-user');
    });
  }

  // ——— Same-origin frames ———

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
        if (child && child.location.origin === win.location.origin && (child as unknown as Record<symbol, unknown>)[BRIDGE_KEY]) out.push(child);
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

  async function discoverFrames(problems: string[]): Promise<WireGroup[]> {
    const groups: WireGroup[] = [];
    for (const child of sameOriginChildren()) {
      // What sits under the key is the frame's (same-origin) business: a page could plant its own
      // object in a frame without our script (about:blank). It gets a time limit and a shape check,
      // and what it lists is cleaned like any list, in the relay and the background.
      try {
        const bridge = (child as unknown as Record<symbol, MainWorldBridge>)[BRIDGE_KEY]!;
        const list = await PromiseCtor.race([
          PromiseCtor.resolve(bridge.discover('parent frame asked')),
          new PromiseCtor<null>((resolve) => setTimer(() => resolve(null), LIMITS.promiseWaitMs + 500)),
        ]);
        if (!list || !isArray(list.groups)) continue;
        const id = frameIdOf(child);
        const href = String(child.location.href);
        if (isArray(list.problems)) for (const p of list.problems.slice(0, 5)) problems.push(`In a frame (${clip(href, 100)}): ${String(p)}`);
        for (const g of list.groups) {
          if (!isObject(g) || !isArray(g.tools)) continue;
          groups.push({ ...g, frame: typeof g.frame === 'string' ? g.frame : href, tools: g.tools.map((t) => ({ ...t, key: `${id}|${String(t?.key)}` })) });
        }
      } catch {
        // A frame that went away or answered nonsense: its tools are left out.
      }
    }
    return groups;
  }

  let childTimer: number | undefined;
  function childChanged(): void {
    clearTimer(childTimer);
    childTimer = setTimer(() => void discover('a frame changed its tools'), 50) as unknown as number;
  }

  function notifyParent(): void {
    if (isTop) return;
    try {
      const parentBridge = (win.parent as unknown as Record<symbol, MainWorldBridge | undefined>)[BRIDGE_KEY];
      if (win.parent.location.origin === win.location.origin) parentBridge?.childChanged();
    } catch {
      // A parent of another origin: it never gets this frame's tools.
    }
  }

  // ——— Lists and calls ———

  let generation = 0;

  async function discover(reason: string, requestId?: string): Promise<WireToolList> {
    const started = now();
    const mine = ++generation;
    const problems: string[] = [];
    const { groups, live } = await discoverDevtools(problems);
    if (options.declarative !== false) scanForms();
    const frames = await discoverFrames(problems);
    // Two discoveries may overlap (a route change during a refresh): the newest one wins.
    if (mine === generation) {
      devtoolsTools = live;
      lastDevtoolsGroups = groups;
      frameGroups = frames;
    }
    problems.push(...formProblems);
    const list = { groups: currentGroups(), problems, reason, discoveryMs: now() - started };
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

  /** A value the page gave as a result: an element becomes its reference; `{error}` is a failure. */
  function resultOf(value: unknown): WireCallResult {
    const failure = errorShaped(value);
    if (failure !== undefined) return { ok: false, error: failure };
    return serializeResult(value, stringify, refs);
  }

  async function call(key: string, input: Record<string, unknown>, callId?: string, onStatus?: (status: WireCallStatus) => void): Promise<WireCallResult> {
    const frameMatch = /^(fr\d+)\|(.+)$/.exec(key);
    if (frameMatch) {
      const child = frameWindows.get(frameMatch[1]!);
      let bridge: MainWorldBridge | undefined;
      try {
        if (child && child.location.origin === win.location.origin) bridge = (child as unknown as Record<symbol, MainWorldBridge>)[BRIDGE_KEY];
      } catch {
        bridge = undefined;
      }
      if (!bridge) return { ok: false, error: 'The frame that offered this tool is gone or now shows another site. Call list_page_tools to see what the page offers now.' };
      const target = bridge;
      if (callId) running.set(callId, { abort: (reason?: unknown) => target.cancel(callId, String((reason as Error)?.message ?? reason ?? '')) } as AbortController);
      try {
        return await target.call(frameMatch[2]!, input, callId, onStatus);
      } finally {
        if (callId) running.delete(callId);
      }
    }
    const live = devtoolsTools.get(key);
    const web = key.startsWith('wm:') ? webmcpTools.get(key.slice(3)) : undefined;
    const form = key.startsWith('df:') ? formTools.get(key) : undefined;
    const execute = live?.execute ?? web?.execute;
    if (!execute && !form) {
      return {
        ok: false,
        error: 'The page no longer offers this tool (it changed its tools or navigated). Call list_page_tools to see what it offers now.',
      };
    }
    const controller = new AbortController();
    if (callId) running.set(callId, controller);
    try {
      if (form) return await callForm(form, input, controller.signal, onStatus);
      let args: unknown;
      try {
        args = resolveElementParams(input, live?.schema ?? web?.wire.inputSchema, (text) => refs.resolve(text), refs.looksLikeRef);
      } catch (error) {
        return { ok: false, error: errorText(error) };
      }
      const client = { signal: controller.signal, requestUserInteraction: (cb: () => unknown) => PromiseCtor.resolve().then(cb) };
      const value = await execute!(args, client);
      return resultOf(value);
    } catch (error) {
      return { ok: false, error: errorText(error) || 'The tool threw an error without a message.' };
    } finally {
      if (callId) running.delete(callId);
    }
  }

  function cancel(callId: string, reason: string): void {
    running.get(callId)?.abort(new DOMExceptionCtor(reason || 'Cancelled', 'AbortError'));
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
      void call(message.key, input, callId, (status) => post({ type: 'status', callId, status })).then((result) => post({ type: 'result', callId, result }));
    } else if (message.type === 'cancel' && typeof message.callId === 'string') {
      cancel(message.callId, String(message.reason ?? 'Cancelled'));
    }
  }

  // ——— Wiring ———

  if (isTop) addListener(TO_MAIN_EVENT, onMessage);
  if (options.webmcp !== false) installWebMcp();
  let stopForms = () => {};
  if (options.declarative !== false) {
    installSubmitEventApi();
    const begin = () => {
      if (disposed) return;
      if (scanForms()) announceChange();
      stopForms = watchForms();
    };
    if (win.document.readyState === 'loading') win.document.addEventListener('DOMContentLoaded', begin, { once: true });
    else begin();
  }

  let routeTimer: number | undefined;
  const onRoute = () => {
    clearTimer(routeTimer);
    // After the router has rendered the new route (a task later), ask again.
    routeTimer = setTimer(() => void discover('route change'), 50);
  };
  const onLoad = (reason: string) => () => {
    void discover(reason);
    notifyParent();
  };
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

  const bridge: MainWorldBridge = {
    discover,
    call,
    cancel,
    childChanged,
    dispose() {
      disposed = true;
      removeListener(TO_MAIN_EVENT, onMessage);
      removeListener('popstate', onRoute);
      removeListener('hashchange', onRoute);
      restoreHistory();
      stopForms();
      clearTimer(routeTimer);
      clearTimer(formTimer);
      clearTimer(childTimer);
    },
  };
  try {
    defineProperty(win, BRIDGE_KEY, { value: bridge, configurable: true, enumerable: false, writable: false });
  } catch {
    // A frozen window: frames of this page are not asked.
  }
  return bridge;
}

/** The fields the browser would refuse, with its own messages. */
function invalidFields(form: HTMLFormElement): string {
  const out: string[] = [];
  for (const element of Array.from(form.elements)) {
    const control = element as HTMLInputElement;
    if (typeof control.checkValidity !== 'function' || control.checkValidity()) continue;
    const name = control.name || control.id || control.tagName.toLowerCase();
    if (out.some((o) => o.startsWith(`${name}:`))) continue;
    out.push(`${name}: ${control.validationMessage || 'invalid value'}`);
    if (out.length >= 10) break;
  }
  return out.length ? out.join('; ') : 'the form is not valid.';
}

/** A URL whose origin is potentially trustworthy (Secure Contexts): https, wss, file, loopback. */
function potentiallyTrustworthy(url: URL): boolean {
  if (url.protocol === 'https:' || url.protocol === 'wss:' || url.protocol === 'file:') return true;
  const host = url.hostname;
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}

/**
 * The failure a result is shaped as, or undefined: `{error: …}` (how React's DevTools tools and
 * others answer a failure) is a failed call, not a result. `{error: null}`/`false` is not.
 */
export function errorShaped(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const proto = Object.getPrototypeOf(value);
  if (proto !== null && proto !== Object.prototype && Object.getPrototypeOf(proto) !== null) return undefined;
  if (!Object.prototype.hasOwnProperty.call(value, 'error')) return undefined;
  const error = (value as { error?: unknown }).error;
  if (error === undefined || error === null || error === false) return undefined;
  const text = errorText(error);
  return text || 'The tool answered with an error without a message.';
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

/**
 * Makes a value JSON-safe by the reference rules and serializes it, cut when it is too long. With
 * `refs`, an element of the page becomes its reference and what identifies it (tag, id, text,
 * selector), which the model can pass back to an element parameter.
 */
export function serializeResult(value: unknown, stringify: (v: unknown) => string | undefined = JSON.stringify, refs?: ElementRefs): WireCallResult {
  let json: string;
  try {
    // One description per element per result, however often it appears in it.
    const seen = new Map<Element, unknown>();
    const element = (el: Element) => {
      if (!seen.has(el)) seen.set(el, refs!.describe(el));
      return seen.get(el);
    };
    const safe = toJsonSafe(value, refs ? { element } : {});
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

/**
 * WebMCP (webmachinelearning/webmcp): `document.modelContext` as specified where the browser has
 * none (an EventTarget with `registerTool`, `getTools`, `ontoolchange`), a wrapper that watches a
 * native one, and the older `navigator.modelContext` (`provideContext`, `registerTool`,
 * `unregisterTool`, `clearContext`), which shares the same tools.
 */
import type { WireGroup } from '../wire';
import type { Intrinsics } from './intrinsics';
import { checkSchemaJson } from './discovery';
import { clip, countTools, isObject, LIMITS, own, valuesOf, WEBMCP_NAME, type AnyFn, type BridgeContext, type WebMcpEntry } from './shared';

/** The groups of WebMCP tools: the imperative ones and the declarative forms. */
export function webmcpGroups(ctx: BridgeContext): WireGroup[] {
  const { I, state } = ctx;
  const groups: WireGroup[] = [];
  if (state.webmcpTools.size) {
    I.push(groups, {
      name: 'WebMCP',
      description: 'Tools the page registered with WebMCP (document.modelContext).',
      source: 'webmcp',
      tools: I.map(valuesOf(I, state.webmcpTools), (entry) => entry.wire),
    });
  }
  if (state.formTools.size) {
    I.push(groups, {
      name: 'WebMCP forms',
      description: 'Forms of the page declared as tools (declarative WebMCP): a call fills the form as a user would.',
      source: 'webmcp',
      tools: I.map(valuesOf(I, state.formTools), (entry) => entry.wire),
    });
  }
  return groups;
}

const domError = (I: Intrinsics, message: string, name: string) => new I.DOMException(message, name);

/**
 * Registers one WebMCP tool with the spec's checks, in its order (webmachinelearning/webmcp,
 * `registerTool`): dictionary members (TypeError), a taken name, an empty name or description,
 * a name outside `[A-Za-z0-9_.-]{1,128}` (InvalidStateError), a schema JSON cannot hold (the
 * serializer's error), then an `exposedTo` origin that does not parse or is not potentially
 * trustworthy (SecurityError). Throws what the API rejects with; returns the entry to store.
 */
export function checkWebMcpTool(ctx: BridgeContext, raw: unknown, exposedToRaw: unknown, provided: boolean): WebMcpEntry {
  const { I, state } = ctx;
  if (!isObject(raw)) throw new I.TypeError('registerTool: the tool must be an object (a ModelContextTool dictionary).');
  const tool = raw as { name?: unknown; title?: unknown; description?: unknown; inputSchema?: unknown; execute?: unknown; annotations?: unknown };
  if (tool.name === undefined) throw new I.TypeError('registerTool: the required member "name" is missing.');
  if (tool.description === undefined) throw new I.TypeError(`registerTool: tool "${I.String(tool.name)}": the required member "description" is missing.`);
  if (typeof tool.execute !== 'function') throw new I.TypeError(`registerTool: tool "${I.String(tool.name)}" needs an "execute" function.`);
  const name = I.String(tool.name);
  const description = I.String(tool.description);
  const title = tool.title === undefined || tool.title === null ? undefined : I.String(tool.title);
  if (tool.annotations !== undefined && tool.annotations !== null && !isObject(tool.annotations)) {
    throw new I.TypeError(`registerTool: tool "${name}": "annotations" must be an object.`);
  }
  if (state.webmcpTools.has(name) || I.some(valuesOf(I, state.formTools), (f) => f.wire.name === name)) {
    throw domError(I, `registerTool: a tool named "${name}" is already registered.`, 'InvalidStateError');
  }
  if (!name || !description) throw domError(I, 'registerTool: "name" and "description" must not be empty.', 'InvalidStateError');
  if (!I.test(WEBMCP_NAME, name)) {
    throw domError(I, 'registerTool: "name" must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and ".".', 'InvalidStateError');
  }
  let schemaJson = '';
  let schema: Record<string, unknown> = { type: 'object', properties: {} };
  if (tool.inputSchema !== undefined) {
    let source: unknown = tool.inputSchema;
    // Older pages pass the schema as a JSON string.
    if (typeof source === 'string') {
      try {
        source = I.parse(source);
      } catch {
        throw new I.TypeError(`registerTool: the "inputSchema" of "${name}" is not valid JSON.`);
      }
    }
    const json = I.stringify(source); // Its own exception (a cycle, a BigInt) is the rejection.
    if (json === undefined) throw new I.TypeError(`registerTool: the "inputSchema" of "${name}" cannot be serialized to JSON.`);
    const checked = checkSchemaJson(I, json);
    if (typeof checked === 'string') throw new I.TypeError(`registerTool: tool "${name}": ${checked}`);
    schemaJson = json;
    schema = checked;
  }
  const annotations = (tool.annotations ?? {}) as Record<string, unknown>;
  const readOnlyHint = annotations.readOnlyHint === true;
  const untrustedContentHint = annotations.untrustedContentHint === true;
  const exposedTo = checkExposedTo(I, exposedToRaw);
  if (countTools(state) >= LIMITS.toolsPerPage) {
    throw domError(I, `registerTool: the page already offers ${LIMITS.toolsPerPage} tools.`, 'QuotaExceededError');
  }
  const wireAnnotations: Record<string, boolean> = {};
  if (readOnlyHint) wireAnnotations.readOnlyHint = true;
  if (untrustedContentHint) wireAnnotations.untrustedContentHint = true;
  return {
    wire: {
      key: `wm:${name}`,
      name,
      description: clip(I, I.trim(description), LIMITS.description),
      inputSchema: schema,
      ...(title ? { title: clip(I, title, LIMITS.groupName) } : {}),
      ...(I.keys(wireAnnotations).length ? { annotations: wireAnnotations } : {}),
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
function checkExposedTo(I: Intrinsics, raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!isObject(raw) || typeof (raw as { [key: symbol]: unknown })[I.iterator] !== 'function') {
    throw new I.TypeError('registerTool: "exposedTo" must be a sequence of origins.');
  }
  const origins: string[] = [];
  const entries = I.arrayFrom(raw as unknown as Iterable<unknown>);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    let url: URL;
    try {
      url = new I.URL(I.String(entry));
    } catch {
      throw domError(I, `registerTool: "exposedTo" entry "${clip(I, I.String(entry), 80)}" is not a URL.`, 'SecurityError');
    }
    if (!potentiallyTrustworthy(I, url)) {
      throw domError(I, `registerTool: "exposedTo" origin "${clip(I, I.String(entry), 80)}" is not potentially trustworthy.`, 'SecurityError');
    }
    I.push(origins, I.urlOrigin(url));
  }
  return origins;
}

const LOOPBACK_V4 = /^127(\.\d{1,3}){3}$/;

/** A URL whose origin is potentially trustworthy (Secure Contexts): https, wss, file, loopback. */
function potentiallyTrustworthy(I: Intrinsics, url: URL): boolean {
  const protocol = I.urlProtocol(url);
  if (protocol === 'https:' || protocol === 'wss:' || protocol === 'file:') return true;
  const host = I.urlHostname(url);
  return host === 'localhost' || I.endsWith(host, '.localhost') || I.test(LOOPBACK_V4, host) || host === '[::1]';
}

function storeWebMcp(ctx: BridgeContext, entry: WebMcpEntry): string {
  ctx.state.webmcpTools.set(entry.wire.name, entry);
  ctx.announceChange();
  return entry.wire.name;
}

function unregisterWebMcp(ctx: BridgeContext, name: string): void {
  if (ctx.state.webmcpTools.delete(name)) ctx.announceChange();
}

/**
 * `toolactivated` (an agent filled a declarative form, before it is submitted) and `toolcancel`
 * (the agent cancelled the call; not for the page's own reset) on `document.modelContext`, with
 * `toolName`, as Chrome fires them. A page's listener that throws does not stop the call.
 */
export function fireAgentEvent(ctx: BridgeContext, type: 'toolactivated' | 'toolcancel', toolName: string): void {
  const { I } = ctx;
  const target = (ctx.win.document as unknown as { modelContext?: { dispatchEvent?: unknown } }).modelContext;
  if (ctx.state.disposed || !target || typeof target.dispatchEvent !== 'function') return;
  const event = new I.Event(type);
  I.defineProperty(event, 'toolName', own({ value: toolName, enumerable: true }));
  try {
    // Ours or the browser's is a real EventTarget; anything else the page put there answers itself.
    if (target instanceof I.EventTarget) I.dispatch(target, event);
    else I.apply(target.dispatchEvent as AnyFn, target, [event]);
  } catch {
    // Listeners' errors are reported by the browser, not thrown here.
  }
}

/** What `getTools()` answers: the tools of this document, imperative and declarative. */
function toolListForPage(ctx: BridgeContext): Array<Record<string, unknown>> {
  const { I, state } = ctx;
  const origin = ctx.win.location.origin;
  const imperative = I.map(valuesOf(I, state.webmcpTools), (e) => ({
    name: e.wire.name,
    ...(e.wire.title ? { title: e.wire.title } : {}),
    description: e.wire.description,
    inputSchema: e.schemaJson,
    annotations: { readOnlyHint: e.readOnlyHint, untrustedContentHint: e.untrustedContentHint },
    origin,
  }));
  const declarative = I.map(valuesOf(I, state.formTools), (e) => ({
    name: e.wire.name,
    description: e.wire.description,
    inputSchema: I.stringify(e.wire.inputSchema),
    annotations: { readOnlyHint: false, untrustedContentHint: false },
    origin,
  }));
  return I.concat<Record<string, unknown>>(imperative, declarative);
}

/** Provides `document.modelContext` (or watches the native one) and the older `navigator.modelContext`. */
export function installWebMcp(ctx: BridgeContext): void {
  const { I, state, win } = ctx;
  const doc = win.document as Document & { modelContext?: any };
  const nav = win.navigator as Navigator & { modelContext?: any };

  if (doc.modelContext && typeof doc.modelContext.registerTool === 'function') {
    // A native implementation: keep it, and see what the page registers through it.
    const native = doc.modelContext;
    state.ownContext = native;
    const nativeRegister = native.registerTool as AnyFn;
    native.registerTool = function (this: unknown, tool: unknown, opts?: { signal?: AbortSignal; exposedTo?: unknown }) {
      const result = I.apply(nativeRegister, this, [tool, opts]);
      void I.then(I.resolve(result), () => {
        try {
          const name = storeWebMcp(ctx, checkWebMcpTool(ctx, tool, opts?.exposedTo, false));
          const signal = opts?.signal;
          if (signal instanceof I.AbortSignal) I.listen(signal, 'abort', () => unregisterWebMcp(ctx, name), { once: true });
        } catch {
          // Already known, or invalid: the native API answered the page.
        }
      }, () => undefined);
      return result;
    };
  } else {
    const context = new I.EventTarget() as EventTarget & Record<string, unknown>;
    let handler: ((event: Event) => unknown) | null = null;
    // An event handler attribute: its listener takes its place among the others when first set.
    const handlerListener = (event: Event) => {
      if (typeof handler === 'function') I.apply(handler, context, [event]);
    };
    state.fireToolChange = () => {
      if (!state.disposed) I.dispatch(context, new I.Event('toolchange'));
    };
    const registerTool = (tool: unknown, opts?: unknown) =>
      new I.Promise<undefined>((resolve, reject) => {
        if (opts !== undefined && opts !== null && !isObject(opts)) {
          reject(new I.TypeError('registerTool: the options must be an object.'));
          return;
        }
        const { signal, exposedTo } = (opts ?? {}) as { signal?: AbortSignal; exposedTo?: unknown };
        if (signal !== undefined && !(signal instanceof I.AbortSignal)) {
          reject(new I.TypeError('registerTool: "signal" must be an AbortSignal.'));
          return;
        }
        let entry: WebMcpEntry;
        try {
          entry = checkWebMcpTool(ctx, tool, undefined, false);
        } catch (error) {
          reject(error);
          return;
        }
        if (signal && I.aborted(signal)) {
          reject(I.reasonOf(signal));
          return;
        }
        try {
          entry.exposedTo = checkExposedTo(I, exposedTo);
        } catch (error) {
          reject(error);
          return;
        }
        const name = storeWebMcp(ctx, entry);
        if (signal) {
          I.listen(signal, 'abort', () => {
            // The tool goes at once; a promise not yet settled rejects with the reason.
            if (state.webmcpTools.get(name) === entry) unregisterWebMcp(ctx, name);
            reject(I.reasonOf(signal));
          }, { once: true });
        }
        // `toolchange` is fired a task later, then the promise resolves (the spec's order).
        void (async () => {
          await I.macrotask();
          await I.macrotask();
          resolve(undefined);
        })();
      });
    I.defineProperty(context, 'registerTool', own({ value: registerTool, enumerable: true }));
    I.defineProperty(context, 'getTools', own({
      /** Chrome's addition: the tools registered in this document, imperative and declarative. */
      value: () => I.resolve(toolListForPage(ctx)),
      enumerable: true,
    }));
    I.defineProperty(context, 'ontoolchange', own({
      get: () => handler,
      set: (fn: unknown) => {
        const next = typeof fn === 'function' ? (fn as (event: Event) => unknown) : null;
        if (next && !handler) I.listen(context, 'toolchange', handlerListener);
        if (!next && handler) I.unlisten(context, 'toolchange', handlerListener);
        handler = next;
      },
      enumerable: true,
    }));
    I.defineProperty(context, I.toStringTag, own({ value: 'ModelContext' }));
    state.ownContext = context;
    I.defineProperty(doc, 'modelContext', own({ value: context, configurable: true, enumerable: false, writable: false }));
  }

  if (!nav.modelContext) {
    // The older API (navigator.modelContext): provideContext replaces the set it provided before.
    const legacy = {
      provideContext(context?: { tools?: unknown[] }) {
        const provided: string[] = [];
        state.webmcpTools.forEach((entry, name) => {
          if (entry.provided) I.push(provided, name);
        });
        for (let i = 0; i < provided.length; i++) state.webmcpTools.delete(provided[i]!);
        // The page's own list, iterated as the page made it.
        for (const tool of context?.tools ?? []) storeWebMcp(ctx, checkWebMcpTool(ctx, tool, undefined, true));
        ctx.announceChange();
      },
      registerTool(tool: unknown) {
        const name = storeWebMcp(ctx, checkWebMcpTool(ctx, tool, undefined, false));
        return { unregister: () => unregisterWebMcp(ctx, name) };
      },
      unregisterTool(name: unknown) {
        if (typeof name === 'string') unregisterWebMcp(ctx, name);
      },
      clearContext() {
        if (!state.webmcpTools.size) return;
        state.webmcpTools.clear();
        ctx.announceChange();
      },
      /** Some pages read their tools back from here too. */
      getTools: () => I.resolve(toolListForPage(ctx)),
    };
    state.legacyContext = legacy;
    I.defineProperty(nav, 'modelContext', own({ value: legacy, configurable: true, enumerable: false, writable: false }));
  }
}

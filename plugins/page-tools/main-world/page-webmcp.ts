/**
 * WebMCP runtimes the page installs itself (MCP-B's `@mcp-b/global`, whose `BrowserMcpServer`
 * replaces `document.modelContext` after our bridge put ours there): their tools reach the agent
 * whether or not they also register them with ours.
 *
 * - `installAgentClusterShim`: WebMCP's `registerTool` refuses documents whose agent cluster is
 *   not origin-keyed (webmcp #197); Firefox keys agent clusters by site unless the page sends
 *   `Origin-Agent-Cluster: ?1`, so `window.originAgentCluster` is false there and MCP-B's runtime
 *   rejects every `registerTool`, `getTools` and `executeTool` with a SecurityError — in Firefox a
 *   page's MCP-B tools never exist, for any agent. While a page-installed runtime sits on
 *   `document.modelContext` (and only then), `originAgentCluster` reads true, as our own provided
 *   `modelContext` already accepts tools in such documents. Nothing else changes: `document.domain`
 *   behaves as before. Chromium keys by origin (true): no shim.
 * - `createPageWebMcp`: reads such a runtime through its own API — `listTools()` (MCP-B) or
 *   `getTools()` (the spec's, Chrome's), `executeTool(tool, inputJson)` and its `toolchange` event
 *   — never replacing it or its methods. Everything from it is page data: names, descriptions and
 *   schemas pass the same checks as registered tools; names ours already has (MCP-B mirrors its
 *   tools into ours) are skipped; reads and calls time out.
 */
import type { WireCallResult, WireGroup, WireTool } from '../wire';
import { checkSchemaJson } from './discovery';
import type { Intrinsics } from './intrinsics';
import { clip, countTools, errorText, isObject, LIMITS, own, valuesOf, WEBMCP_NAME, type AnyFn, type BridgeContext } from './shared';

/** One tool read from the page's own runtime. */
export interface PageRuntimeTool {
  wire: WireTool;
  /** What to pass to its `executeTool`: the descriptor `getTools()` gave, or one made like it. */
  descriptor: Record<string, unknown>;
}

export interface PageWebMcp {
  /** Reads the page-installed runtime's tools again (when there is one); problems go to `problems`. */
  refresh(problems: string[]): Promise<void>;
  groups(): WireGroup[];
  /** Runs a `pw:` tool through the runtime's `executeTool`; undefined for other keys. */
  call(key: string, input: Record<string, unknown>, signal: AbortSignal): Promise<WireCallResult> | undefined;
}

export interface PageWebMcpOptions {
  /** How long `listTools()`/`getTools()` may take (default LIMITS.promiseWaitMs). */
  listTimeoutMs?: number;
  /** How long one `executeTool` may take before the bridge gives up on it (default 5 minutes). */
  callTimeoutMs?: number;
}

/** Entries read from one runtime's list (a longer list is cut; only LIMITS.toolsPerPage are kept). */
const MAX_READ = 1024;
const TIMED_OUT = Symbol('timed out');

/** A property of a page object, or undefined when its getter throws (a hostile page). */
function read(target: unknown, key: PropertyKey): unknown {
  try {
    return (target as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** The WebMCP object the page put on `document.modelContext` (or the older navigator one), if not ours. */
export function pageRuntime(ctx: BridgeContext): Record<string, unknown> | undefined {
  const { state, win } = ctx;
  const candidates = [read(win.document, 'modelContext'), read(win.navigator, 'modelContext')];
  for (let i = 0; i < candidates.length; i++) {
    const value = candidates[i];
    if (!isObject(value) || value === state.ownContext || value === state.legacyContext) continue;
    if (typeof read(value, 'executeTool') !== 'function') continue;
    if (typeof read(value, 'listTools') !== 'function' && typeof read(value, 'getTools') !== 'function') continue;
    return value;
  }
  return undefined;
}

/**
 * Makes `window.originAgentCluster` read true while a page-installed WebMCP runtime is on
 * `document.modelContext` (or `navigator.modelContext`; MCP-B puts it on both), in a document that
 * is not origin-keyed (Firefox's default); see the file's comment. Does nothing where the browser
 * says true already, or where the property cannot be redefined.
 */
export function installAgentClusterShim(ctx: BridgeContext): void {
  const { I, win } = ctx;
  if (read(win, 'originAgentCluster') !== false) return;
  let realGet: AnyFn | undefined;
  for (let p: object | null = win; p && !realGet; p = I.getPrototypeOf(p)) {
    const descriptor = I.getOwnPropertyDescriptor(p, 'originAgentCluster');
    if (descriptor) {
      if (p === win && !descriptor.configurable) return;
      realGet = descriptor.get ?? (() => descriptor.value);
    }
  }
  if (!realGet) return;
  const get = realGet;
  let inShim = false;
  try {
    I.defineProperty(win, 'originAgentCluster', own({
      get: function originAgentCluster(this: unknown) {
        // Reading the page's objects may run its getters: one that asks again gets the real answer.
        if (!inShim) {
          inShim = true;
          try {
            if (pageRuntime(ctx)) return true;
          } finally {
            inShim = false;
          }
        }
        return I.apply(get, this, []);
      },
      configurable: true,
      enumerable: true,
    }));
  } catch {
    // A window that refuses: the page's runtime keeps its own answer.
  }
}

/** `promise`'s value, or TIMED_OUT after `ms`; rejects with the promise's error or, once `signal` aborts, with its reason. */
function within<T>(I: Intrinsics, promise: unknown, ms: number, signal?: AbortSignal): Promise<T | typeof TIMED_OUT> {
  return new I.Promise<T | typeof TIMED_OUT>((resolve, reject) => {
    const timer = I.setTimeout(() => resolve(TIMED_OUT), ms);
    const done = () => I.clearTimeout(timer);
    if (signal) {
      if (I.aborted(signal)) {
        done();
        reject(I.reasonOf(signal));
        return;
      }
      I.listen(signal, 'abort', () => {
        done();
        reject(I.reasonOf(signal));
      }, { once: true });
    }
    void I.then(I.resolve(promise as T), (value) => {
      done();
      resolve(value);
    }, (error) => {
      done();
      reject(error);
    });
  });
}

/** Checks one entry of the runtime's list; returns the tool or why it was dropped. */
function toPageTool(ctx: BridgeContext, raw: unknown, fromGetTools: boolean): PageRuntimeTool | string {
  const { I, win } = ctx;
  if (!isObject(raw)) return 'an entry is not an object';
  const name = read(raw, 'name');
  if (typeof name !== 'string' || !I.test(WEBMCP_NAME, name)) {
    return `a tool name must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "." (got ${clip(I, I.String(name), 60)})`;
  }
  const description = read(raw, 'description');
  if (typeof description !== 'string' || !I.trim(description)) return `tool "${name}" has no description`;
  let schema: Record<string, unknown> = { type: 'object', properties: {} };
  const rawSchema = read(raw, 'inputSchema');
  if (rawSchema !== undefined && rawSchema !== null && rawSchema !== '') {
    let json: string | undefined;
    try {
      json = typeof rawSchema === 'string' ? rawSchema : I.stringify(rawSchema);
    } catch (error) {
      return `tool "${name}": its inputSchema cannot be read as JSON (${clip(I, errorText(I, error), 120)})`;
    }
    if (json === undefined) return `tool "${name}": its inputSchema cannot be read as JSON`;
    let checked: Record<string, unknown> | string;
    try {
      checked = checkSchemaJson(I, json);
    } catch {
      return `tool "${name}": its inputSchema is not valid JSON`;
    }
    if (typeof checked === 'string') return `tool "${name}": ${checked}`;
    schema = checked;
  }
  const title = read(raw, 'title');
  const annotations = read(raw, 'annotations');
  const hints: Record<string, boolean> = {};
  if (isObject(annotations)) {
    if (read(annotations, 'readOnlyHint') === true) hints.readOnlyHint = true;
    if (read(annotations, 'untrustedContentHint') === true) hints.untrustedContentHint = true;
  }
  const wire: WireTool = {
    key: `pw:${name}`,
    name,
    description: clip(I, I.trim(description), LIMITS.description),
    inputSchema: schema,
    ...(typeof title === 'string' && I.trim(title) ? { title: clip(I, I.trim(title), LIMITS.groupName) } : {}),
    ...(I.keys(hints).length ? { annotations: hints } : {}),
  };
  // The spec's executeTool takes the RegisteredTool getTools() gave; MCP-B's listTools() entries
  // lack `origin` and `window`, which its executeTool checks: made here as getTools would.
  const descriptor = fromGetTools
    ? (raw as Record<string, unknown>)
    : { name, description, ...(wire.title ? { title: wire.title } : {}), origin: win.location.origin, window: win };
  return { wire, descriptor };
}

/** The runtime's answer to `executeTool` as a call result: its JSON string parsed; MCP's `isError` is a failure. */
function runtimeResult(ctx: BridgeContext, answer: unknown): WireCallResult {
  const { I } = ctx;
  if (answer === null) return { ok: false, error: 'The page navigated before the tool finished.' };
  let value: unknown = answer;
  if (typeof answer === 'string') {
    try {
      value = I.parse(answer);
    } catch {
      value = answer;
    }
  }
  if (isObject(value) && !I.isArray(value) && read(value, 'isError') === true) {
    const content = read(value, 'content');
    const texts: string[] = [];
    if (I.isArray(content)) {
      for (let i = 0; i < content.length && i < 50; i++) {
        const text = read(content[i], 'text');
        if (typeof text === 'string') I.push(texts, text);
      }
    }
    return { ok: false, error: clip(I, I.join(texts, '\n') || 'The page\'s tool reported an error without a message.', LIMITS.description) };
  }
  return ctx.resultOf(value);
}

export function createPageWebMcp(ctx: BridgeContext, options: PageWebMcpOptions = {}): PageWebMcp {
  const { I, state } = ctx;
  const listTimeoutMs = options.listTimeoutMs ?? LIMITS.promiseWaitMs;
  const callTimeoutMs = options.callTimeoutMs ?? 5 * 60_000;
  const tools = new I.Map<string, PageRuntimeTool>();
  /** Runtimes whose `toolchange` we already listen to. */
  const heard = new I.WeakMap<object, boolean>();
  let runtime: Record<string, unknown> | undefined;
  let reading: Promise<void> | undefined;

  function listenToChanges(target: Record<string, unknown>): void {
    if (heard.has(target)) return;
    heard.set(target, true);
    const onChange = () => {
      if (state.disposed) return;
      const before = signature();
      // Posted only when its list changed, and without a `toolchange` on ours: MCP-B answers ours
      // with one of its own, and the two would echo each other forever.
      void I.then(refresh([]), () => {
        if (signature() !== before) ctx.announceChange(false);
      });
    };
    try {
      if (target instanceof I.EventTarget) I.listen(target, 'toolchange', onChange);
      else {
        const add = read(target, 'addEventListener');
        if (typeof add === 'function') I.apply(add as AnyFn, target, ['toolchange', onChange]);
      }
    } catch {
      // A runtime whose addEventListener throws: it is read again at each discovery.
    }
  }

  async function readList(target: Record<string, unknown>, problems: string[]): Promise<void> {
    const listTools = read(target, 'listTools');
    const getTools = read(target, 'getTools');
    // MCP-B's own list first: its getTools() answers with the list of the context it wraps (ours).
    const fromGetTools = typeof listTools !== 'function';
    let list: unknown;
    try {
      const answer = fromGetTools ? I.apply(getTools as AnyFn, target, []) : I.apply(listTools as AnyFn, target, []);
      list = await within<unknown>(I, answer, listTimeoutMs);
    } catch (error) {
      ctx.problem(problems, `The page's own WebMCP runtime did not list its tools: ${clip(I, errorText(I, error), 200)}`);
      return;
    }
    if (list === TIMED_OUT) {
      ctx.problem(problems, `The page's own WebMCP runtime did not list its tools within ${listTimeoutMs} ms.`);
      return;
    }
    const next = new I.Map<string, PageRuntimeTool>();
    if (!isObject(list) || !I.isArray(list)) {
      ctx.problem(problems, 'The page\'s own WebMCP runtime listed something that is not an array of tools.');
    } else {
      const length = I.Number(read(list, 'length')) || 0;
      if (length > MAX_READ) ctx.problem(problems, `The page's own WebMCP runtime listed ${length} tools; only the first ${MAX_READ} were read.`);
      const room = LIMITS.toolsPerPage - (countTools(state) - tools.size);
      for (let i = 0; i < length && i < MAX_READ; i++) {
        const tool = toPageTool(ctx, read(list, i), fromGetTools);
        if (typeof tool === 'string') {
          ctx.problem(problems, `The page's own WebMCP runtime: ${tool}; it was left out.`);
          continue;
        }
        // Ours has it (MCP-B mirrors its tools into the modelContext it wraps): the one entry is enough.
        if (state.webmcpTools.has(tool.wire.name) || next.has(tool.wire.name)) continue;
        if (next.size >= room) {
          ctx.problem(problems, `The page offers more than ${LIMITS.toolsPerPage} tools; the rest of its own WebMCP runtime's were left out.`);
          break;
        }
        next.set(tool.wire.name, tool);
      }
    }
    tools.clear();
    next.forEach((tool, name) => tools.set(name, tool));
  }

  async function refresh(problems: string[]): Promise<void> {
    if (reading) return await reading;
    const current = pageRuntime(ctx);
    if (current !== runtime) {
      runtime = current;
      tools.clear();
    }
    if (!current) return;
    listenToChanges(current);
    reading = readList(current, problems);
    try {
      await reading;
    } finally {
      reading = undefined;
    }
  }

  function signature(): string {
    return I.stringify(I.map(valuesOf(I, tools), (tool) => tool.wire)) ?? '';
  }

  function groups(): WireGroup[] {
    if (!tools.size) return [];
    return [{
      name: 'WebMCP (page runtime)',
      description: 'Tools the page registered with its own WebMCP runtime (such as MCP-B), read through its API.',
      source: 'webmcp',
      tools: I.map(valuesOf(I, tools), (tool) => tool.wire),
    }];
  }

  function call(key: string, input: Record<string, unknown>, signal: AbortSignal): Promise<WireCallResult> | undefined {
    if (!I.startsWith(key, 'pw:')) return undefined;
    return (async (): Promise<WireCallResult> => {
      const tool = tools.get(I.strSlice(key, 3));
      const target = runtime && pageRuntime(ctx) === runtime ? runtime : undefined;
      const executeTool = target ? read(target, 'executeTool') : undefined;
      if (!tool || !target || typeof executeTool !== 'function') {
        return { ok: false, error: 'The page no longer offers this tool (it changed its tools or navigated). Call list_page_tools to see what it offers now.' };
      }
      let inputJson: string;
      try {
        inputJson = I.stringify(input) ?? '{}';
      } catch (error) {
        return { ok: false, error: errorText(I, error) };
      }
      try {
        const answer = await within<unknown>(I, I.apply(executeTool as AnyFn, target, [tool.descriptor, inputJson, { signal }]), callTimeoutMs, signal);
        if (answer === TIMED_OUT) return { ok: false, error: `The page's tool did not answer within ${I.String(callTimeoutMs / 1000)} s and was given up.` };
        return runtimeResult(ctx, answer);
      } catch (error) {
        return { ok: false, error: errorText(I, error) || 'The page\'s tool failed without a message.' };
      }
    })();
  }

  return { refresh, groups, call };
}

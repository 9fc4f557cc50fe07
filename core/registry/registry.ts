import { takeAttachments } from './attachments';
import { toJsonSafe } from './json-safe';
import { TOOL_THROWN_CODES } from './types';
import { cutKeepingEnvelopes } from './untrusted';
import type {
  CallWords,
  InputValidator,
  Plugin,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolErrorCode,
  ToolResult,
  ToolSpec,
  ToolTarget,
  ValidatorFactory,
} from './types';

/** Defaults that keep one tool from stalling or flooding a run. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 60_000;
/**
 * Characters of an error the model reads: a page's script or a tool can throw megabytes, which
 * would fill the context (and the stored conversation) with one message. Longer ones are cut,
 * envelopes closed, with a note.
 */
export const MAX_ERROR_CHARS = 4_000;

/**
 * Identity helper for type inference: one tool is one value. Built-in tools must say what they do
 * (`annotations`); `Service` is the type of their plugin's service.
 */
export function defineTool<Input = any, Output = unknown, Service = any>(
  tool: ToolDefinition<Input, Output, Service> & { annotations: ToolAnnotations },
): ToolDefinition<Input, Output, Service> {
  return tool;
}

/**
 * What a tool without annotations is taken to do: anything (a page's or another outside source's
 * tool). The approval policy treats it as acting, with no claim of being harmless.
 */
export const UNKNOWN_TOOL_ANNOTATIONS: ToolAnnotations = Object.freeze({ readOnly: false, destructive: true, openWorld: true });

export class DuplicateToolError extends Error {
  override name = 'DuplicateToolError';
}

/** Where the on/off state of plugins lives; the background backs it with extension storage. */
export interface PluginStateStore {
  load(): Promise<Record<string, boolean>>;
  save(state: Record<string, boolean>): Promise<void>;
}

export interface InvokeOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxOutputChars?: number;
  /** Limits which tools may run (a sub-agent's type); checked at call time, not only in lists. */
  allow?: (spec: ToolSpec) => boolean;
  context?: Omit<ToolContext, 'signal' | 'service'>;
  /** The input is what `admit` returned: the tool's `prepare` already ran on it (it runs once). */
  prepared?: boolean;
}

interface Entry {
  plugin: Plugin;
  tool: ToolDefinition;
  validate: InputValidator;
  service: unknown;
  spec: ToolSpec;
}

export type RegistryListener = () => void;

/**
 * The plugin registry: the one place the agent loop finds tools, whether built in or offered by
 * a page. Registering returns a disposer; a tool name already taken is refused; calling a tool
 * validates its input first and always resolves to a `ToolResult`, never a thrown error.
 */
export class ToolRegistry {
  private readonly plugins = new Map<string, Plugin>();
  private readonly tools = new Map<string, Entry>();
  private readonly listeners = new Set<RegistryListener>();
  private enabled: Record<string, boolean> = {};
  /** Bumped on every change of plugins or tools (`emit`): the tool list is kept until then. */
  private version = 0;
  /** The last tool list given, and what it was asked with (every step of a run asks the same). */
  private listed: { version: number; enabled: Record<string, boolean>; allow?: (spec: ToolSpec) => boolean; tabs?: string; specs: ToolSpec[] } | undefined;

  /** How many plugins, tools and change listeners it holds (`core/retained.ts`). */
  retainedSizes(): { plugins: number; tools: number; listeners: number } {
    return { plugins: this.plugins.size, tools: this.tools.size, listeners: this.listeners.size };
  }
  /**
   * The id of the tab the user is looking at, for offering tab-scoped plugins' tools (a page's
   * own tools): every loop over this registry offers those of that tab and of the tabs its
   * conversation named, not of every open tab (see `offeredTabs` in core/agent/offered-tabs.ts).
   */
  userTab: (() => Promise<number | undefined>) | undefined;

  constructor(
    private readonly makeValidator: ValidatorFactory,
    private readonly state?: PluginStateStore,
  ) {}

  /** Reads the persisted on/off state; call once before the first run. */
  async loadState(): Promise<void> {
    if (this.state) this.enabled = { ...(await this.state.load()) };
    this.emit();
  }

  /** Applies an on/off state that changed elsewhere (the options page wrote storage). */
  applyState(state: Record<string, boolean>): void {
    this.enabled = { ...state };
    this.emit();
  }

  /**
   * Adds a plugin and its tools. Throws `DuplicateToolError` when the plugin id or any tool name
   * is taken, and then adds nothing. `service` is handed to its tools' `execute` as
   * `context.service`. Returns the function that removes the plugin again.
   */
  register(plugin: Plugin, service?: unknown): () => void {
    if (this.plugins.has(plugin.id)) {
      throw new DuplicateToolError(`A plugin with id "${plugin.id}" is already registered.`);
    }
    const seen = new Set<string>();
    for (const tool of plugin.tools) {
      if (this.tools.has(tool.name) || seen.has(tool.name)) {
        const owner = this.tools.get(tool.name)?.plugin.id ?? plugin.id;
        throw new DuplicateToolError(`Tool "${tool.name}" is already registered by plugin "${owner}".`);
      }
      seen.add(tool.name);
    }
    if (plugin.source === 'builtin') {
      const bare = plugin.tools.find((tool) => !tool.annotations);
      if (bare) throw new Error(`Built-in tool "${bare.name}" has no annotations: say whether it is read-only, destructive, open-world.`);
    }
    const entries: Entry[] = plugin.tools.map((tool) => ({
      plugin,
      tool,
      service,
      validate: this.makeValidator(tool, plugin),
      spec: toSpec(plugin, tool),
    }));
    this.plugins.set(plugin.id, plugin);
    for (const entry of entries) this.tools.set(entry.tool.name, entry);
    this.emit();
    let disposed = false;
    return () => {
      if (disposed || this.plugins.get(plugin.id) !== plugin) return;
      disposed = true;
      this.plugins.delete(plugin.id);
      for (const tool of plugin.tools) {
        if (this.tools.get(tool.name)?.plugin === plugin) this.tools.delete(tool.name);
      }
      this.emit();
    };
  }

  /** All registered plugins with their on/off state, for settings and the UI. */
  listPlugins(): Array<{ plugin: Plugin; enabled: boolean }> {
    return [...this.plugins.values()].map((plugin) => ({ plugin, enabled: this.isEnabled(plugin.id) }));
  }

  getPlugin(id: string): Plugin | undefined {
    return this.plugins.get(id);
  }

  isEnabled(pluginId: string): boolean {
    const parent = this.plugins.get(pluginId)?.parentId;
    if (parent && parent !== pluginId && !this.isEnabled(parent)) return false;
    const explicit = this.enabled[pluginId];
    if (explicit !== undefined) return explicit;
    return this.plugins.get(pluginId)?.enabledByDefault ?? true;
  }

  /** Switches a plugin on or off and persists the choice. */
  async setEnabled(pluginId: string, on: boolean): Promise<void> {
    this.enabled = { ...this.enabled, [pluginId]: on };
    await this.state?.save(this.enabled);
    this.emit();
  }

  /**
   * The tools the model may see: those of enabled plugins, optionally narrowed further; with
   * `tabs`, a tab-scoped plugin's tools only when its tab is one of them. The same (frozen) list
   * is given again until plugins, tools or their switches change or the question does.
   */
  listTools(allow?: (spec: ToolSpec) => boolean, tabs?: ReadonlySet<number>): ToolSpec[] {
    const tabsKey = tabs && [...tabs].sort((a, b) => a - b).join(',');
    const last = this.listed;
    if (last && last.version === this.version && last.enabled === this.enabled && last.allow === allow && last.tabs === tabsKey) return last.specs;
    const specs: ToolSpec[] = [];
    for (const { plugin, spec } of this.tools.values()) {
      if (!this.isEnabled(plugin.id)) continue;
      if (tabs && plugin.scope && !tabs.has(plugin.scope.tabId)) continue;
      if (!allow || allow(spec)) specs.push(spec);
    }
    Object.freeze(specs);
    this.listed = { version: this.version, enabled: this.enabled, allow, tabs: tabsKey, specs };
    return specs;
  }

  /** Whether any tab-scoped plugin (a page's tools) is registered now. */
  hasScopedPlugins(): boolean {
    for (const plugin of this.plugins.values()) if (plugin.scope) return true;
    return false;
  }

  /** The tab a tab-scoped plugin's tool belongs to, if it is one. */
  toolTab(name: string): number | undefined {
    return this.tools.get(name)?.plugin.scope?.tabId;
  }

  /** The tool's spec by name, whether or not its plugin is on. */
  describe(name: string): ToolSpec | undefined {
    return this.tools.get(name)?.spec;
  }

  /**
   * The annotations one call is judged by: the tool's own, narrowed by its `forCall` for this
   * input. A `forCall` that throws changes nothing.
   */
  async callAnnotations(name: string, input: unknown, tabId?: number): Promise<ToolAnnotations | undefined> {
    const entry = this.tools.get(name);
    const base = entry?.spec.annotations;
    const forCall = base?.forCall;
    if (!entry || !forCall) return base;
    try {
      const narrowed = await forCall(input ?? {}, { tabId, service: entry.service });
      if (!narrowed) return base;
      const { readOnly, destructive, openWorld, pages, privateData } = narrowed;
      return {
        ...base,
        ...(typeof privateData === 'boolean' ? { privateData } : {}),
        ...(typeof readOnly === 'boolean' ? { readOnly } : {}),
        ...(typeof destructive === 'boolean' ? { destructive } : {}),
        ...(typeof openWorld === 'boolean' ? { openWorld } : {}),
        ...(typeof pages === 'boolean' ? { pages } : {}),
      };
    } catch {
      return base;
    }
  }

  /**
   * What one call concerns (its tool's `target`, given the plugin's service: a search's engine is
   * a setting). A `target` that throws counts as none.
   */
  async callTarget(name: string, input: unknown, tabId?: number): Promise<ToolTarget | undefined> {
    const entry = this.tools.get(name);
    const target = entry?.spec.annotations.target;
    if (!entry || !target) return undefined;
    try {
      return await target(input ?? {}, { tabId, service: entry.service });
    } catch {
      return undefined;
    }
  }

  /**
   * One call in words for its approval card (its tool's `describe`, given the plugin's service and
   * the tab the gate resolved). Built-in tools only (an outside source's words are not ours to
   * show as facts). Throws what `describe` throws; a result without words counts as none.
   */
  async callWords(name: string, input: unknown, tabId?: number): Promise<CallWords | undefined> {
    const entry = this.tools.get(name);
    const describe = entry?.spec.annotations.describe;
    if (!entry || !describe || entry.plugin.source !== 'builtin') return undefined;
    const words = await describe(input ?? {}, { tabId, service: entry.service });
    if (!words || typeof words.words?.key !== 'string') return undefined;
    const carries = words.carries && {
      ...(typeof words.carries.text === 'string' ? { text: words.carries.text } : {}),
      ...(Array.isArray(words.carries.to) ? { to: words.carries.to.filter((to): to is string => typeof to === 'string') } : {}),
    };
    const hidden = Array.isArray(words.hidden) ? words.hidden.filter((field): field is string => typeof field === 'string') : [];
    return { words: words.words, ...(words.sensitive ? { sensitive: true } : {}), ...(carries ? { carries } : {}), ...(hidden.length ? { hidden } : {}) };
  }

  /** The tool's activity reducer (see `ToolContext.reportActivity`), if it reports activity. */
  activityReducer(name: string): ToolDefinition['reduceActivity'] {
    return this.tools.get(name)?.tool.reduceActivity;
  }

  /**
   * What `invoke` would refuse before running the tool (unknown, switched off, not for this agent,
   * invalid input), as its error result; undefined when the call may run. The agent loop asks this
   * before the approval gate, so nobody is asked about a call that cannot run.
   */
  refusal(name: string, input: unknown, allow?: InvokeOptions['allow']): ToolResult | undefined {
    const checked = this.preflight(name, input, allow);
    return 'ok' in checked ? checked : undefined;
  }

  /**
   * The input a call runs with, or what `invoke` would refuse (as `refusal`): checked against the
   * schema, then made ready once by the tool's `prepare` (an address parsed as the browser will).
   * The agent loop hands this same value to the approval gate and to `invoke` (`prepared: true`),
   * so what the gate judges is what the tool does.
   */
  admit(name: string, input: unknown, allow?: InvokeOptions['allow']): { refused: ToolResult } | { input: unknown } {
    const checked = this.preflight(name, input, allow);
    return 'ok' in checked ? { refused: checked } : { input: checked.args };
  }

  private preflight(name: string, input: unknown, allow?: InvokeOptions['allow'], prepared = false): ToolResult | { entry: Entry; args: unknown } {
    const entry = this.tools.get(name);
    if (!entry) {
      return fail('not_found', `Tool ${name} not found. Use only the tools listed for this step.`);
    }
    const { plugin, validate, spec } = entry;
    if (!this.isEnabled(plugin.id)) {
      return fail('disabled', `Tool ${name} belongs to the plugin "${plugin.name}", which the user has switched off.`);
    }
    if (allow && !allow(spec)) {
      return fail('disabled', `Tool ${name} is not available to this agent.`);
    }
    const args = input ?? {};
    let problem: string | null;
    try {
      problem = validate(args);
    } catch (error) {
      problem = `the schema could not be checked (${errorMessage(error)})`;
    }
    if (problem !== null) return fail('invalid_input', `Invalid parameters for tool ${name}: ${problem}`);
    if (prepared || !entry.tool.prepare || plugin.source !== 'builtin') return { entry, args };
    try {
      return { entry, args: entry.tool.prepare(args) };
    } catch (error) {
      return fail('invalid_input', capError(errorMessage(error)));
    }
  }

  /**
   * Runs a tool by name. Always resolves; failures come back as `{ ok: false, error }`. Asks
   * nobody: the registry holds no approval gate. The agent loop calls it only after its own gate
   * (`LoopOptions.gate`) let the call through; tests and the benchmark call it directly.
   */
  async invoke(name: string, input: unknown, options: InvokeOptions = {}): Promise<ToolResult> {
    const checked = this.preflight(name, input, options.allow, options.prepared);
    if ('ok' in checked) return checked;
    const { entry, args } = checked;
    const { tool, service } = entry;
    if (options.signal?.aborted) return fail('aborted', `Tool ${name} was not run: the run was stopped.`);

    const timeoutMs = tool.timeoutMs ?? options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // The call's clock stops while the user is asked about an address it reaches mid-way (`reach`).
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onTimeout: () => void = () => undefined;
    let remaining = timeoutMs;
    let since = Date.now();
    let asking = 0;
    const startClock = () => {
      since = Date.now();
      timer = setTimeout(() => onTimeout(), remaining);
    };
    // The clock stops while the user is asked or has the tab; it goes on when the last wait ends.
    const waitForUser = async <T,>(work: Promise<T>): Promise<T> => {
      if (asking++ === 0) {
        clearTimeout(timer);
        remaining = Math.max(0, remaining - (Date.now() - since));
      }
      try {
        return await work;
      } finally {
        if (--asking === 0 && !controller.signal.aborted) startClock();
      }
    };
    const reach = options.context?.reach;
    const context: ToolContext = { ...options.context, signal: controller.signal, service, waitForUser };
    if (reach) {
      // Bound to this call: a call stopped or timed out withdraws its card.
      context.reach = (url, how) => waitForUser(reach(url, how, controller.signal));
    }
    try {
      const outcome = await Promise.race([
        Promise.resolve()
          .then(() => tool.execute(args, context))
          .then((output) => ({ kind: 'done' as const, output })),
        new Promise<{ kind: 'timeout' }>((resolve) => {
          onTimeout = () => resolve({ kind: 'timeout' });
          startClock();
        }),
        new Promise<{ kind: 'aborted' }>((resolve) => {
          controller.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true });
        }),
      ]);
      if (outcome.kind === 'timeout') {
        controller.abort(new Error('timeout'));
        return fail('timeout', `Tool ${name} did not finish within ${formatDuration(timeoutMs)} and was stopped.`);
      }
      if (outcome.kind === 'aborted') return fail('aborted', `Tool ${name} was stopped: the run was stopped.`);
      const { output, attachments } = takeAttachments(outcome.output);
      const result = capOutput(toJsonSafe(output), options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
      return attachments && result.ok ? { ...result, attachments } : result;
    } catch (error) {
      if (controller.signal.aborted) return fail('aborted', `Tool ${name} was stopped: the run was stopped.`);
      return fail(thrownCode(error), errorMessage(error));
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Calls `listener` whenever plugins, tools or their on/off state change. */
  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    this.version++;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        console.error('[sidequest] registry listener failed', error);
      }
    }
  }
}

function toSpec(plugin: Plugin, tool: ToolDefinition): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    pluginId: plugin.id,
    source: plugin.source,
    annotations: tool.annotations ?? UNKNOWN_TOOL_ANNOTATIONS,
    ...(plugin.scope ? { origin: plugin.scope.origin } : {}),
    ...(tool.concurrent && plugin.source === 'builtin' ? { concurrent: true } : {}),
    ...(tool.prepare && plugin.source === 'builtin' ? { prepare: tool.prepare } : {}),
    ...(tool.alwaysOffered && plugin.source === 'builtin' ? { alwaysOffered: true as const } : {}),
    ...(tool.offersTools && plugin.source === 'builtin' ? { offersTools: true as const } : {}),
  };
}

/** A tool's own error code (`error.code`, one of `TOOL_THROWN_CODES`), else `failed`. */
function thrownCode(error: unknown): ToolErrorCode {
  const code = (error as { code?: unknown } | null)?.code;
  return TOOL_THROWN_CODES.includes(code as ToolErrorCode) ? (code as ToolErrorCode) : 'failed';
}

function fail(code: Extract<ToolResult, { ok: false }>['code'], error: string): ToolResult {
  return { ok: false, code, error: capError(error) };
}

/**
 * An error string as the model reads it: at most `MAX_ERROR_CHARS` characters of it, cut outside
 * any marker with every envelope it opened closed (a page's words stay inside theirs), then a note.
 */
export function capError(error: string, maxChars = MAX_ERROR_CHARS): string {
  if (error.length <= maxChars) return error;
  return `${cutKeepingEnvelopes(error, maxChars)}\n[Error cut: it was ${error.length} characters, the limit is ${maxChars}.]`;
}

/** Cuts an output whose JSON is longer than `maxChars`, and says so in words the model reads. */
export function capOutput(output: unknown, maxChars: number): ToolResult {
  const json = output === undefined ? '' : JSON.stringify(output);
  if (json.length <= maxChars) return { ok: true, output };
  // Cut outside any marker, with every envelope it opened closed: our note stays ours.
  const kept = cutKeepingEnvelopes(json, maxChars);
  return {
    ok: true,
    truncated: true,
    output: `${kept}\n[Output cut: it was ${json.length} characters as JSON, the limit is ${maxChars}. Ask for less, e.g. with a narrower query, a selector or max_length.]`,
  };
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

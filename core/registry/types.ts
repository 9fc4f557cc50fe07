import type { JSONSchema7 } from 'json-schema';
import type { Said } from '@/core/i18n/catalog';

/**
 * What a tool may use while it runs, besides its input. Built-in tools get all of it; page tools
 * (which run in the page) see none of it. `service` is what the tool's plugin made in `setup`.
 */
export interface ToolContext<Service = unknown> {
  /** Aborted when the user stops the run or the call times out; long tools should listen. */
  signal: AbortSignal;
  /** The conversation the call belongs to, when there is one. */
  conversationId?: string;
  /** The tab the run is bound to (a sub-agent's `tab_id`), when there is one. */
  tabId?: number;
  /** The sub-agent making the call (its label), when a sub-agent does: the approval card names it. */
  agentLabel?: string;
  /** The id of the model's tool call being run, when the call comes from an agent loop. */
  toolCallId?: string;
  /**
   * Live activity of a long call (nested progress, e.g. a sub-agent's steps), for tools that
   * declare `activity`: the loop folds each event into the tool message with the tool's reducer,
   * saves it, and forwards it to the sidebar as a `tool-activity` event.
   */
  reportActivity?: (event: unknown) => void;
  /**
   * An address on the user's own network (loopback, private, single-label) that the user allowed
   * this very call to reach, through the approval gate. Tools that refuse such addresses on their
   * own accept this one (its origin), and nothing else.
   */
  approvedUrl?: string;
  /**
   * Asks the approval gate about an address this call reaches on its way, which the gate could not
   * judge before the call ran: a redirect hop (`redirectFrom`), or an address whose server turned
   * out to be on the user's own network (`localAddress`: the IP it resolved to or answered from).
   * The gate applies the same rules as to a call's first address (the outbound rule, the local
   * network) and may show a card; the tool goes on only on `ok`, and otherwise fails with the
   * verdict's `code` and `error`. The registry binds it to the call (its signal withdraws the card;
   * the call's timeout stops while the user is asked). Absent outside an agent loop (unit tests, benchmarks): tools
   * then apply their own rules alone (a local address is refused unless allowed otherwise).
   */
  reach?: (url: string, how: ReachHow, signal?: AbortSignal) => Promise<ReachVerdict>;
  /**
   * Waits for `work`, something only the user can finish (they took over the tab, a page waits
   * for their login): the call's timeout clock stops meanwhile, as it does while a card asks.
   * Set by the registry for every call it runs.
   */
  waitForUser?: <T>(work: Promise<T>) => Promise<T>;
  /**
   * Every tool this call's agent may use at this step, offered to the model or still in the
   * catalogue (for a tool that finds tools, `ToolDefinition.offersTools`). Set by the agent loop.
   */
  catalogue?: readonly ToolSpec[];
  /** What the plugin's `setup` returned as its service (undefined for plugins without one). */
  service: Service;
}

/** Why a call reaches an address mid-way (see `ToolContext.reach`). */
export interface ReachHow {
  /** The address that redirected here. */
  redirectFrom?: string;
  /** The IP address the host resolved to or answered from, when it is on the user's own network. */
  localAddress?: string;
}

/** The gate's answer about one address reached mid-call. */
export type ReachVerdict = { ok: true } | { ok: false; code: ToolErrorCode; error: string };

/**
 * What a tool does, in the MCP style, for the approval policy and for narrowing tools (sub-agents).
 * Built-in tools must set them; a page's own hints are claims, kept apart in `claims`.
 */
export interface ToolAnnotations {
  /** Changes nothing anywhere: no tab, page, file, setting or remote state. */
  readOnly: boolean;
  /** May delete or overwrite something the user cannot get back. */
  destructive: boolean;
  /** Reaches outside the browser's own state: the network, other sites. */
  openWorld: boolean;
  /** Works on the user's tabs and the pages in them (their content, their session). */
  pages?: boolean;
  /** Waits for a person (a question in the sidebar): unattended agents do not get it. */
  interactive?: boolean;
  /**
   * The tab or address a call concerns, from its input and context (undefined: none in
   * particular). The approval policy asks about that site.
   */
  target?: (input: any, context: { tabId?: number; service?: any }) => ToolTarget | undefined | Promise<ToolTarget | undefined>;
  /**
   * Whether the tool's results hold the user's private data, for the outbound rule. Default: what
   * it reads from the user's tabs and pages (`pages`), and what it reads from the browser's own
   * state (read-only and not open-world: files, lists). `false` for tools whose results only give
   * back what the agent itself wrote or computed (its task list, a sandboxed computation).
   */
  privateData?: boolean;
  /**
   * What a call keeps becomes the user's own words in later runs' system prompts (a memory): the
   * model's words would turn into instructions it trusts. Every call asks (scope `call`, never
   * remembered, not even with the conversation's "act without asking" switch), and its card names
   * what the conversation read from outside before it (pages, fetched sites, files: the words may
   * come from there). Built-in tools only.
   */
  instructs?: boolean;
  /** Hints the tool's author gave about itself (a web page's `readOnlyHint`): claims, not facts. */
  claims?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; untrustedContentHint?: boolean };
  /**
   * What one call does, where it is less than the tool's worst case above (a script run in a
   * sandbox reaches no page; writing a new file overwrites nothing): the approval
   * policy judges the call by these. Only for tools whose code we wrote: sources of outside tools
   * (page tools, MCP servers) put what they are told in `claims`, never here.
   */
  forCall?: (input: any, context: { tabId?: number; service: any }) => CallAnnotations | undefined | Promise<CallAnnotations | undefined>;
  /**
   * What one call will do, in words for the approval card ("Click 'Place order' on shop.example"),
   * and whether it is `sensitive` (it may pay, delete, send, or type a password: asked every time,
   * never remembered). `tabId` is the tab the call concerns as the gate resolved it (the active tab
   * when the call names none). Built-in tools only; a `describe` that throws or takes longer than
   * about 2 s leaves the card with its generic words (and the call is judged as sensitive: what it
   * does could not be read). Undefined: nothing more to say than the generic words.
   */
  describe?: (input: any, context: { tabId?: number; service: any }) => CallWords | undefined | Promise<CallWords | undefined>;
}

/** A call in words, for its approval card (see `ToolAnnotations.describe`). */
export interface CallWords {
  /** One sentence in the user's language: names from the page go in as parameters (cut, shown as text). */
  words: Said;
  /** It may pay, delete, send, or type a password: asked every time, never remembered. */
  sensitive?: boolean;
  /**
   * What the call carries to a site, for the outbound rule (`core/approvals/data-flow.ts`): `text`
   * it types or chooses into the page (the tab's site receives it, unless it is the user's own
   * words), and `to`, addresses it makes the page load or submit to (a link's, a form's
   * destination: whatever the page or the agent put in it goes along).
   */
  carries?: { text?: string; to?: string[] };
  /** Input fields the card shows as dots only (a password's text), in its arguments too. */
  hidden?: string[];
}

/** The part of a tool's annotations one call may narrow (see `ToolAnnotations.forCall`). */
export type CallAnnotations = Partial<Pick<ToolAnnotations, 'readOnly' | 'destructive' | 'openWorld' | 'pages' | 'privateData'>>;

/** What a tool call concerns: a tab (by id) or an address. */
export interface ToolTarget {
  tabId?: number;
  url?: string;
  /**
   * The address is one the user configured themselves in settings (a remote tool server): adding
   * it was their consent to reach it, so the local-network ask does not apply to it (as the model
   * providers' addresses are exempt). The other rules (acting, outbound) still do.
   */
  configured?: boolean;
  /**
   * Where the call's data goes is up to the call's own content (code that can `fetch()` any
   * address): for the outbound rule it sends to any site, whatever its tab shows.
   */
  sendsAnywhere?: boolean;
}

/**
 * One tool, as the seed defines it (a name, a description written for the model, a draft-07 JSON
 * Schema for its input, and the function that runs it), plus our options. A tool signals failure
 * by throwing; the registry turns that into an error result the model can read.
 */
export interface ToolDefinition<Input = any, Output = unknown, Service = any> {
  name: string;
  description: string;
  inputSchema: JSONSchema7;
  execute: (input: Input, context: ToolContext<Service>) => Output | Promise<Output>;
  annotations?: ToolAnnotations;
  /**
   * Makes a valid input what the work uses, once, before the approval gate sees the call: an
   * address parsed as the browser will (`core/net/web-address.ts`), a key name made canonical. The
   * gate's `target` and `describe` and the tool's `execute` all get what it returned, so the site
   * the gate judges is the one the tool reaches. Throws the model's error for an input it refuses
   * (the call fails as invalid). Built-in tools only.
   */
  prepare?: (input: Input) => Input;
  /** Overrides the registry's timeout for this tool (a question to the user waits 5 minutes). */
  timeoutMs?: number;
  /**
   * Several calls of this tool asked for in one step run at the same time instead of one by one
   * (sub-agents). Only for tools whose calls do not depend on each other's order.
   */
  concurrent?: boolean;
  /** Folds one live activity event into the record kept on the tool message (see `reportActivity`). */
  reduceActivity?: (record: unknown, event: unknown) => unknown;
  /**
   * Offered to the model in every request (the small core set a plugin chooses: reading the
   * page, the common actions). Every other tool waits in the catalogue until a tool that finds
   * tools finds it, or the model calls it by name (`core/agent/offered-tools.ts`). Built-in only.
   */
  alwaysOffered?: boolean;
  /**
   * A tool that finds tools: the names in its result's `output.tools[].name` are offered to the
   * model in full from the next step of the run (`core/agent/offered-tools.ts`). Offered always.
   * While no enabled tool finds tools, every tool is offered in every request. Built-in tools only.
   */
  offersTools?: boolean;
}

/** A named group of tools, exactly as the seed defines it. */
export interface ToolGroup {
  name: string;
  description: string;
  tools: ToolDefinition[];
}

/**
 * Where a plugin's tools come from. Page tools (a web page's script) and remote tools (a server the
 * user configured, e.g. an MCP server) are untrusted input: their descriptions, results and errors
 * reach the model in the untrusted envelope, and their own hints are only `claims`.
 */
export type PluginSource = 'builtin' | 'page' | 'remote';

/**
 * A plugin as the registry holds it: a tool group with an id, its source and, for page plugins,
 * the tab and origin its tools belong to. Built-in plugins are defined with `definePlugin`
 * (`core/plugin.ts`), which adds their background service.
 */
export interface Plugin extends ToolGroup {
  id: string;
  source: PluginSource;
  /** Whether the plugin is on before the user has said anything about it. Default true. */
  enabledByDefault?: boolean;
  /** Page plugins: the tab and origin their tools belong to. */
  scope?: { tabId: number; origin: string };
  /**
   * A plugin registered at run time by a built-in plugin (one MCP server of the `mcp` plugin):
   * it has its own on/off switch, and it is off whenever its parent is off.
   */
  parentId?: string;
}

/** Validates one tool input; returns null when it is valid, else a message naming what is wrong. */
export type InputValidator = (input: unknown) => string | null;

/** Makes the validator for a tool's schema. Which strategy depends on where the code runs. */
export type ValidatorFactory = (tool: ToolDefinition, plugin: Plugin) => InputValidator;

/** A tool as the model (and the approval policy) sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JSONSchema7;
  pluginId: string;
  source: PluginSource;
  /** Page tools: the site that offered the tool. */
  origin?: string;
  /** Calls of this tool made in the same step may run at the same time (sub-agents). */
  concurrent?: boolean;
  /** Built-in tools: the tool's `prepare` (for judging calls read back from the history). */
  prepare?: (input: any) => unknown;
  /** Built-in tools: offered in every request (`ToolDefinition.alwaysOffered`). */
  alwaysOffered?: true;
  /** Built-in tools: its results name tools to offer (`ToolDefinition.offersTools`). */
  offersTools?: true;
  annotations: ToolAnnotations;
}

/** An image a tool hands the model beside its output (`withAttachments`, `core/registry/attachments.ts`). */
export interface ToolAttachment {
  type: 'image';
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
  /** Base64. */
  data: string;
}

/**
 * The outcome of one tool call, as data: a tool call never throws into the agent loop. `notice`: a
 * line from Sidequest itself that the model reads after the result (the loop's "you are repeating
 * yourself", `core/agent/loop-guard.ts`); never from the tool.
 */
export type ToolResult =
  | { ok: true; output: unknown; truncated?: boolean; attachments?: ToolAttachment[]; notice?: string }
  | { ok: false; error: string; code: ToolErrorCode; notice?: string };

export type ToolErrorCode =
  | 'not_found'
  | 'disabled'
  | 'invalid_input'
  | 'timeout'
  | 'aborted'
  /** The user declined the call (or left its approval unanswered): the model is told so. */
  | 'denied'
  | 'failed'
  /** A local-network address the user has not allowed (a fetch to the user's own network). */
  | 'local_network';

/**
 * The codes a tool may give by throwing an error with a `code` property (others become `failed`):
 * `denied` when the gate said no to an address the call reached mid-way (`ToolContext.reach`).
 */
export const TOOL_THROWN_CODES: readonly ToolErrorCode[] = ['local_network', 'denied'];

/**
 * Stands between an agent loop's tool calls and the plugins (the approval gate,
 * `core/approvals/gate.ts`). Each loop is handed its gate explicitly (`LoopOptions.gate`): the
 * background gives the main agent's runner and every plugin (sub-agents) the same one; a loop
 * given none refuses the calls a gate would ask about (`core/approvals/no-gate.ts`).
 * `ToolRegistry.invoke` alone never asks.
 */
export interface ToolGate {
  /** Lets the call through (`ok`, with a note handed back to `record`) or gives the result instead. */
  check(
    call: GatedCall,
    signal?: AbortSignal,
  ): Promise<{ ok: true; note?: unknown; approvedUrl?: string; tabId?: number; notice?: string } | { ok: false; result: ToolResult }>;
  /** The call ran with this result (failed calls too: an error can carry what was read). */
  record?(call: GatedCall, note: unknown, result: ToolResult): void;
  /** An address the call reaches mid-way (`ToolContext.reach`), judged with the call's note. */
  reach?(call: GatedCall, note: unknown, url: string, how: ReachHow, signal?: AbortSignal): Promise<ReachVerdict>;
}

/** One call as a loop hands it to the gate. */
export interface GatedCall {
  name: string;
  input: unknown;
  spec: ToolSpec;
  conversationId?: string;
  toolCallId?: string;
  tabId?: number;
  agent?: string;
  /** The call's target, resolved with its plugin's service (`ToolRegistry.callTarget`); when absent the gate reads the tool's `target` itself. */
  target?: ToolTarget;
  /**
   * The call in words for the tab the gate resolved (`ToolAnnotations.describe`, bound to its
   * plugin's service by the loop: `ToolRegistry.callWords`); absent for tools without `describe`.
   * May throw or hang: the gate bounds it.
   */
  words?: (tabId: number | undefined) => Promise<CallWords | undefined>;
}

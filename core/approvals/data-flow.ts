import type { GatedCall, ToolResult, ToolSpec, ToolTarget } from '@/core/registry/types';
import { isLocalNetworkUrl } from '@/core/net/local-network';
import { originOf } from '@/core/net/origin';
import { readsPrivateData } from './policy';
import { toolSiteKey } from './remembered';
import type { ActionKind, GateNote, RunSeed } from './types';

/** For the outbound rule: a call whose code decides where its data goes. */
export const ANYWHERE = '*';

/**
 * What one conversation's runs (with their sub-agents) have read, and where the user let data go:
 * the outbound rule's data flow, with the conversation's switch and its site-scoped Allow onces.
 */
export interface ConversationState {
  trusted: boolean;
  /** Set for an unattended conversation: what was granted ahead, by `toolSiteKey`, with its pin (see `RunSeed`). */
  grantedAhead?: Map<string, string | undefined>;
  /**
   * The private reads so far: their origins (`https://mail.example`), or `plugin:<id>` for reads
   * that have no site (a plugin's files, the list of tabs).
   */
  sources: Set<string>;
  /**
   * Everything read from outside so far, named like `sources`: the private reads, and the open
   * web's (a fetched page, a search's results). Not a rule's input: a card that keeps the model's
   * words (`instructs`) names them, since the words may come from there.
   */
  seen: Set<string>;
  /** Sites the user let receive data after private reads (`*`: anywhere), with the sources the card named. */
  sinks: Map<string, Set<string>>;
  /** `tool\nsite` allowed once with site scope in this conversation, with the tool's pin then. */
  allowedSites: Map<string, { pin?: string; description?: string }>;
  /** The user's messages, made comparable (`comparable`): typing them into a page carries nothing read. */
  userWords: string[];
  /** What a plugin granted for the run going now (`RunGrant`, a plan the user approved); gone when it ends. */
  grant?: { origins: Set<string>; kinds: Set<ActionKind>; sinks: Set<string> };
}

/**
 * The outbound rule is a data-flow rule: each private read adds its origin (or, for reads with no
 * site, its plugin) to the conversation's sources; a call that can carry data to a site (its
 * `sink`: a fetched or opened address, a search engine, an MCP server, a page's tool, `*` for a
 * script in a page) is sensitive whenever some source is another site than the sink and the user
 * has not yet let that sink receive data from it. Sending back to the one site read stays silent.
 * This holds each conversation's state; the gate decides with it.
 */
/** Conversations without a run whose data-flow state is kept, the most recently run. */
export const MAX_IDLE_CONVERSATIONS = 64;

export class DataFlow {
  private readonly conversations = new Map<string, ConversationState>();
  /** Conversations with a run going: their state is never dropped. */
  private readonly running = new Set<string>();

  constructor(private readonly maxIdle = MAX_IDLE_CONVERSATIONS) {}

  /** How many conversations' states are kept (`core/retained.ts`). */
  get size(): number {
    return this.conversations.size;
  }

  /** The conversation's state, made empty on first use. */
  state(conversationId: string): ConversationState {
    let state = this.conversations.get(conversationId);
    if (!state) {
      state = { trusted: false, sources: new Set(), seen: new Set(), sinks: new Map(), allowedSites: new Map(), userWords: [] };
      this.conversations.set(conversationId, state);
    }
    return state;
  }

  /** Drops the conversation's run grant, if it has one (keeps no state for a conversation it does not know). */
  dropGrant(conversationId: string): void {
    const state = this.conversations.get(conversationId);
    if (state) delete state.grant;
  }

  /** Whether the conversation has a run going (between `seed` and `ended`). */
  isRunning(conversationId: string): boolean {
    return this.running.has(conversationId);
  }

  forget(conversationId: string): void {
    this.conversations.delete(conversationId);
    this.running.delete(conversationId);
  }

  clear(): void {
    this.conversations.clear();
    this.running.clear();
  }

  /**
   * The conversation's run ended: its state becomes the newest of the idle ones, and idle states
   * past `maxIdle` go, oldest first (as after a worker restart: the next run seeds its sources
   * from the stored history again, reads on the user's own network included; what the user let
   * through is asked again).
   */
  ended(conversationId: string): void {
    this.running.delete(conversationId);
    const state = this.conversations.get(conversationId);
    if (state) {
      // A run's grant is for that run only.
      delete state.grant;
      this.conversations.delete(conversationId);
      this.conversations.set(conversationId, state);
    }
    let idle = this.conversations.size - this.running.size;
    for (const id of this.conversations.keys()) {
      if (idle <= this.maxIdle) break;
      if (this.running.has(id)) continue;
      this.conversations.delete(id);
      idle--;
    }
  }

  /** A run starts: its switch, and the private reads its history already made. */
  seed(conversationId: string, seed: RunSeed): void {
    this.running.add(conversationId);
    const state = this.state(conversationId);
    delete state.grant;
    state.trusted = seed.trusted;
    state.grantedAhead = seed.grantedAhead && new Map(seed.grantedAhead.map((g) => [toolSiteKey(g.tool, g.site), g.pin]));
    state.userWords = (seed.userWords ?? []).map(comparable).filter(Boolean);
    for (const call of seed.calls) {
      if (!call.spec) {
        // A tool that is gone now: a page's or a server's answer was private.
        if (call.fromPage) addRead(state, originOf(call.origin) || 'plugin:page-tools', true);
        continue;
      }
      const target = syncTarget(call.spec, call.input);
      const read = call.output as { url?: unknown } | undefined;
      // What a call on the user's own network returned is private, as `record` counts it: the
      // address it was given, and the page it ended on (a redirect). A public name that resolved
      // to the user's network mid-call is not in the history and is not rebuilt.
      if (call.spec.annotations.openWorld) {
        for (const url of [target?.url, read?.url]) if (typeof url === 'string' && isLocalNetworkUrl(url)) state.sources.add(originOf(url) || url);
      }
      const fromOutside = call.fromPage || call.spec.source !== 'builtin';
      const secret = readsPrivateData(call.spec.annotations, fromOutside);
      if (!secret && !readsOutside(call.spec.annotations, fromOutside)) continue;
      const origin = (typeof read?.url === 'string' && originOf(read.url)) || originOf(target?.url) || originOf(call.origin) || originOf(call.spec.origin);
      addRead(state, origin || `plugin:${call.spec.pluginId}`, secret);
      for (const shown of shownOrigins(call.output)) addRead(state, shown, secret);
    }
  }

  /**
   * After a call ran, failed calls too (an error can carry what was read; only a call the user
   * declined never ran): what it read privately.
   */
  record(call: GatedCall, note: GateNote, result: ToolResult): void {
    if (!call.conversationId || (!result.ok && result.code === 'denied')) return;
    const state = this.state(call.conversationId);
    // What a call on the user's own network returned is private (a router's page, an intranet's).
    if (note.local) addRead(state, originOf(note.url) || note.site, true);
    for (const origin of note.localReads) addRead(state, origin, true);
    const fromOutside = call.spec.source !== 'builtin';
    const secret = readsPrivateData(call.spec.annotations, fromOutside);
    if (!secret && !readsOutside(call.spec.annotations, fromOutside)) return;
    // Where it read: the page it says it read (a tab may have moved on since the check), the tab,
    // the address; or, with no site, the plugin (its files, its lists).
    const read = result.ok ? (result.output as { url?: unknown } | undefined) : undefined;
    const origins = [typeof read?.url === 'string' ? originOf(read.url) : '', note.tab?.origin ?? '', originOf(note.url), ...shownOrigins(read)].filter((o) => o);
    if (origins.length) for (const origin of new Set(origins)) addRead(state, origin, secret);
    else addRead(state, `plugin:${call.spec.pluginId}`, secret);
  }
}

/** A read from outside: every one is `seen`; a private one is a source of the outbound rule too. */
function addRead(state: ConversationState, origin: string, secret: boolean): void {
  state.seen.add(origin);
  if (secret) state.sources.add(origin);
}

/** Whether a tool's results come from outside the user's own words: the private reads' tools, the open web's, and every outside source's. */
function readsOutside(annotations: ToolSpec['annotations'], fromOutside: boolean): boolean {
  return fromOutside || annotations.openWorld || readsPrivateData(annotations, fromOutside);
}

/** A text as `isUserWords` compares it: NFKC, lower case, white space as single spaces. */
function comparable(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Letters, marks and digits: a match must not start or end inside a word. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/**
 * Whether `text` (typed or chosen into a page) is the user's own words: empty, or found whole in
 * one of their messages (not inside a longer word). Such text carries nothing the agent read, so
 * the page's site receiving it is no outbound call. Anything else (text the model wrote, maybe from
 * a private read) is judged by the outbound rule.
 */
export function isUserWords(state: Pick<ConversationState, 'userWords'>, text: string): boolean {
  const wanted = comparable(text);
  if (!wanted) return true;
  for (const words of state.userWords) {
    for (let at = words.indexOf(wanted); at >= 0; at = words.indexOf(wanted, at + 1)) {
      const before = words[at - 1] ?? ' ';
      const after = words[at + wanted.length] ?? ' ';
      if ((!WORD_CHAR.test(before) || !WORD_CHAR.test(wanted[0]!)) && (!WORD_CHAR.test(after) || !WORD_CHAR.test(wanted.at(-1)!))) return true;
    }
  }
  return false;
}

/**
 * The other sites a result says it shows besides its `url` (`origins`: a screenshot's framed sites
 * in view), as http(s) origins: each one was read too.
 */
export function shownOrigins(output: unknown): string[] {
  const origins = (output as { origins?: unknown } | undefined)?.origins;
  if (!Array.isArray(origins)) return [];
  return origins.slice(0, 256).flatMap((origin) => (typeof origin === 'string' && originOf(origin) ? [originOf(origin)] : []));
}

/** The private reads that make sending to `sink` sensitive: any other site's, not yet let through to it. */
export function sensitiveFor(state: ConversationState, sink: string): string[] {
  // A site the run's grant names as receiving data: the user was told, and said yes, before the run acted.
  if (state.grant && !state.grantedAhead && state.grant.sinks.has(sink)) return [];
  const through = state.sinks.get(sink);
  return [...state.sources].filter((source) => source !== sink && !through?.has(source));
}

/** The user let `sink` receive data from these reads (until something else private is read). */
export function letThrough(state: ConversationState, sink: string, sources: string[]): void {
  const through = state.sinks.get(sink) ?? new Set<string>();
  for (const source of sources) through.add(source);
  state.sinks.set(sink, through);
}

/**
 * Where an open-world call can carry data: its address's origin; `*` for a call whose content
 * decides (a script in a page) or that names no place at all; else the site of the tab it runs in.
 */
export function sinkOf(target: ToolTarget | undefined, url: string | undefined, tabOrigin: string | undefined): string {
  if (!target || target.sendsAnywhere) return ANYWHERE;
  if (url) return originOf(url) || url;
  return tabOrigin || ANYWHERE;
}

/**
 * The tool's target for this input, when its `target` answers at once (the history at a run's
 * start; calls a loop did not resolve); one that throws or waits counts as none.
 */
export function syncTarget(spec: ToolSpec, input: unknown, tabId?: number): ToolTarget | undefined {
  try {
    const target = spec.annotations.target?.(prepared(spec, input ?? {}), { tabId });
    return target instanceof Promise ? (target.catch(() => undefined), undefined) : target;
  } catch {
    return undefined;
  }
}

/**
 * A stored call's input as its tool made it ready when it ran (`ToolDefinition.prepare`: an address
 * parsed as the browser does), for judging history the way the call was judged; as it is when the
 * tool has no `prepare` or refuses it (such a call failed, and named no site).
 */
export function prepared(spec: ToolSpec, input: unknown): unknown {
  if (!spec.prepare) return input;
  try {
    return spec.prepare(input);
  } catch {
    return input;
  }
}

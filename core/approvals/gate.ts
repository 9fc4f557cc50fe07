import type { GatedCall, ReachHow, ReachVerdict, ToolGate, ToolResult, ToolSpec, ToolTarget } from '@/core/registry/types';
import { isLocalNetworkUrl } from '@/core/net/local-network';
import { originOf } from '@/core/net/origin';
import { decide, readsPrivateData, type AskReason, type RememberedDecision } from './policy';

/** An ask unanswered for this long is declined. */
export const APPROVAL_TIMEOUT_MS = 5 * 60_000;

/** A call waiting for the user's say-so, as the sidebar shows it. */
export interface PendingApproval {
  id: string;
  conversationId?: string;
  toolCallId?: string;
  /** The sub-agent that made the call (its label), when one did. */
  agent?: string;
  tool: string;
  /** The site the call concerns (an origin), or '' for none in particular. */
  site: string;
  /** The full address, for calls that load or send to one. */
  url?: string;
  /** The call's full arguments, as pretty JSON (shown as text, never as HTML). */
  arguments: string;
  reason: AskReason;
  /**
   * Tab-targeted calls: the tab as it was when asked (its id, title and origin). An answer applies
   * to that tab only while it still shows that origin; otherwise the call is refused.
   */
  tab?: { id: number; title: string; origin: string };
  /**
   * Outbound asks: where the data would go (an origin; '*' for code that can send anywhere, e.g. a
   * script in a page) and what was read that makes it sensitive (origins, or the name of what was
   * read where there is no site: a plugin's files or lists), for "This sends data to evil.example
   * after reading mail.example".
   */
  sink?: string;
  sources?: string[];
  /**
   * The tool's own words changed since the user allowed it (its description or input schema: a
   * pinned definition no longer matches), so the remembered choice no longer applies.
   */
  changed?: { before: string; after: string };
  /**
   * Asks about an address reached mid-call (`ToolContext.reach`): `redirectFrom` the address that
   * redirected there; `localAddress` the IP on the user's own network it resolved to or answered
   * from (its content is withheld from the model until the user says yes).
   */
  redirectFrom?: string;
  localAddress?: string;
  /** `site`: Allow once also covers this tool on this site for the rest of the conversation. */
  scope: 'call' | 'site';
  askedAt: number;
  expiresAt: number;
}

/** A remembered choice: this tool on this site ('' = wherever it runs). */
export interface Permission {
  tool: string;
  site: string;
  decision: RememberedDecision;
  at: number;
  /**
   * Tools from outside (a page's, an MCP server's): a digest of the name, description and input
   * schema the user saw when allowing, and the description itself (shown beside the new one when
   * the tool changes). A changed tool is asked about again.
   */
  pin?: string;
  description?: string;
}

export type ApprovalAnswer = 'once' | 'always' | 'deny';

export type ApprovalChange =
  | { type: 'asked'; approval: PendingApproval }
  | { type: 'closed'; id: string; conversationId?: string; reason: 'allowed' | 'denied' | 'timeout' | 'withdrawn' }
  | { type: 'permissions'; permissions: Permission[] };

/** Where the gate keeps remembered choices (the core DB's `permissions` store). */
export interface PermissionStore {
  load(): Promise<Permission[]>;
  put(permission: Permission): Promise<void>;
  remove(tool: string, site: string): Promise<void>;
}

/** A tab as the gate shows it on a card. */
export interface TabView {
  id: number;
  url: string;
  title: string;
}

export interface GateDeps {
  permissions: PermissionStore;
  /** The tab the user is looking at (the extension's own pages skipped). */
  activeTab(): Promise<TabView | undefined>;
  /** A tab, or undefined when there is no such tab. */
  tab(tabId: number): Promise<TabView | undefined>;
  /** Whether the user set this address up in settings (a provider's): then it is not asked about as local. */
  configured?(url: string): Promise<boolean>;
  /** A plugin's name, for private reads that have no site (a plugin's files or lists) on the card. */
  pluginName?(pluginId: string): string | undefined;
  timeoutMs?: number;
}

/** What the gate resolved about a call it let through; handed back to `record` (and `reach`) with the call. */
export interface GateNote {
  site: string;
  url?: string;
  /** The tab the call concerns, as the gate resolved it. */
  tab?: { id: number; origin: string };
  /** The call's own address is on the user's own network: what it returns is a private read. */
  local?: boolean;
  /** The address the user allowed this call to reach on their network. */
  approvedUrl?: string;
  /** Origins on the user's own network the call reached mid-way (`reach`): private reads too. */
  localReads: string[];
}

export type GateVerdict = { ok: true; note: GateNote; approvedUrl?: string; tabId?: number } | { ok: false; result: ToolResult };

/**
 * What one conversation's runs (with their sub-agents) have read, and where the user let data go:
 * the outbound rule's data flow.
 */
interface ConversationState {
  trusted: boolean;
  /**
   * The private reads so far: their origins (`https://mail.example`), or `plugin:<id>` for reads
   * that have no site (a plugin's files, the list of tabs).
   */
  sources: Set<string>;
  /** Sites the user let receive data after private reads (`*`: anywhere), with the sources the card named. */
  sinks: Map<string, Set<string>>;
  /** `tool\nsite` allowed once with site scope in this conversation, with the tool's pin then. */
  allowedSites: Map<string, { pin?: string; description?: string }>;
}

/** What the conversation's history says, to seed its state when a run starts. */
export interface RunSeed {
  trusted: boolean;
  /** Earlier tool calls that ran (failed ones too: an error can carry what was read), with their spec when the tool still exists. */
  calls: Array<{ spec?: ToolSpec; input: unknown; fromPage: boolean; origin?: string; output?: unknown }>;
}

const key = (tool: string, site: string) => `${tool}\n${site}`;
/** For the outbound rule: a call whose code decides where its data goes. */
const ANYWHERE = '*';
/** How much of a tool's old description a pin keeps, to show beside the new one. */
const PINNED_DESCRIPTION_CHARS = 4000;

/**
 * The approval gate between the model's tool calls and the plugins, for the main agent and every
 * sub-agent (the agent loop consults it before each call; `ToolRegistry.invoke` alone does not).
 * Decisions come from the tool's annotations (`policy.ts`); remembered choices are read once from
 * IndexedDB and kept in memory, so a call that needs no ask costs no storage read. Asks wait like the
 * agent's questions to the user: answered in the sidebar, declined after 5 minutes, withdrawn when the run
 * stops.
 *
 * The outbound rule is a data-flow rule: each private read adds its origin (or, for reads with no
 * site, its plugin) to the conversation's sources; a call that can carry data to a site (its
 * `sink`: a fetched or opened address, a search engine, an MCP server, a page's tool, `*` for a
 * script in a page) asks whenever some source is another site than the sink and the user has not
 * yet let that sink receive data from it. Sending back to the one site read stays silent.
 */
export class ApprovalGate implements ToolGate {
  private readonly remembered = new Map<string, Permission>();
  private readonly conversations = new Map<string, ConversationState>();
  private readonly waiting = new Map<string, { approval: PendingApproval; settle(answer: ApprovalAnswer | 'timeout'): void; cancel(): void }>();
  private readonly listeners = new Set<(change: ApprovalChange) => void>();
  private loaded: Promise<void> | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly deps: GateDeps) {
    this.timeoutMs = deps.timeoutMs ?? APPROVAL_TIMEOUT_MS;
  }

  /** Reads the remembered choices (once; later calls wait for the same read). */
  load(): Promise<void> {
    return (this.loaded ??= this.deps.permissions.load().then((list) => {
      for (const p of list) this.remembered.set(key(p.tool, p.site), p);
    }));
  }

  /** A run of the conversation starts: its switch, and what its history already read. */
  beginRun(conversationId: string, seed: RunSeed): void {
    const state = this.state(conversationId);
    state.trusted = seed.trusted;
    for (const call of seed.calls) {
      if (!call.spec) {
        // A tool that is gone now: a page's or a server's answer was private.
        if (call.fromPage) state.sources.add(originOf(call.origin) || 'plugin:page-tools');
        continue;
      }
      if (!readsPrivateData(call.spec.annotations, call.fromPage || call.spec.source !== 'builtin')) continue;
      const target = syncTarget(call.spec, call.input);
      const read = call.output as { url?: unknown } | undefined;
      const origin = (typeof read?.url === 'string' && originOf(read.url)) || originOf(target?.url) || originOf(call.origin) || originOf(call.spec.origin);
      state.sources.add(origin || `plugin:${call.spec.pluginId}`);
    }
  }

  /** The conversation's "act without asking" switch. */
  setTrusted(conversationId: string, trusted: boolean): void {
    this.state(conversationId).trusted = trusted;
  }

  /** Forgets a deleted conversation and withdraws its asks. */
  forget(conversationId: string): void {
    for (const w of [...this.waiting.values()]) if (w.approval.conversationId === conversationId) w.cancel();
    this.conversations.delete(conversationId);
  }

  /**
   * Delete all data: withdraws every ask, forgets every conversation and every remembered choice
   * (the caller empties their store); the next decision reads them again.
   */
  reset(): void {
    for (const w of [...this.waiting.values()]) w.cancel();
    this.conversations.clear();
    this.remembered.clear();
    this.loaded = undefined;
    this.emit({ type: 'permissions', permissions: [] });
  }

  /**
   * Decides a call: lets it through (with what was resolved about it), or returns the result the
   * model reads instead (declined, withdrawn, the tab changed). May wait for the user.
   */
  async check(call: GatedCall, signal?: AbortSignal): Promise<GateVerdict> {
    if (!this.loaded) await this.load();
    else await this.loaded;
    const annotations = call.spec.annotations;
    const target = 'target' in call ? call.target : syncTarget(call.spec, call.input, call.tabId);
    const url = target?.url;
    let site = url ? originOf(url) || url : '';
    let onActiveTab = false;
    // The tab a tab's tool works on (the active one when it names none), as the card shows it.
    let tab: TabView | undefined;
    if (target && annotations.pages && (target.tabId !== undefined || !url)) {
      const active = target.tabId === undefined || annotations.readOnly ? await this.deps.activeTab() : undefined;
      tab = target.tabId === undefined ? active : await this.deps.tab(target.tabId);
      onActiveTab = target.tabId === undefined || active?.id === target.tabId;
      if (!url) site = originOf(tab?.url) || tab?.url || '';
    }
    const tabOrigin = tab ? originOf(tab.url) || tab.url : undefined;
    const state = call.conversationId ? this.state(call.conversationId) : undefined;
    const pin = call.spec.source === 'builtin' ? undefined : await definitionPin(call.spec);
    // A remembered Always allow of an outside tool holds only for the words the user saw then.
    let changed: PendingApproval['changed'];
    const saved = this.remembered.get(key(call.name, site));
    let remembered = saved?.decision;
    if (remembered === 'allow' && pin && saved && saved.pin !== pin) {
      if (saved.pin) {
        changed = { before: saved.description ?? '', after: pinnedDescription(call.spec) };
        remembered = undefined;
      } else {
        // Remembered before tools were pinned: pinned as the tool is now.
        await this.remember({ ...saved, pin, description: pinnedDescription(call.spec) });
      }
    }
    const allowedHere = state?.allowedSites.get(key(call.name, site));
    if (allowedHere && pin && allowedHere.pin !== pin) changed ??= { before: allowedHere.description ?? '', after: pinnedDescription(call.spec) };
    const allowedInConversation = Boolean(allowedHere && (!pin || allowedHere.pin === pin));
    // The data-flow rule: where this call can carry data, and which private reads make that sensitive.
    const sink = annotations.openWorld ? sinkOf(target, url, tabOrigin) : '';
    const sensitive = state && sink ? this.sensitive(state, sink) : [];
    // The user's own network: the tool itself refuses it unless the gate passes on the user's yes.
    // An address the user set up in settings is theirs already: a provider's (configured
    // origins), or a remote tool server's (its plugin marks the target `configured`).
    const onLocalNetwork = Boolean(annotations.openWorld && url && isLocalNetworkUrl(url));
    const local = onLocalNetwork && !target?.configured && !(await this.deps.configured?.(url!));
    const decision = decide({
      annotations,
      hasTarget: target !== undefined,
      onActiveTab,
      remembered,
      allowedInConversation,
      trusted: Boolean(state?.trusted),
      outbound: sensitive.length > 0,
      local,
    });
    const note: GateNote = {
      site,
      url,
      ...(tab ? { tab: { id: tab.id, origin: tabOrigin! } } : {}),
      ...(onLocalNetwork ? { local: true } : {}),
      localReads: [],
    };
    // With `local`, the policy allows only on the user's word (the switch, a remembered choice).
    if (decision.action === 'allow') return { ok: true, note: withApproved(note, local ? url : undefined), ...(local ? { approvedUrl: url } : {}) };
    if (decision.action === 'deny') return { ok: false, result: declined(call.name, site, 'You chose to deny this tool on this site.') };
    const answer = await this.ask(
      {
        conversationId: call.conversationId,
        toolCallId: call.toolCallId,
        agent: call.agent,
        tool: call.name,
        site,
        url,
        arguments: prettyJson(call.input),
        reason: decision.reason,
        scope: decision.scope,
        ...(tab ? { tab: { id: tab.id, title: tab.title, origin: tabOrigin! } } : {}),
        ...(decision.reason === 'outbound' ? { sink, sources: sensitive.map((s) => this.sourceName(s)) } : {}),
        ...(changed ? { changed } : {}),
      },
      signal,
    );
    if (answer === 'withdrawn') return { ok: false, result: { ok: false, code: 'aborted', error: 'Not run: the user stopped the run while it waited for approval.' } };
    if (answer === 'timeout') return { ok: false, result: declined(call.name, site, 'Nobody answered the approval request within 5 minutes.') };
    if (answer === 'deny') return { ok: false, result: declined(call.name, site) };
    // The answer holds for the tab the card named, while it shows the same site.
    if (tab) {
      const now = target?.tabId === undefined ? await this.deps.activeTab() : await this.deps.tab(tab.id);
      const nowOrigin = now ? originOf(now.url) || now.url : '';
      if (!now || now.id !== tab.id || nowOrigin !== tabOrigin) return { ok: false, result: tabChanged(call.name, tabOrigin!, now?.id === tab.id ? nowOrigin : undefined) };
    }
    const pinned = pin ? { pin, description: pinnedDescription(call.spec) } : {};
    if (answer === 'always') await this.remember({ tool: call.name, site, decision: 'allow', at: Date.now(), ...pinned });
    else if (decision.scope === 'site' && state) state.allowedSites.set(key(call.name, site), pinned);
    if (decision.reason === 'outbound' && state) this.letThrough(state, sink, sensitive);
    return {
      ok: true,
      note: withApproved(note, local ? url : undefined),
      ...(local ? { approvedUrl: url } : {}),
      // A tab's tool that named no tab runs on the tab the card showed.
      ...(tab && target?.tabId === undefined ? { tabId: tab.id } : {}),
    };
  }

  /**
   * An address a call reaches on its way (a redirect hop; a server found on the user's network
   * once the name was resolved or the answer came): the same outbound and local-network rules as
   * for a call's first address, on a card of its own when they ask.
   */
  async reach(call: GatedCall, note: unknown, url: string, how: ReachHow, signal?: AbortSignal): Promise<ReachVerdict> {
    const pass = note as GateNote;
    const origin = originOf(url);
    if (!origin) return { ok: false, code: 'failed', error: `Not followed: ${truncate(url, 200)} is not an http(s) address.` };
    const state = call.conversationId ? this.state(call.conversationId) : undefined;
    const local = Boolean(how.localAddress) || isLocalNetworkUrl(url);
    const readLocal = (): ReachVerdict => {
      if (local && !pass.localReads.includes(origin)) pass.localReads.push(origin);
      return { ok: true };
    };
    if (state?.trusted) return readLocal();
    const remembered = this.remembered.get(key(call.name, origin))?.decision;
    if (remembered === 'deny') return declinedReach(call.name, origin, 'You chose to deny this tool on this site.');
    const sensitive = state ? this.sensitive(state, origin) : [];
    const localExempt =
      !local ||
      remembered === 'allow' ||
      originOf(pass.approvedUrl) === origin ||
      (Boolean(call.target?.configured) && originOf(call.target?.url) === origin) ||
      Boolean(await this.deps.configured?.(url));
    const reason: AskReason | undefined = sensitive.length ? 'outbound' : localExempt ? undefined : 'local';
    if (!reason) return readLocal();
    const answer = await this.ask(
      {
        conversationId: call.conversationId,
        toolCallId: call.toolCallId,
        agent: call.agent,
        tool: call.name,
        site: origin,
        url,
        arguments: prettyJson(call.input),
        reason,
        scope: 'call',
        ...(reason === 'outbound' ? { sink: origin, sources: sensitive.map((s) => this.sourceName(s)) } : {}),
        ...(how.redirectFrom ? { redirectFrom: how.redirectFrom } : {}),
        ...(how.localAddress ? { localAddress: how.localAddress } : {}),
      },
      signal,
    );
    if (answer === 'withdrawn') return { ok: false, code: 'aborted', error: 'Not run: the user stopped the run while it waited for approval.' };
    if (answer === 'timeout') return declinedReach(call.name, origin, 'Nobody answered the approval request within 5 minutes.');
    if (answer === 'deny') return declinedReach(call.name, origin);
    if (answer === 'always') await this.remember({ tool: call.name, site: origin, decision: 'allow', at: Date.now() });
    if (reason === 'outbound' && state) this.letThrough(state, origin, sensitive);
    return readLocal();
  }

  /**
   * After a call ran, failed calls too (an error can carry what was read; only a call the user
   * declined never ran): what it read privately, for the outbound rule.
   */
  record(call: GatedCall, note: unknown, result: ToolResult): void {
    if (!call.conversationId || (!result.ok && result.code === 'denied')) return;
    const pass = note as GateNote;
    const state = this.state(call.conversationId);
    // What a call on the user's own network returned is private (a router's page, an intranet's).
    if (pass.local) state.sources.add(originOf(pass.url) || pass.site);
    for (const origin of pass.localReads) state.sources.add(origin);
    if (!readsPrivateData(call.spec.annotations, call.spec.source !== 'builtin')) return;
    // Where it read: the page it says it read (a tab may have moved on since the check), the tab,
    // the address; or, with no site, the plugin (its files, its lists).
    const read = result.ok ? (result.output as { url?: unknown } | undefined) : undefined;
    const origins = [typeof read?.url === 'string' ? originOf(read.url) : '', pass.tab?.origin ?? '', originOf(pass.url)].filter((o) => o);
    if (origins.length) for (const origin of new Set(origins)) state.sources.add(origin);
    else state.sources.add(`plugin:${call.spec.pluginId}`);
  }
  /** The user's answer from the sidebar. */
  answer(id: string, answer: ApprovalAnswer): void {
    const entry = this.waiting.get(id);
    if (!entry) throw new Error('This request is no longer waiting (it was answered, timed out or withdrawn).');
    entry.settle(answer);
  }

  /** The asks waiting now, oldest first. */
  list(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => ({ ...w.approval })).sort((a, b) => a.askedAt - b.askedAt);
  }

  /** Every remembered choice, by site then tool. */
  permissions(): Permission[] {
    return [...this.remembered.values()].sort((a, b) => a.site.localeCompare(b.site) || a.tool.localeCompare(b.tool));
  }

  async revoke(tool: string, site: string): Promise<Permission[]> {
    await this.load();
    this.remembered.delete(key(tool, site));
    await this.deps.permissions.remove(tool, site);
    this.emit({ type: 'permissions', permissions: this.permissions() });
    return this.permissions();
  }

  onChange(listener: (change: ApprovalChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async remember(permission: Permission): Promise<void> {
    this.remembered.set(key(permission.tool, permission.site), permission);
    try {
      await this.deps.permissions.put(permission);
    } catch (error) {
      console.error('[sidequest] could not save a permission', error);
    }
    this.emit({ type: 'permissions', permissions: this.permissions() });
  }

  private ask(
    fields: Omit<PendingApproval, 'id' | 'askedAt' | 'expiresAt'>,
    signal?: AbortSignal,
  ): Promise<ApprovalAnswer | 'timeout' | 'withdrawn'> {
    if (signal?.aborted) return Promise.resolve('withdrawn');
    const now = Date.now();
    const approval: PendingApproval = { ...fields, id: crypto.randomUUID(), askedAt: now, expiresAt: now + this.timeoutMs };
    return new Promise((resolve) => {
      const close = (outcome: ApprovalAnswer | 'timeout' | 'withdrawn') => {
        if (!this.waiting.has(approval.id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(approval.id);
        const reason = outcome === 'once' || outcome === 'always' ? 'allowed' : outcome === 'deny' ? 'denied' : outcome;
        this.emit({ type: 'closed', id: approval.id, conversationId: approval.conversationId, reason });
        resolve(outcome);
      };
      const onAbort = () => close('withdrawn');
      const timer = setTimeout(() => close('timeout'), this.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(approval.id, { approval, settle: close, cancel: onAbort });
      this.emit({ type: 'asked', approval });
    });
  }

  /** The private reads that make sending to `sink` sensitive: any other site's, not yet let through to it. */
  private sensitive(state: ConversationState, sink: string): string[] {
    const through = state.sinks.get(sink);
    return [...state.sources].filter((source) => source !== sink && !through?.has(source));
  }

  /** The user let `sink` receive data from these reads (until something else private is read). */
  private letThrough(state: ConversationState, sink: string, sources: string[]): void {
    const through = state.sinks.get(sink) ?? new Set<string>();
    for (const source of sources) through.add(source);
    state.sinks.set(sink, through);
  }

  /** A source as the card shows it: its origin, or the name of the plugin whose data was read. */
  private sourceName(source: string): string {
    if (!source.startsWith('plugin:')) return source;
    const id = source.slice('plugin:'.length);
    return this.deps.pluginName?.(id) ?? id;
  }

  private state(conversationId: string): ConversationState {
    let state = this.conversations.get(conversationId);
    if (!state) {
      state = { trusted: false, sources: new Set(), sinks: new Map(), allowedSites: new Map() };
      this.conversations.set(conversationId, state);
    }
    return state;
  }

  private emit(change: ApprovalChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        console.error('[sidequest] approval listener failed', error);
      }
    }
  }
}

/** The result the model reads when the user (or the clock) said no. */
function declined(tool: string, site: string, why = 'The user declined this call.'): ToolResult {
  return {
    ok: false,
    code: 'denied',
    error: `${why} ${tool} was not run${site ? ` on ${site}` : ''}. Do not try it again the same way; go on without it or ask the user what they want.`,
  };
}

/** A declined address reached mid-call, as the tool gives it to the model. */
function declinedReach(tool: string, site: string, why?: string): ReachVerdict {
  const result = declined(tool, site, why) as { code: 'denied'; error: string };
  return { ok: false, code: result.code, error: result.error };
}

/** The result when the tab a card named shows another site (or is gone, or is no longer the active one) by the time of the answer. */
function tabChanged(tool: string, origin: string, nowOrigin: string | undefined): ToolResult {
  const now = nowOrigin ? ` (it shows ${nowOrigin} now)` : '';
  return {
    ok: false,
    code: 'denied',
    error: `Not run: the tab changed since the user was asked${now}. The user allowed ${tool} on ${origin} only. Check which tab the user means before trying again.`,
  };
}

/**
 * Where an open-world call can carry data: its address's origin; `*` for a call whose content
 * decides (a script in a page) or that names no place at all; else the site of the tab it runs in.
 */
function sinkOf(target: ToolTarget | undefined, url: string | undefined, tabOrigin: string | undefined): string {
  if (!target || target.sendsAnywhere) return ANYWHERE;
  if (url) return originOf(url) || url;
  return tabOrigin || ANYWHERE;
}

function withApproved(note: GateNote, approvedUrl: string | undefined): GateNote {
  return approvedUrl ? { ...note, approvedUrl } : note;
}

/** The tool's words as pinned: its description (capped), for the card's "before and after". */
function pinnedDescription(spec: ToolSpec): string {
  return truncate(spec.description, PINNED_DESCRIPTION_CHARS);
}

/** A digest of what an outside tool says it is: its name, description and input schema. */
async function definitionPin(spec: ToolSpec): Promise<string> {
  const text = JSON.stringify([spec.name, spec.description, spec.inputSchema]);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The tool's target for this input, when its `target` answers at once (the history at a run's
 * start; calls a loop did not resolve); one that throws or waits counts as none.
 */
function syncTarget(spec: ToolSpec, input: unknown, tabId?: number): ToolTarget | undefined {
  try {
    const target = spec.annotations.target?.(input ?? {}, { tabId });
    return target instanceof Promise ? (target.catch(() => undefined), undefined) : target;
  } catch {
    return undefined;
  }
}

function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value ?? {}, null, 2) ?? 'null';
  } catch {
    return String(value);
  }
}

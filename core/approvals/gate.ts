import type { GatedCall, ToolGate, ToolResult, ToolSpec, ToolTarget } from '@/core/registry/types';
import { isLocalNetworkUrl } from '@/core/net/local-network';
import { decide, originOf, originsInText, readsPrivateData, type AskReason, type RememberedDecision } from './policy';

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

export interface GateDeps {
  permissions: PermissionStore;
  /** The tab the user is looking at (the extension's own pages skipped). */
  activeTab(): Promise<{ id: number; url: string } | undefined>;
  /** A tab's address, or undefined when there is no such tab. */
  tabUrl(tabId: number): Promise<string | undefined>;
  /** Whether the user set this address up in settings (a provider's): then it is not asked about as local. */
  configured?(url: string): Promise<boolean>;
  timeoutMs?: number;
}

/** What the gate resolved about a call it let through; handed back to `record` with the result. */
export interface GateNote {
  site: string;
  url?: string;
}

export type GateVerdict = { ok: true; note: GateNote; approvedUrl?: string } | { ok: false; result: ToolResult };

/** What one conversation's runs (with their sub-agents) have done so far, for the outbound rule. */
interface ConversationState {
  trusted: boolean;
  /** Private data was read (see `readsPrivateData`). */
  tainted: boolean;
  /** Origins the task already involves: typed by the user, tabs read, addresses fetched or allowed. */
  origins: Set<string>;
  /** `tool\nsite` allowed once with site scope in this conversation. */
  allowedSites: Set<string>;
}

/** What the conversation's history says, to seed its state when a run starts. */
export interface RunSeed {
  trusted: boolean;
  userTexts: string[];
  /** Earlier tool calls that succeeded, with their spec when the tool still exists. */
  calls: Array<{ spec?: ToolSpec; input: unknown; fromPage: boolean; output?: unknown }>;
}

const key = (tool: string, site: string) => `${tool}\n${site}`;

/**
 * The approval gate between the model's tool calls and the plugins, for the main agent and every
 * sub-agent (the agent loop consults it before each call; `ToolRegistry.invoke` alone does not).
 * Decisions come from the tool's annotations (`policy.ts`); remembered choices are read once from
 * IndexedDB and kept in memory, so a call that needs no ask costs no storage read. Asks wait like the
 * agent's questions to the user: answered in the sidebar, declined after 5 minutes, withdrawn when the run
 * stops.
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

  /** A run of the conversation starts: its switch, and what its history already involved. */
  beginRun(conversationId: string, seed: RunSeed): void {
    const state = this.state(conversationId);
    state.trusted = seed.trusted;
    for (const text of seed.userTexts) for (const o of originsInText(text)) state.origins.add(o);
    for (const call of seed.calls) {
      if (!call.spec) {
        if (call.fromPage) state.tainted = true;
        continue;
      }
      const target = safeTarget(call.spec, call.input, undefined);
      const origin = originOf(target?.url);
      if (origin) state.origins.add(origin);
      // A tab read earlier: its address is in what the tool returned, when it says (tabs may have moved on since).
      const read = call.output as { url?: unknown } | undefined;
      if (call.spec.annotations.pages && typeof read?.url === 'string' && originOf(read.url)) state.origins.add(originOf(read.url));
      if (readsPrivateData(call.spec.annotations, call.fromPage || call.spec.source !== 'builtin')) state.tainted = true;
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
   * model reads instead (declined, withdrawn). May wait for the user.
   */
  async check(call: GatedCall, signal?: AbortSignal): Promise<GateVerdict> {
    if (!this.loaded) await this.load();
    else await this.loaded;
    const annotations = call.spec.annotations;
    const target = safeTarget(call.spec, call.input, call.tabId);
    let site = '';
    let onActiveTab = false;
    const url = target?.url;
    if (url) site = originOf(url) || url;
    else if (target && annotations.pages) {
      // A tab's tool without a tab works on the active one.
      const active = target.tabId === undefined || annotations.readOnly ? await this.deps.activeTab() : undefined;
      const tabUrl = target.tabId === undefined ? active?.url : await this.deps.tabUrl(target.tabId);
      onActiveTab = target.tabId === undefined || active?.id === target.tabId;
      site = originOf(tabUrl) || tabUrl || '';
    }
    const state = call.conversationId ? this.state(call.conversationId) : undefined;
    const remembered = this.remembered.get(key(call.name, site))?.decision;
    const origin = originOf(url);
    const outbound = Boolean(annotations.openWorld && origin && state?.tainted && !state.origins.has(origin) && remembered !== 'allow');
    // The user's own network: the tool itself refuses it unless the gate passes on the user's yes.
    // An address the user set up in settings is theirs already: a provider's (configured
    // origins), or a remote tool server's (its plugin marks the target `configured`).
    const local = Boolean(annotations.openWorld && url && !target?.configured && isLocalNetworkUrl(url) && !(await this.deps.configured?.(url)));
    const decision = decide({
      annotations,
      hasTarget: target !== undefined,
      onActiveTab,
      remembered,
      allowedInConversation: Boolean(state?.allowedSites.has(key(call.name, site))),
      trusted: Boolean(state?.trusted),
      outbound,
      local,
    });
    // With `local`, the policy allows only on the user's word (the switch, a remembered choice).
    if (decision.action === 'allow') return { ok: true, note: { site, url }, ...(local ? { approvedUrl: url } : {}) };
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
      },
      signal,
    );
    if (answer === 'withdrawn') return { ok: false, result: { ok: false, code: 'aborted', error: 'Not run: the user stopped the run while it waited for approval.' } };
    if (answer === 'timeout') return { ok: false, result: declined(call.name, site, 'Nobody answered the approval request within 5 minutes.') };
    if (answer === 'deny') return { ok: false, result: declined(call.name, site) };
    if (answer === 'always') await this.remember({ tool: call.name, site, decision: 'allow', at: Date.now() });
    else if (decision.scope === 'site' && state) state.allowedSites.add(key(call.name, site));
    if (origin && state) state.origins.add(origin);
    return { ok: true, note: { site, url }, ...(local ? { approvedUrl: url } : {}) };
  }

  /** After a call ran: what it read and where it went, for the outbound rule. */
  record(call: GatedCall, note: unknown, result: ToolResult): void {
    if (!result.ok || !call.conversationId) return;
    const pass = note as GateNote;
    const state = this.state(call.conversationId);
    const origin = originOf(pass.url) || (call.spec.annotations.pages ? originOf(pass.site) : '');
    if (origin) state.origins.add(origin);
    if (readsPrivateData(call.spec.annotations, call.spec.source !== 'builtin')) state.tainted = true;
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

  private state(conversationId: string): ConversationState {
    let state = this.conversations.get(conversationId);
    if (!state) {
      state = { trusted: false, tainted: false, origins: new Set(), allowedSites: new Set() };
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

/** The tool's target for this input; a target function that throws counts as none. */
function safeTarget(spec: ToolSpec, input: unknown, tabId: number | undefined): ToolTarget | undefined {
  try {
    return spec.annotations.target?.(input ?? {}, { tabId });
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

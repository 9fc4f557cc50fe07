import type { GatedCall, ReachHow, ReachVerdict, ToolAnnotations, ToolGate, ToolResult, ToolTarget } from '@/core/registry/types';
import { isLocalNetworkUrl } from '@/core/net/local-network';
import { originOf } from '@/core/net/origin';
import { decide, type AskReason } from './policy';
import {
  cardFor,
  declined,
  declinedReach,
  definitionPin,
  pinnedDescription,
  REMEMBERED_DENY,
  tabChanged,
  truncate,
  UNANSWERED,
  WaitingCards,
  WITHDRAWN,
} from './card';
import { ANYWHERE, DataFlow, isUserWords, letThrough, sensitiveFor, sinkOf, syncTarget, type ConversationState } from './data-flow';
import { RememberedChoices, toolSiteKey as key } from './remembered';
import { callFacts, factsChanged, sameFacts, type CallFacts } from './words';
import { ACTION_KINDS, type ActionKind, type ApprovalAnswer, type ApprovalChange, type GateNote, type PendingApproval, type Permission, type PermissionStore, type RunGrant, type RunSeed, type TabView } from './types';

// The types the pages and the protocol use live in ./types; imported from here as before.
export type { ActionKind, ApprovalAnswer, ApprovalChange, GateNote, PendingApproval, Permission, PermissionStore, RunGrant, RunSeed, TabView } from './types';

/** An ask unanswered for this long is declined. */
export const APPROVAL_TIMEOUT_MS = 5 * 60_000;

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
  /** How long a tool's `describe` may take before the card keeps its generic words (default 2 s). */
  describeTimeoutMs?: number;
}

export type GateVerdict = { ok: true; note: GateNote; approvedUrl?: string; tabId?: number; notice?: string } | { ok: false; result: ToolResult };

/**
 * A plugin's hold on tabs (`PluginContext.holdTabs`): while the user has a tab (Take over, a
 * hand-over), every call that touches it waits, whatever its tool.
 */
export interface TabHold {
  /** Whether any tab is held now (asked before every call: cheap). */
  active(): boolean;
  /** Resolves when the tab may be touched again; undefined when it is not held. */
  until(tabId: number): Promise<void> | undefined;
}

/** What the model reads after the result of a call that waited while the user had its tab. */
export const HELD_NOTICE =
  'Note from Sidequest: the user had this tab (they took it over) while this call waited; it ran after they pressed Resume. The page may have changed since it was last read: an element reference refused as stale needs a fresh read of the page.';

/** The result of a call whose run was stopped while it waited for the user to give the tab back. */
const STOPPED_WHILE_HELD: ToolResult = { ok: false, code: 'aborted', error: 'Not run: the run was stopped while the user had the tab.' };

/**
 * The approval gate between the model's tool calls and the plugins, for the main agent and every
 * sub-agent (each agent loop is handed it and consults it before each call; `ToolRegistry.invoke`
 * alone does not). Decisions come from the tool's annotations (`policy.ts`); remembered choices
 * (`remembered.ts`) are read once from IndexedDB and kept in memory, so a call that needs no ask
 * costs no storage read. Asks (`card.ts`) wait like the agent's questions to the user: answered in
 * the sidebar, declined after 5 minutes, withdrawn when the run stops. The outbound rule is a
 * data-flow rule (`data-flow.ts`): a call that can carry data to another site than the ones read
 * privately asks, until the user lets that site receive it.
 */
export class ApprovalGate implements ToolGate {
  private readonly remembered: RememberedChoices;
  private readonly flow = new DataFlow();
  private readonly cards: WaitingCards;
  private readonly listeners = new Set<(change: ApprovalChange) => void>();
  private readonly holds = new Set<TabHold>();

  constructor(private readonly deps: GateDeps) {
    this.remembered = new RememberedChoices(deps.permissions, (permissions) => this.emit({ type: 'permissions', permissions }));
    this.cards = new WaitingCards(deps.timeoutMs ?? APPROVAL_TIMEOUT_MS, (change) => this.emit(change));
  }

  /** Reads the remembered choices (once; later calls wait for the same read). */
  load(): Promise<void> {
    return this.remembered.load();
  }

  /** A run of the conversation starts: its switch, and what its history already read. */
  beginRun(conversationId: string, seed: RunSeed): void {
    this.flow.seed(conversationId, seed);
  }

  /** The conversation's run ended: its data-flow state may go once enough newer ones are kept. */
  endRun(conversationId: string): void {
    this.flow.ended(conversationId);
  }

  /** How many things it keeps now (`core/retained.ts`): conversations' data-flow states, waiting cards, listeners. */
  retainedSizes(): { conversations: number; cards: number; listeners: number } {
    return { conversations: this.flow.size, cards: this.cards.list().length, listeners: this.listeners.size };
  }

  /** Calls that touch a tab the hold holds wait until it lets go (`TabHold`); returns the remover. */
  addHold(hold: TabHold): () => void {
    this.holds.add(hold);
    return () => this.holds.delete(hold);
  }

  /**
   * A scheduled run was handed over to the model (a step could not be replayed): from now on the
   * grants given ahead hold for nothing, so whatever the model chooses asks (with a notification).
   * The conversation stays unattended. The caller also keeps this in the conversation's record.
   */
  withdrawGrantsAhead(conversationId: string): void {
    const state = this.flow.state(conversationId);
    if (state.grantedAhead) state.grantedAhead = new Map();
  }

  /**
   * Gives the conversation's run going now a grant (`RunGrant`: a plan the user approved), in
   * place of any earlier one; it ends with the run. Throws, granting nothing, when the conversation
   * has no run going or is unattended (a grant needs the person who approved it), or when an origin
   * is not an http(s) origin or a kind is unknown.
   */
  grantForRun(conversationId: string, grant: RunGrant): void {
    if (!this.flow.isRunning(conversationId)) throw new Error('No run is going in this conversation: a grant lasts for a run only.');
    const state = this.flow.state(conversationId);
    if (state.grantedAhead) throw new Error('An unattended run takes no grant: only what was granted ahead passes.');
    const origins = (list: string[]) =>
      new Set(
        list.map((origin) => {
          if (originOf(origin) !== origin) throw new Error(`Not an http(s) origin: ${truncate(String(origin), 200)}`);
          return origin;
        }),
      );
    for (const kind of grant.kinds) if (!ACTION_KINDS.includes(kind)) throw new Error(`Not a kind of action: ${truncate(String(kind), 50)}`);
    state.grant = { origins: origins(grant.origins), kinds: new Set(grant.kinds), sinks: origins(grant.sinks) };
  }

  /** Ends the conversation's run grant now (the user stopped the plan); calls ask as before it. */
  withdrawGrant(conversationId: string): void {
    this.flow.dropGrant(conversationId);
  }

  /** The conversation's "act without asking" switch. */
  setTrusted(conversationId: string, trusted: boolean): void {
    this.flow.state(conversationId).trusted = trusted;
  }

  /** Forgets a deleted conversation and withdraws its asks. */
  forget(conversationId: string): void {
    this.cards.withdraw(conversationId);
    this.flow.forget(conversationId);
  }

  /**
   * Delete all data: withdraws every ask, forgets every conversation and every remembered choice
   * (the caller empties their store); the next decision reads them again.
   */
  reset(): void {
    this.cards.withdraw();
    this.flow.clear();
    this.remembered.clear();
    this.emit({ type: 'permissions', permissions: [] });
  }

  /**
   * Decides a call: lets it through (with what was resolved about it), or returns the result the
   * model reads instead (declined, withdrawn, the tab changed). May wait for the user.
   */
  async check(call: GatedCall, signal?: AbortSignal): Promise<GateVerdict> {
    await this.load();
    const annotations = call.spec.annotations;
    const target = 'target' in call ? call.target : syncTarget(call.spec, call.input, call.tabId);
    // While the user has the tab, nothing touches it: wait first, then judge the tab as it is.
    const held = await this.waitWhileHeld(annotations, target, signal);
    if (held === 'stopped') return { ok: false, result: { ...STOPPED_WHILE_HELD } };
    const verdict = await this.decideCall(call, annotations, target, signal);
    return held && verdict.ok ? { ...verdict, notice: HELD_NOTICE } : verdict;
  }

  /**
   * Waits while a hold holds the tab the call touches (its `tabId`, else the user's tab for a tab's
   * tool that names none). True when it waited; 'stopped' when the run stopped meanwhile.
   */
  private async waitWhileHeld(annotations: ToolAnnotations, target: ToolTarget | undefined, signal?: AbortSignal): Promise<boolean | 'stopped'> {
    if (!target || ![...this.holds].some((hold) => hold.active())) return false;
    const tabId = target.tabId ?? (annotations.pages && !target.url ? (await this.deps.activeTab())?.id : undefined);
    if (tabId === undefined) return false;
    let waited = false;
    for (;;) {
      const until = [...this.holds].map((hold) => hold.until(tabId)).find((promise) => promise !== undefined);
      if (!until) return waited;
      waited = true;
      if (signal?.aborted) return 'stopped';
      const stopped = await new Promise<boolean>((resolve) => {
        const onAbort = () => resolve(true);
        signal?.addEventListener('abort', onAbort, { once: true });
        void until.then(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve(false);
        });
      });
      if (stopped) return 'stopped';
    }
  }

  private async decideCall(call: GatedCall, annotations: ToolAnnotations, target: ToolTarget | undefined, signal?: AbortSignal): Promise<GateVerdict> {
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
    const state = call.conversationId ? this.flow.state(call.conversationId) : undefined;
    const pin = call.spec.source === 'builtin' ? undefined : await definitionPin(call.spec);
    // A remembered Always allow of an outside tool holds only for the words the user saw then.
    let changed: PendingApproval['changed'];
    // An unattended run: a remembered Deny still denies; only what was granted ahead allows (an
    // outside tool's grant only for the definition granted).
    const ahead = state?.grantedAhead;
    const saved = this.remembered.get(call.name, site);
    let remembered = ahead ? (saved?.decision === 'deny' ? 'deny' : grantHolds(ahead, key(call.name, site), pin) ? 'allow' : undefined) : saved?.decision;
    if (!ahead && remembered === 'allow' && pin && saved && saved.pin !== pin) {
      if (saved.pin) {
        changed = { before: saved.description ?? '', after: pinnedDescription(call.spec) };
        remembered = undefined;
      } else {
        // Remembered before tools were pinned: pinned as the tool is now.
        await this.remembered.remember({ ...saved, pin, description: pinnedDescription(call.spec) });
      }
    }
    const allowedHere = state?.allowedSites.get(key(call.name, site));
    if (allowedHere && pin && allowedHere.pin !== pin) changed ??= { before: allowedHere.description ?? '', after: pinnedDescription(call.spec) };
    const allowedInConversation = Boolean(allowedHere && (!pin || allowedHere.pin === pin));
    // The call in words, for the tab resolved above (none when it names a tab that is gone: it fails anyway).
    const wordsTab = tab?.id ?? target?.tabId ?? call.tabId;
    const facts: CallFacts = target?.tabId !== undefined && annotations.pages && !tab ? { kind: 'none' } : await callFacts(call, wordsTab, this.deps.describeTimeoutMs);
    // The data-flow rule: where this call can carry data (its address; text it types into a page;
    // a link or form it follows), and which private reads make that sensitive.
    const outbound = state ? sinksOf(annotations, target, url, tabOrigin, facts, state).map((to) => ({ to, reads: sensitiveFor(state, to) })).filter((s) => s.reads.length) : [];
    const sink = outbound[0]?.to ?? '';
    const sensitive = [...new Set(outbound.flatMap((s) => s.reads))];
    // The user's own network: the tool itself refuses it unless the gate passes on the user's yes.
    // An address the user set up in settings is theirs already: a provider's (configured
    // origins), or a remote tool server's (its plugin marks the target `configured`).
    const onLocalNetwork = Boolean(annotations.openWorld && url && isLocalNetworkUrl(url));
    const local = onLocalNetwork && !target?.configured && !(await this.deps.configured?.(url!));
    // Sensitive (or unreadable): asked every time, never remembered (policy.ts).
    const sensitiveCall = facts.kind === 'unknown' || (facts.kind === 'words' && facts.sensitive);
    // The run's grant (a plan the user approved): a built-in tool's call on a listed site, of a listed kind.
    const grant = state?.grant;
    const kind = grant && call.spec.source === 'builtin' && site ? actionKind(annotations, target, facts) : undefined;
    const planned = Boolean(kind && grant!.origins.has(site) && grant!.kinds.has(kind));
    const decision = decide({
      annotations,
      hasTarget: target !== undefined,
      onActiveTab,
      remembered,
      allowedInConversation,
      trusted: Boolean(state?.trusted) && !ahead,
      unattended: Boolean(ahead),
      outbound: sensitive.length > 0,
      local,
      sensitive: sensitiveCall,
      planned,
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
    if (decision.action === 'deny') return { ok: false, result: declined(call.name, site, REMEMBERED_DENY) };
    // Words kept as the user's own: the card names what the conversation read before, and offers no Always allow.
    const instructs = decision.reason === 'instructs';
    const answer = await this.cards.ask(
      cardFor(call, {
        site,
        url,
        ...(facts.kind === 'words' && facts.hidden ? { hidden: facts.hidden } : {}),
        reason: decision.reason,
        scope: decision.scope,
        ...(tab ? { tab: { id: tab.id, title: tab.title, origin: tabOrigin! } } : {}),
        ...(decision.reason === 'outbound' ? { sink, sources: sensitive.map((s) => this.sourceName(s)) } : {}),
        ...(instructs && state?.seen.size ? { sources: [...state.seen].map((s) => this.sourceName(s)) } : {}),
        ...(changed ? { changed } : {}),
        ...(facts.kind === 'words' ? { action: facts.words } : {}),
        ...(sensitiveCall || instructs ? { sensitive: true } : {}),
        ...(facts.kind === 'unknown' ? { unchecked: true } : {}),
      }),
      signal,
    );
    if (answer === 'withdrawn') return { ok: false, result: { ...WITHDRAWN } };
    if (answer === 'timeout') return { ok: false, result: declined(call.name, site, UNANSWERED) };
    if (answer === 'deny') return { ok: false, result: declined(call.name, site) };
    // A sensitive call, or one that keeps words as the user's, is never remembered: an 'always'
    // (the card offers none) counts as once.
    const remember = answer === 'always' && !sensitiveCall && !instructs;
    // The answer holds for the tab the card named, while it shows the same site.
    if (tab) {
      const now = target?.tabId === undefined ? await this.deps.activeTab() : await this.deps.tab(tab.id);
      const nowOrigin = now ? originOf(now.url) || now.url : '';
      if (!now || now.id !== tab.id || nowOrigin !== tabOrigin) return { ok: false, result: tabChanged(call.name, tabOrigin!, now?.id === tab.id ? nowOrigin : undefined) };
    }
    // The words hold for what the card named: read again, and refuse if the page changed them meanwhile.
    if (facts.kind === 'words') {
      const again = await callFacts(call, wordsTab, this.deps.describeTimeoutMs);
      if (!sameFacts(facts, again)) return { ok: false, result: factsChanged(call.name, facts, again) };
    }
    const pinned = pin ? { pin, description: pinnedDescription(call.spec) } : {};
    if (remember) await this.remembered.remember({ tool: call.name, site, decision: 'allow', at: Date.now(), ...pinned });
    else if (decision.scope === 'site' && state) state.allowedSites.set(key(call.name, site), pinned);
    if (decision.reason === 'outbound' && state) for (const { to, reads } of outbound) letThrough(state, to, reads);
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
    const state = call.conversationId ? this.flow.state(call.conversationId) : undefined;
    const local = Boolean(how.localAddress) || isLocalNetworkUrl(url);
    const readLocal = (): ReachVerdict => {
      if (local && !pass.localReads.includes(origin)) pass.localReads.push(origin);
      return { ok: true };
    };
    if (state?.trusted && !state.grantedAhead) return readLocal();
    const saved = this.remembered.get(call.name, origin)?.decision;
    const remembered = state?.grantedAhead && saved === 'allow' ? (state.grantedAhead.has(key(call.name, origin)) ? 'allow' : undefined) : saved;
    if (remembered === 'deny') return declinedReach(call.name, origin, REMEMBERED_DENY);
    const sensitive = state ? sensitiveFor(state, origin) : [];
    const localExempt =
      !local ||
      remembered === 'allow' ||
      originOf(pass.approvedUrl) === origin ||
      (Boolean(call.target?.configured) && originOf(call.target?.url) === origin) ||
      Boolean(await this.deps.configured?.(url));
    // An unattended run judges each hop like a direct read: granted ahead for this tool on that
    // site, or allowed on the spot in the conversation, else it asks (with a notification).
    const unattended = Boolean(state?.grantedAhead) && !state!.grantedAhead!.has(key(call.name, origin)) && !state!.allowedSites.has(key(call.name, origin));
    const reason: AskReason | undefined = sensitive.length ? 'outbound' : !localExempt ? 'local' : unattended ? 'unattended' : undefined;
    if (!reason) return readLocal();
    const answer = await this.cards.ask(
      cardFor(call, {
        site: origin,
        url,
        reason,
        scope: reason === 'unattended' ? 'site' : 'call',
        ...(reason === 'outbound' ? { sink: origin, sources: sensitive.map((s) => this.sourceName(s)) } : {}),
        ...(how.redirectFrom ? { redirectFrom: how.redirectFrom } : {}),
        ...(how.localAddress ? { localAddress: how.localAddress } : {}),
      }),
      signal,
    );
    if (answer === 'withdrawn') return { ok: false, code: WITHDRAWN.code, error: WITHDRAWN.error };
    if (answer === 'timeout') return declinedReach(call.name, origin, UNANSWERED);
    if (answer === 'deny') return declinedReach(call.name, origin);
    if (answer === 'always') await this.remembered.remember({ tool: call.name, site: origin, decision: 'allow', at: Date.now() });
    if (reason === 'outbound' && state) letThrough(state, origin, sensitive);
    if (reason === 'unattended' && state) state.allowedSites.set(key(call.name, origin), {});
    return readLocal();
  }

  /**
   * After a call ran, failed calls too (an error can carry what was read; only a call the user
   * declined never ran): what it read privately, for the outbound rule.
   */
  record(call: GatedCall, note: unknown, result: ToolResult): void {
    this.flow.record(call, note as GateNote, result);
  }

  /** The user's answer from the sidebar. */
  answer(id: string, answer: ApprovalAnswer): void {
    this.cards.answer(id, answer);
  }

  /** The asks waiting now, oldest first. */
  list(): PendingApproval[] {
    return this.cards.list();
  }

  /** Every remembered choice, by site then tool. */
  permissions(): Permission[] {
    return this.remembered.list();
  }

  revoke(tool: string, site: string): Promise<Permission[]> {
    return this.remembered.revoke(tool, site);
  }

  onChange(listener: (change: ApprovalChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A source as the card shows it: its origin, or the name of the plugin whose data was read. */
  private sourceName(source: string): string {
    if (!source.startsWith('plugin:')) return source;
    const id = source.slice('plugin:'.length);
    return this.deps.pluginName?.(id) ?? id;
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

/**
 * Every site a call can carry data to: an open-world call's address (or anywhere, for code that
 * decides); text it types or chooses into a page goes to that page's site (unless it is the user's
 * own words, `isUserWords`); a link or form it follows goes to its destination (`CallWords.carries`).
 */
function sinksOf(annotations: ToolAnnotations, target: ToolTarget | undefined, url: string | undefined, tabOrigin: string | undefined, facts: CallFacts, state: ConversationState): string[] {
  const sinks = new Set<string>();
  if (annotations.openWorld) sinks.add(sinkOf(target, url, tabOrigin));
  if (facts.kind === 'words' && facts.carries) {
    const { text, to } = facts.carries;
    if (text !== undefined && !isUserWords(state, text)) sinks.add(tabOrigin || ANYWHERE);
    for (const address of to ?? []) {
      const origin = originOf(address);
      if (origin) sinks.add(origin);
    }
  }
  return [...sinks];
}

/**
 * The kind of action a call is (`ActionKind`), from what the gate knows of it: read-only; loading
 * its address; carrying text into a page; any other action on a page. None for anything else.
 */
export function actionKind(annotations: ToolAnnotations, target: ToolTarget | undefined, facts: CallFacts): ActionKind | undefined {
  if (annotations.readOnly) return 'read';
  if (facts.kind === 'words' && facts.carries?.text !== undefined) return 'type';
  if (annotations.openWorld && target?.url) return 'open';
  if (annotations.pages && target) return 'interact';
  return undefined;
}

function withApproved(note: GateNote, approvedUrl: string | undefined): GateNote {
  return approvedUrl ? { ...note, approvedUrl } : note;
}

/** A grant ahead holds for this tool on this site, and for an outside tool only as it was when granted. */
function grantHolds(ahead: Map<string, string | undefined>, toolSite: string, pin: string | undefined): boolean {
  return ahead.has(toolSite) && (pin === undefined || ahead.get(toolSite) === pin);
}

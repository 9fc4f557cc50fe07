import type { ToolAnnotations } from '@/core/registry/types';

/** What the user said about one tool on one site, remembered in IndexedDB. */
export type RememberedDecision = 'allow' | 'deny';

/**
 * Why the gate asks, shown on the card:
 * - `read`: a read-only tool reads a tab other than the one the user looks at;
 * - `claimed`: a page's tool its site says is read-only (a claim, not a fact);
 * - `acting`: a tool that changes something on a tab or site;
 * - `destructive`: a tool that may delete or overwrite what cannot be got back;
 * - `outbound`: after private data was read, a call that can carry data to another site than the
 *   one(s) it was read from;
 * - `local`: a call that reaches the user's own network (loopback, private, link-local, single-label hosts);
 * - `sensitive`: this call may pay, delete, send, or type a password (its tool's `describe` says so,
 *   or could not tell): asked every time, never remembered;
 * - `unattended`: in a scheduled run, a call the usual rules let through (a read, a change to the
 *   agent's own lists) that was not granted ahead;
 * - `instructs`: what the call keeps becomes the user's words in later system prompts (a memory,
 *   `ToolAnnotations.instructs`): asked every time, never remembered.
 */
export type AskReason = 'read' | 'claimed' | 'acting' | 'destructive' | 'outbound' | 'local' | 'sensitive' | 'unattended' | 'instructs';

/**
 * What the gate does with a call. `scope` of an ask: `call` (Allow once allows this call only) or
 * `site` (Allow once allows the tool on that site for the rest of the conversation).
 */
export type Decision =
  | { action: 'allow' }
  | { action: 'deny' }
  | { action: 'ask'; reason: AskReason; scope: 'call' | 'site' };

/** Everything the policy needs to know about one call, resolved by the gate. */
export interface CallSituation {
  annotations: ToolAnnotations;
  /** The call names a tab or an address (its tool's `target` gave one). */
  hasTarget: boolean;
  /** The call works on the tab the user is looking at. */
  onActiveTab: boolean;
  /** What the user remembered for this tool on this site, if anything. */
  remembered?: RememberedDecision;
  /** Allowed once earlier in this conversation for this tool and site (site-scoped asks). */
  allowedInConversation: boolean;
  /** The conversation's "act without asking" switch is on. */
  trusted: boolean;
  /** The call can carry data to a site other than those private data was read from (see the gate). */
  outbound: boolean;
  /** An open-world call to an address on the user's own network. */
  local?: boolean;
  /**
   * This call may pay, delete, send, or type a password (its tool's `describe` said so, or could not
   * say what it acts on): asked every time, whatever was remembered or switched on.
   */
  sensitive?: boolean;
  /**
   * An unattended run (a scheduled one): `remembered: 'allow'` then means granted ahead for this
   * tool on this site, and nothing else passes without a card but what was allowed on the spot in
   * this conversation; the switch does not count.
   */
  unattended?: boolean;
  /**
   * The call stays inside a grant for this run (`RunGrant`: a plan the user approved): its site and
   * its kind of action are listed. Counts after every rule that asks whatever was allowed (sensitive,
   * outbound, the user's own network) and never for a destructive call or in an unattended run.
   */
  planned?: boolean;
}

/**
 * The approval policy: a pure function of the tool's annotations and the call's situation, never
 * of a tool's name. The defaults (ARCHITECTURE.md → "Approvals"):
 * - a call whose words become instructions (`instructs`: a memory) is asked every time, scope
 *   `call`, whatever was remembered or switched on (a remembered Deny still denies);
 * - a sensitive call (it may pay, delete, send, or type a password) is asked every time, with scope
 *   `call`: neither a remembered Always allow nor the "act without asking" switch skips it (a
 *   remembered Deny still denies; an outbound or local ask says that reason instead);
 * - the conversation's "act without asking" switch allows everything else; a remembered Deny denies;
 * - the outbound rule asks, even for tools otherwise allowed or remembered;
 * - a call to the user's own network asks every time, unless this tool is remembered for that site;
 * - a remembered Always allow allows;
 * - a call inside the run's grant (`planned`: a plan the user approved) is allowed, unless it is
 *   destructive;
 * - read-only tools: allowed, except reading a tab other than the user's, which asks once per site;
 * - a page's read-only claim lowers its tool to "once per site" (never to "never ask");
 * - destructive tools, and acting tools with a target (a tab, an address), ask every time;
 * - acting tools without a target that destroy nothing (the agent's own task list, starting a
 *   sub-agent whose own calls pass the gate) are allowed;
 * - an unattended run (a scheduled one) lets through only what was granted ahead (`remembered`
 *   'allow') or allowed on the spot in the conversation: what the rules above allow besides asks,
 *   once per site; a run grant counts for nothing there.
 */
export function decide(s: CallSituation): Decision {
  if (!s.unattended) return attended(s);
  const decision = attended({ ...s, trusted: false, planned: false });
  if (decision.action !== 'allow' || s.remembered === 'allow' || s.allowedInConversation) return decision;
  return { action: 'ask', reason: 'unattended', scope: 'site' };
}

function attended(s: CallSituation): Decision {
  const a = s.annotations;
  // The model's words would become the user's own in later prompts: only the user's yes, each time.
  if (a.instructs) return s.remembered === 'deny' ? { action: 'deny' } : { action: 'ask', reason: 'instructs', scope: 'call' };
  if (s.sensitive) {
    if (s.remembered === 'deny') return { action: 'deny' };
    return { action: 'ask', reason: s.outbound ? 'outbound' : s.local ? 'local' : 'sensitive', scope: 'call' };
  }
  if (s.trusted) return { action: 'allow' };
  if (s.remembered === 'deny') return { action: 'deny' };
  if (s.outbound) return { action: 'ask', reason: 'outbound', scope: 'call' };
  if (s.remembered === 'allow') return { action: 'allow' };
  if (s.local) return { action: 'ask', reason: 'local', scope: 'call' };
  if (s.planned && !a.destructive) return { action: 'allow' };
  if (a.readOnly) {
    if (!a.pages || !s.hasTarget || s.onActiveTab) return { action: 'allow' };
    return s.allowedInConversation ? { action: 'allow' } : { action: 'ask', reason: 'read', scope: 'site' };
  }
  if (a.claims?.readOnlyHint && !a.claims.destructiveHint) {
    return s.allowedInConversation ? { action: 'allow' } : { action: 'ask', reason: 'claimed', scope: 'site' };
  }
  if (a.destructive) return { action: 'ask', reason: 'destructive', scope: 'call' };
  if (s.hasTarget) return { action: 'ask', reason: 'acting', scope: 'call' };
  return { action: 'allow' };
}

/**
 * Whether a tool's results count as private data for the outbound rule: what it read from the
 * user's tabs and pages (a tab's text, a page tool's answer, a script's output in a page), what
 * an outside tool source returned (a remote server the user configured may hold their or their
 * company's data: `fromOutside` is true for every source but the built-in plugins), and what it
 * read from the browser's own state (files, lists) — anything read-only that does not come from
 * the open web, unless the tool says its results are only what the agent wrote (`privateData`).
 */
export function readsPrivateData(annotations: ToolAnnotations, fromOutside: boolean): boolean {
  if (fromOutside) return true;
  if (annotations.privateData !== undefined) return annotations.privateData;
  return Boolean(annotations.pages) || (annotations.readOnly && !annotations.openWorld);
}

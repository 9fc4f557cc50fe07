import type { Said } from '@/core/i18n/catalog';
import type { ToolSpec } from '@/core/registry/types';
import type { AskReason, RememberedDecision } from './policy';

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
   * after reading mail.example"). An `instructs` ask (a memory): what the conversation read from
   * outside before it, where the words to keep may come from ("after reading evil.example").
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
  /**
   * The call in words ("Click 'Place order' on shop.example"), from its tool's `describe`, read from
   * the page for the tab the card shows. Names from the page are parameters (shown as text, cut).
   */
  action?: Said;
  /**
   * It may pay, delete, send, or type a password (or what it acts on could not be read), or it keeps
   * words as the user's (`instructs`): asked every time; the card offers no Always allow, and the
   * gate takes an 'always' as once.
   */
  sensitive?: boolean;
  /** The tool's `describe` failed or took too long: the card has only the generic words. */
  unchecked?: boolean;
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

/** What the conversation's history says, to seed its state when a run starts. */
export interface RunSeed {
  trusted: boolean;
  /**
   * An unattended run (a scheduled one): only these tools on these sites pass without a card
   * ('' for a tool without a site); remembered allows and the switch do not count. `pin`: an
   * outside tool's definition when granted (`definitionPin`): a changed tool is asked about.
   */
  grantedAhead?: Array<{ tool: string; site: string; pin?: string }>;
  /**
   * What the user wrote in the conversation (their messages' text, a skill's `/name` arguments
   * included): text a call types into a page that is the user's own words carries nothing it read.
   */
  userWords?: string[];
  /** Earlier tool calls that ran (failed ones too: an error can carry what was read), with their spec when the tool still exists. */
  calls: Array<{ spec?: ToolSpec; input: unknown; fromPage: boolean; origin?: string; output?: unknown }>;
}

/**
 * What kind of action a call is, as the gate tells it from the call itself (never from the tool's
 * name): `read` (changes nothing), `open` (loads an address), `type` (puts text into a page),
 * `interact` (any other action on a page: a click, a choice, a key, a scroll). A call that is none
 * of these (the agent's own lists, files) has no kind, and no run grant covers it.
 */
export type ActionKind = 'read' | 'open' | 'interact' | 'type';

export const ACTION_KINDS: readonly ActionKind[] = ['read', 'open', 'interact', 'type'];

/**
 * What a plugin may let through without a card for one run of one conversation
 * (`PluginContext.approvals.grantForRun`: a plan the user approved). The gate reads it as one more
 * fact about a call, after the rules that always ask: a built-in tool's call on one of `origins`,
 * of one of `kinds`, that is not destructive and not sensitive, passes. `sinks`: the sites the
 * user was told data goes to; the outbound rule lets data go there, and nowhere else unasked. It
 * ends with the run (done, stopped, failed; a restart), and counts for nothing in an unattended one.
 */
export interface RunGrant {
  /** http(s) origins (`https://shop.example`). */
  origins: string[];
  kinds: ActionKind[];
  /** http(s) origins that may receive what the run read. */
  sinks: string[];
}

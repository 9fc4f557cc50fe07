import type { GatedCall, ReachVerdict, ToolResult, ToolSpec } from '@/core/registry/types';
import type { ApprovalAnswer, ApprovalChange, PendingApproval } from './types';

/** How much of a tool's old description a pin keeps, to show beside the new one. */
const PINNED_DESCRIPTION_CHARS = 4000;

/** A card's fields before it is asked (the id and times are added then). */
export type CardFields = Omit<PendingApproval, 'id' | 'askedAt' | 'expiresAt'>;

/** What a card settles to: the user's answer, the clock's, or the run's stop. */
export type AskOutcome = ApprovalAnswer | 'timeout' | 'withdrawn';

/** What a password looks like on a card: always the same dots, so not even its length shows. */
export const HIDDEN_VALUE = '••••••••';

/**
 * What a card says of the call itself: who asks (the conversation, the sub-agent), the tool, its
 * arguments as text, with the `hidden` fields' values as dots (a password's text).
 */
function callPart(call: GatedCall, hidden: readonly string[] = []) {
  const input = call.input;
  const shown =
    hidden.length && input && typeof input === 'object' && !Array.isArray(input)
      ? Object.fromEntries(Object.entries(input).map(([key, value]) => [key, hidden.includes(key) ? HIDDEN_VALUE : value]))
      : input;
  return {
    conversationId: call.conversationId,
    toolCallId: call.toolCallId,
    agent: call.agent,
    tool: call.name,
    arguments: prettyJson(shown),
  };
}

/** The card for one call: the call itself, and why and where it is asked about; `hidden`: fields shown as dots. */
export function cardFor(call: GatedCall, fields: Omit<CardFields, keyof ReturnType<typeof callPart>> & { hidden?: readonly string[] }): CardFields {
  const { hidden, ...rest } = fields;
  return { ...callPart(call, hidden), ...rest };
}

/**
 * The cards waiting for the user: each settles once, with the user's answer, after `timeoutMs`
 * (declined), or when its run's signal aborts (withdrawn). Every change is told to `emit`.
 */
export class WaitingCards {
  private readonly waiting = new Map<string, { approval: PendingApproval; settle(outcome: AskOutcome): void; cancel(): void }>();

  constructor(
    private readonly timeoutMs: number,
    private readonly emit: (change: ApprovalChange) => void,
  ) {}

  /** Shows the card and waits for how it settles. */
  ask(fields: CardFields, signal?: AbortSignal): Promise<AskOutcome> {
    if (signal?.aborted) return Promise.resolve('withdrawn');
    const now = Date.now();
    const approval: PendingApproval = { ...fields, id: crypto.randomUUID(), askedAt: now, expiresAt: now + this.timeoutMs };
    return new Promise((resolve) => {
      const close = (outcome: AskOutcome) => {
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

  /** The user's answer from the sidebar. */
  answer(id: string, answer: ApprovalAnswer): void {
    const entry = this.waiting.get(id);
    if (!entry) throw new Error('This request is no longer waiting (it was answered, timed out or withdrawn).');
    entry.settle(answer);
  }

  /** The cards waiting now, oldest first. */
  list(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => ({ ...w.approval })).sort((a, b) => a.askedAt - b.askedAt);
  }

  /** Withdraws the conversation's cards (every card without one). */
  withdraw(conversationId?: string): void {
    for (const w of [...this.waiting.values()]) if (conversationId === undefined || w.approval.conversationId === conversationId) w.cancel();
  }
}

/** The result the model reads when a card was withdrawn (the run stopped while it waited). */
export const WITHDRAWN: Extract<ToolResult, { ok: false }> = { ok: false, code: 'aborted', error: 'Not run: the user stopped the run while it waited for approval.' };

/** Why the clock said no, in the model's words. */
export const UNANSWERED = 'Nobody answered the approval request within 5 minutes.';

/** Why a remembered Deny said no, in the model's words. */
export const REMEMBERED_DENY = 'You chose to deny this tool on this site.';

/** The result the model reads when the user (or the clock) said no. */
export function declined(tool: string, site: string, why = 'The user declined this call.'): ToolResult {
  return {
    ok: false,
    code: 'denied',
    error: `${why} ${tool} was not run${site ? ` on ${site}` : ''}. Do not try it again the same way; go on without it or ask the user what they want.`,
  };
}

/** A declined address reached mid-call, as the tool gives it to the model. */
export function declinedReach(tool: string, site: string, why?: string): ReachVerdict {
  const result = declined(tool, site, why) as { code: 'denied'; error: string };
  return { ok: false, code: result.code, error: result.error };
}

/** The result when the tab a card named shows another site (or is gone, or is no longer the active one) by the time of the answer. */
export function tabChanged(tool: string, origin: string, nowOrigin: string | undefined): ToolResult {
  const now = nowOrigin ? ` (it shows ${nowOrigin} now)` : '';
  return {
    ok: false,
    code: 'denied',
    error: `Not run: the tab changed since the user was asked${now}. The user allowed ${tool} on ${origin} only. Check which tab the user means before trying again.`,
  };
}

/** The tool's words as pinned: its description (capped), for the card's "before and after". */
export function pinnedDescription(spec: ToolSpec): string {
  return truncate(spec.description, PINNED_DESCRIPTION_CHARS);
}

/** A digest of what an outside tool says it is: its name, description and input schema. */
export async function definitionPin(spec: ToolSpec): Promise<string> {
  const text = JSON.stringify([spec.name, spec.description, spec.inputSchema]);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value ?? {}, null, 2) ?? 'null';
  } catch {
    return String(value);
  }
}

import { originOf } from '@/core/net/origin';
import type { ActionKind, RunGrant } from '@/core/approvals/types';
import type { STEP_ACTIONS } from './schemas';

export type StepAction = (typeof STEP_ACTIONS)[number];

/** One step of a plan: a short sentence, and where and how it acts when the model said so. */
export interface PlanStep {
  text: string;
  /** An origin, one of the plan's `sites`. */
  site?: string;
  action?: StepAction;
}

/** A plan as the card shows it and the model reads it back: every address made an origin. */
export interface Plan {
  goal: string;
  steps: PlanStep[];
  /** Origins, each once. */
  sites: string[];
  changes?: string;
  /** What goes to another site than where it was read: `to` an origin. */
  leaves: Array<{ to: string; what: string }>;
}

/** A plan waiting for the user's answer in the sidebar. */
export interface PendingPlan {
  id: string;
  conversationId?: string;
  toolCallId?: string;
  plan: Plan;
  askedAt: number;
  expiresAt: number;
}

/** The user's answer: approve (after removing steps, by index, and sites) or decline; a note either way. */
export interface PlanAnswer {
  decision: 'approve' | 'decline';
  removeSteps?: number[];
  removeSites?: string[];
  note?: string;
}

/** The plan a run carries out now, for the sidebar's strip ("Plan: 3 of 7"). */
export interface ActivePlan {
  conversationId: string;
  goal: string;
  steps: PlanStep[];
  /** Numbers (1-based) of the steps marked done. */
  done: number[];
}

/** What `propose_plan` returns to the model. */
export type PlanOutcome =
  | { approved: true; plan: { goal: string; steps: Array<PlanStep & { step: number }>; sites: string[]; changes?: string; leaves: Plan['leaves'] }; note?: string; how: string }
  | { approved: false; reason: 'declined' | 'timeout'; note?: string };

export type PlanChange =
  | { type: 'asked'; plan: PendingPlan }
  | { type: 'closed'; id: string; conversationId?: string }
  | { type: 'progress'; conversationId: string; active: ActivePlan | null };

/** No answer within this time: the plan is declined (reason `timeout`). */
export const PLAN_TIMEOUT_MS = 5 * 60_000;
export const MAX_NOTE_CHARS = 1000;

/** What the model reads with an approved plan. */
export const APPROVED_HOW =
  'The user approved this plan for this run. Carry it out step by step; after each step, call mark_step_done with its number. Calls on the listed sites, of the kinds of action its steps name (reading always), run without asking; anything else (another site, data going to a site not listed under leaves, payments, deletions, sending, passwords) is asked about as usual. Follow the user\'s note if there is one.';

/** The model's input made a plan: addresses to origins, each site once, every step's site listed. Throws the model's error. */
export function planFrom(input: { goal: string; steps: PlanStep[]; sites: string[]; changes?: string; leaves?: Array<{ to: string; what: string }> }): Plan {
  const origin = (address: string, what: string) => {
    if (address.length > 2000) throw new Error(`${what} is over 2,000 characters: give its origin, such as https://shop.example.`);
    const found = originOf(address.trim()) || originOf(`https://${address.trim()}`);
    if (!found) throw new Error(`${what} "${address.slice(0, 200)}" is not a web site: give an http(s) origin such as https://shop.example.`);
    return found;
  };
  const sites = [...new Set(input.sites.map((s) => origin(s, 'The site')))];
  const steps = input.steps.map((step, i) => {
    const text = step.text.trim();
    if (!text) throw new Error(`Step ${i + 1} is empty: say what it does in one short sentence.`);
    const site = step.site?.trim() ? origin(step.site, `Step ${i + 1}'s site`) : undefined;
    if (site && !sites.includes(site)) throw new Error(`Step ${i + 1}'s site ${site} is not in sites: list every site the plan visits.`);
    return { text, ...(site ? { site } : {}), ...(step.action ? { action: step.action } : {}) };
  });
  const leaves = (input.leaves ?? []).map((l) => ({ to: origin(l.to, 'Where data leaves to'), what: l.what.trim() }));
  const goal = input.goal.trim();
  if (!goal) throw new Error('The goal is empty: say what the task achieves.');
  const changes = input.changes?.trim();
  return { goal, steps, sites, ...(changes ? { changes } : {}), leaves };
}

/** The plan after the user's edits: the steps and sites removed (and the steps and leaves of a removed site). Throws the user's error. */
export function edited(plan: Plan, answer: Pick<PlanAnswer, 'removeSteps' | 'removeSites'>): Plan {
  const removeSites = new Set(answer.removeSites ?? []);
  for (const site of removeSites) if (!plan.sites.includes(site)) throw new Error(`${site} is not one of the plan's sites.`);
  const removeSteps = new Set(answer.removeSteps ?? []);
  for (const i of removeSteps) if (!Number.isInteger(i) || !plan.steps[i]) throw new Error('That step is not in the plan.');
  const steps = plan.steps.filter((step, i) => !removeSteps.has(i) && !(step.site && removeSites.has(step.site)));
  if (!steps.length) throw new Error('A plan needs at least one step: decline it instead.');
  return { ...plan, steps, sites: plan.sites.filter((s) => !removeSites.has(s)), leaves: plan.leaves.filter((l) => !removeSites.has(l.to)) };
}

/** What the gate lets through for the approved plan: its sites, reading and its steps' kinds of action, and where it said data goes. */
export function grantOf(plan: Plan): RunGrant {
  const kinds = new Set<ActionKind>(['read']);
  for (const step of plan.steps) if (step.action) kinds.add(step.action);
  return { origins: [...plan.sites], kinds: [...kinds], sinks: [...new Set(plan.leaves.map((l) => l.to))] };
}

interface Waiting {
  pending: PendingPlan;
  settle(answer: PlanAnswer): void;
  cancel(): void;
}

/**
 * The plans waiting for the user (one per `propose_plan` call: approved, edited, declined, timed
 * out after 5 minutes, or withdrawn when the run stops) and the plan each conversation's run
 * carries out now, with the steps marked done. Everything lives in memory: a plan lasts for its
 * run, and a restart forgets it (as the gate forgets its grant).
 */
export class PlanDesk {
  private readonly waiting = new Map<string, Waiting>();
  private readonly active = new Map<string, ActivePlan>();
  private readonly listeners = new Set<(change: PlanChange) => void>();

  /**
   * `approve` gives the gate the plan's grant for the conversation's run (it throws when it cannot:
   * the plan is then not approved).
   */
  constructor(
    private readonly approve: (conversationId: string | undefined, plan: Plan) => void,
    private readonly timeoutMs = PLAN_TIMEOUT_MS,
  ) {}

  /** Shows the plan and waits for the user's answer; rejects when `signal` aborts (the run stopped). */
  propose(plan: Plan, where: { conversationId?: string; toolCallId?: string }, signal?: AbortSignal): Promise<PlanOutcome> {
    if (signal?.aborted) return Promise.reject(new Error('The run was stopped before the plan was shown.'));
    const now = Date.now();
    const pending: PendingPlan = { id: crypto.randomUUID(), ...where, plan, askedAt: now, expiresAt: now + this.timeoutMs };
    return new Promise<PlanOutcome>((resolve, reject) => {
      const close = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(pending.id);
        this.emit({ type: 'closed', id: pending.id, conversationId: pending.conversationId });
      };
      const onAbort = () => {
        close();
        reject(new Error('The plan was withdrawn: the run was stopped.'));
      };
      const timer = setTimeout(() => {
        close();
        resolve({ approved: false, reason: 'timeout' });
      }, this.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(pending.id, {
        pending,
        settle: (answer) => {
          const note = answer.note?.trim().slice(0, MAX_NOTE_CHARS) || undefined;
          if (answer.decision === 'decline') {
            close();
            resolve({ approved: false, reason: 'declined', ...(note ? { note } : {}) });
            return;
          }
          // Edits and the grant may throw: the card stays up and the user reads why.
          const approved = edited(plan, answer);
          this.approve(pending.conversationId, approved);
          close();
          if (pending.conversationId) this.setActive({ conversationId: pending.conversationId, goal: approved.goal, steps: approved.steps, done: [] });
          resolve({
            approved: true,
            plan: { ...approved, steps: approved.steps.map((s, i) => ({ step: i + 1, ...s })) },
            ...(note ? { note } : {}),
            how: APPROVED_HOW,
          });
        },
        cancel: onAbort,
      });
      this.emit({ type: 'asked', plan: pending });
    });
  }

  /** The user's answer from the sidebar. Throws a readable error when it does not fit (the plan keeps waiting). */
  answer(id: string, answer: PlanAnswer): void {
    const entry = this.waiting.get(id);
    if (!entry) throw new Error('This plan no longer waits for an answer (it was answered, timed out or withdrawn).');
    if (!answer || typeof answer !== 'object' || (answer.decision !== 'approve' && answer.decision !== 'decline')) throw new Error('Approve or decline the plan.');
    if (answer.note !== undefined && typeof answer.note !== 'string') throw new Error('The note is text.');
    if (![answer.removeSteps, answer.removeSites].every((list) => list === undefined || Array.isArray(list))) throw new Error('Say which steps and sites to remove as lists.');
    entry.settle(answer);
  }

  /** Marks a step of the conversation's plan done; returns how far the plan is. */
  markDone(conversationId: string | undefined, step: number): { done: number; of: number } {
    const plan = conversationId ? this.active.get(conversationId) : undefined;
    if (!plan) throw new Error('No approved plan in this run: propose one first (it lasts for the run it was approved in).');
    if (!Number.isInteger(step) || step < 1 || step > plan.steps.length) throw new Error(`The plan has steps 1 to ${plan.steps.length}.`);
    if (!plan.done.includes(step)) this.setActive({ ...plan, done: [...plan.done, step].sort((a, b) => a - b) });
    return { done: this.active.get(conversationId!)!.done.length, of: plan.steps.length };
  }

  /** The conversation's run ended (or the user stopped the plan, or the conversation went): its plan ends, its waiting plans go. */
  end(conversationId: string): void {
    for (const w of [...this.waiting.values()]) if (w.pending.conversationId === conversationId) w.cancel();
    if (this.active.delete(conversationId)) this.emit({ type: 'progress', conversationId, active: null });
  }

  /** The plans waiting now, oldest first. */
  list(): PendingPlan[] {
    return [...this.waiting.values()].map((w) => structuredClone(w.pending)).sort((a, b) => a.askedAt - b.askedAt);
  }

  /** The plans runs carry out now. */
  activePlans(): ActivePlan[] {
    return [...this.active.values()].map((p) => structuredClone(p));
  }

  get size(): { waiting: number; active: number } {
    return { waiting: this.waiting.size, active: this.active.size };
  }

  onChange(listener: (change: PlanChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setActive(plan: ActivePlan): void {
    this.active.set(plan.conversationId, plan);
    this.emit({ type: 'progress', conversationId: plan.conversationId, active: structuredClone(plan) });
  }

  private emit(change: PlanChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        console.error('[sidequest] plan listener failed', error);
      }
    }
  }
}

import type { ActivePlan, PendingPlan, PlanAnswer } from './plans';
import type { ApprovalMode } from './mode';

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** The plans waiting for an answer and the plans runs carry out now, in every conversation. */
    listPlans(): { waiting: PendingPlan[]; active: ActivePlan[] };
    /** Approves (after edits) or declines a waiting plan; throws, in words, what does not fit. */
    answerPlan(data: { id: string; answer: PlanAnswer }): void;
    /** Stops the plan a conversation's run carries out: the run stops, and its grant ends with it. */
    stopPlan(data: { conversationId: string }): void;
    /** Settings → Privacy → Approvals. */
    getApprovalMode(): ApprovalMode;
    setApprovalMode(data: { mode: ApprovalMode }): ApprovalMode;
  }
  interface UiEventMap {
    /** A plan waits for the user. */
    'plan-asked': { plan: PendingPlan };
    /** A plan stopped waiting (answered, timed out, withdrawn). */
    'plan-closed': { id: string; conversationId?: string };
    /** A conversation's approved plan moved on (a step done), or ended (`active: null`). */
    'plan-progress': { conversationId: string; active: ActivePlan | null };
  }
}

export {};

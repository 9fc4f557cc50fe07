import { z } from 'zod/mini';
import { lazy } from '@/core/storage/setting';

/**
 * Settings → Privacy → Approvals → **Approval mode**: `ask` asks for each action (the default);
 * `plan` tells the agent to propose a plan before multi-step work; `act` starts new conversations
 * with "act without asking" on.
 */
export const APPROVAL_MODES = ['ask', 'plan', 'act'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export const approvalModeSchema = lazy(() => z.enum(APPROVAL_MODES));

/** The system prompt's paragraph in the `plan` mode. */
export const PLAN_FIRST =
  'Approval mode: plan first. Before work of several steps that acts on web pages (clicking, typing, visiting sites), call the tool propose_plan (callable by name): the goal, short steps (each with its site and action where it has one), every site, what changes there, and under leaves any data that goes to another site than where it was read. Act only once the user approves, inside the plan, and call mark_step_done after each step. A single read or answer needs no plan; if the user declines, ask what they want instead.';

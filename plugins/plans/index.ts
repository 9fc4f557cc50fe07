import type { FromSchema } from 'json-schema-to-ts';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { approvalModeSchema, PLAN_FIRST, type ApprovalMode } from './mode';
import { grantOf, PLAN_TIMEOUT_MS, PlanDesk, planFrom, type PlanOutcome } from './plans';
import './protocol';
import { planSchemas } from './schemas';

/**
 * The built-in `plans` plugin: `propose_plan` shows a plan the user approves once (the gate then
 * lets the run's calls inside it through: a grant, `ctx.approvals.grantForRun`), `mark_step_done`
 * moves its strip, and the Approval mode setting.
 */
export const plansPlugin = definePlugin<PlanDesk>({
  id: 'plans',
  name: 'Plans',
  description: 'Lets the agent show a plan for a task of many steps that you approve once; inside it, its actions run without a card each.',
  tools: [
    defineTool<FromSchema<typeof planSchemas.propose_plan>, PlanOutcome, PlanDesk>({
      name: 'propose_plan',
      description:
        'Show the user a plan for multi-step work on pages to approve once; actions inside it then run without asking.',
      inputSchema: planSchemas.propose_plan,
      // The answer is the user's own (their edits, their note): not a private read.
      annotations: { readOnly: true, destructive: false, openWorld: false, interactive: true, privateData: false },
      timeoutMs: PLAN_TIMEOUT_MS + 30_000,
      execute(input, { signal, conversationId, toolCallId, service }) {
        return service.propose(planFrom(input), { conversationId, toolCallId }, signal);
      },
    }),
    defineTool<FromSchema<typeof planSchemas.mark_step_done>, { done: number; of: number }, PlanDesk>({
      name: 'mark_step_done',
      description: 'Mark a step of the approved plan done (by its number), after carrying it out.',
      inputSchema: planSchemas.mark_step_done,
      // It moves the plan's strip in the sidebar: the agent's own record, like its task list.
      annotations: { readOnly: false, destructive: false, openWorld: false, privateData: false },
      execute({ step }, { conversationId, service }) {
        return service.markDone(conversationId, step);
      },
    }),
  ],
  setup(ctx) {
    const desk = new PlanDesk((conversationId, plan) => {
      if (!conversationId) throw new Error('A plan needs a conversation to run in.');
      ctx.approvals.grantForRun(conversationId, grantOf(plan));
    });
    const stop = desk.onChange((change) => {
      if (change.type === 'asked') ctx.broadcast({ type: 'plan-asked', plan: change.plan });
      else if (change.type === 'closed') ctx.broadcast({ type: 'plan-closed', id: change.id, conversationId: change.conversationId });
      else ctx.broadcast({ type: 'plan-progress', conversationId: change.conversationId, active: change.active });
      if (change.type !== 'progress') ctx.setBadgeCount(desk.list().length);
    });
    // Not in the settings file: a file must not switch the approvals off ("act without asking").
    const mode = ctx.storage.item<ApprovalMode>('approvalMode', { fallback: 'ask', schema: approvalModeSchema, exported: false });
    ctx.instructions(async () => ((await mode.getValue()) === 'plan' ? PLAN_FIRST : undefined));
    ctx.approvals.actWithoutAskingByDefault(async () => (await mode.getValue()) === 'act');
    ctx.retained('waitingPlans', () => desk.size.waiting);
    ctx.retained('activePlans', () => desk.size.active);
    ctx.handle('listPlans', () => ({ waiting: desk.list(), active: desk.activePlans() }));
    ctx.handle('answerPlan', ({ id, answer }) => desk.answer(id, answer));
    ctx.handle('stopPlan', ({ conversationId }) => {
      // The grant goes at once (a call already on its way is judged without it), then the run stops.
      ctx.approvals.withdrawGrant(conversationId);
      desk.end(conversationId);
      ctx.conversations.stop(conversationId);
    });
    ctx.handle('getApprovalMode', () => mode.getValue());
    ctx.handle('setApprovalMode', async ({ mode: next }) => {
      const checked = approvalModeSchema().safeParse(next);
      if (!checked.success) throw new Error('Choose one of the approval modes.');
      await mode.setValue(checked.data);
      return checked.data;
    });
    // The plan lasts for its run: gone when it ends (done, stopped, failed) or the conversation goes.
    ctx.conversations.onRunEnd((id) => desk.end(id));
    ctx.conversations.onDeleted((id) => desk.end(id));
    return { service: desk, dispose: stop };
  },
});

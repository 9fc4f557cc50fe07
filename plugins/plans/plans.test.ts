// The plans plugin over the real runner, registry and approval gate: a plan proposed in a run,
// approved after edits (the model reads the plan as approved, with the note), the gate letting the
// run's calls inside it through and asking outside it, the strip's progress, the grant gone with
// the run; a declined plan; bad plans refused in words; the Approval mode setting.
import { describe, expect, it } from 'vitest';
import { ApprovalGate } from '@/core/approvals/gate';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import type { ToolMessage } from '@/core/storage/db';
import { answer, pluginHarness, scriptedModel } from '@/tests/unit/helpers/plugin-harness';
import { plansPlugin } from './index';
import { PLAN_FIRST } from './mode';
import { edited, grantOf, planFrom, type PlanOutcome } from './plans';

const SHOP = 'https://shop.example';
const OTHER = 'https://other.example';
const TABS: Record<number, string> = { 1: `${SHOP}/cart`, 2: `${OTHER}/offers`, 3: 'https://mail.example/' };

function setup() {
  const gate = new ApprovalGate({
    permissions: { load: async () => [], put: async () => undefined, remove: async () => undefined },
    activeTab: async () => ({ id: 1, url: TABS[1]!, title: 'Cart' }),
    tab: async (id) => (TABS[id] ? { id, url: TABS[id]!, title: `Tab ${id}` } : undefined),
  });
  const model = scriptedModel();
  const h = pluginHarness({ model, gate, userTab: 1 });
  const pressed: number[] = [];
  h.install(definePlugin({
    id: 'clicker', name: 'Clicker', description: '',
    tools: [
      defineTool<{ tab_id: number }>({
        name: 'press', description: 'Presses a button in a tab.',
        annotations: { readOnly: false, destructive: false, openWorld: false, pages: true, target: (i: { tab_id: number }) => ({ tabId: i.tab_id }) },
        inputSchema: { type: 'object', properties: { tab_id: { type: 'integer' } }, required: ['tab_id'], additionalProperties: false },
        execute: ({ tab_id }) => void pressed.push(tab_id),
      }),
    ],
  }));
  h.install(plansPlugin);
  return { h, model, gate, pressed };
}

const PLAN = {
  goal: 'Compare the two offers',
  steps: [
    { text: 'Open the cart', site: SHOP, action: 'interact' },
    { text: 'Look at the other offer', site: 'other.example', action: 'interact' },
    { text: 'Say which is cheaper' },
  ],
  sites: [SHOP, 'https://other.example/offers'],
  leaves: [{ to: OTHER, what: 'the product name' }],
} as const;

const toolResult = (messages: Array<{ role: string }>, name: string) =>
  (messages.find((m) => m.role === 'tool' && (m as ToolMessage).toolName === name) as ToolMessage | undefined)?.result;

describe('plans', () => {
  it('a plan approved once after edits: calls inside it run without a card, outside it ask; the strip moves; all of it ends with the run', async () => {
    const { h, model, gate, pressed } = setup();
    model.queue(
      answer('', [{ name: 'propose_plan', input: PLAN }]),
      answer('', [{ name: 'press', input: { tab_id: 1 } }]),
      answer('', [{ name: 'mark_step_done', input: { step: 1 } }]),
      answer('', [{ name: 'press', input: { tab_id: 2 } }]),
      answer('Done.'),
    );
    const conversation = await h.store.create();
    await h.runner.send(conversation.id, 'Compare the offers');
    await h.until(() => h.broadcasts.some((e) => e.type === 'plan-asked'));
    const [waiting] = (await h.request('listPlans', undefined)).waiting;
    expect(waiting!.plan).toMatchObject({ sites: [SHOP, OTHER], steps: [{ site: SHOP }, { site: OTHER }, { text: 'Say which is cheaper' }] });
    // Edit: other.example goes, with its step and what would leave for it.
    await expect(h.request('answerPlan', { id: waiting!.id, answer: { decision: 'approve', removeSteps: [0, 1, 2] } })).rejects.toThrow(/at least one step/);
    await h.request('answerPlan', { id: waiting!.id, answer: { decision: 'approve', removeSites: [OTHER], note: ' Do not buy anything. ' } });
    // press on other.example is outside the plan now: the gate asks.
    await h.until(() => gate.list().length === 1);
    expect(gate.list()[0]).toMatchObject({ tool: 'press', site: OTHER, reason: 'acting' });
    gate.answer(gate.list()[0]!.id, 'deny');
    await h.runner.settled(conversation.id);
    const messages = await h.store.messages(conversation.id);
    const outcome = toolResult(messages, 'propose_plan');
    expect(outcome).toMatchObject({ ok: true, output: { approved: true, note: 'Do not buy anything.', plan: { sites: [SHOP], leaves: [], steps: [{ step: 1, text: 'Open the cart' }, { step: 2, text: 'Say which is cheaper' }] } } });
    expect((outcome as { output: PlanOutcome }).output).toHaveProperty('how', expect.stringContaining('mark_step_done'));
    expect(pressed).toEqual([1]);
    expect(toolResult(messages, 'mark_step_done')).toMatchObject({ ok: true, output: { done: 1, of: 2 } });
    const progress = h.broadcasts.filter((e) => e.type === 'plan-progress');
    expect(progress.map((e) => (e.type === 'plan-progress' && e.active ? e.active.done.length : null))).toEqual([0, 1, null]);
    expect((await h.request('listPlans', undefined)).active).toEqual([]);
    // The grant went with the run: the same call asks now.
    gate.beginRun(conversation.id, { trusted: false, calls: [] });
    const again = gate.check({ name: 'press', input: { tab_id: 1 }, spec: h.registry.describe('press')!, conversationId: conversation.id });
    await h.until(() => gate.list().length === 1);
    gate.answer(gate.list()[0]!.id, 'deny');
    await expect(again).resolves.toMatchObject({ ok: false });
  });

  it('a declined plan: the model reads it was declined, with the note; nothing is granted; a step marked without a plan fails in words', async () => {
    const { h, model, gate } = setup();
    model.queue(answer('', [{ name: 'propose_plan', input: PLAN }]), answer('', [{ name: 'mark_step_done', input: { step: 1 } }]), answer('Understood.'));
    const conversation = await h.store.create();
    await h.runner.send(conversation.id, 'Compare the offers');
    await h.until(() => h.broadcasts.some((e) => e.type === 'plan-asked'));
    const [waiting] = (await h.request('listPlans', undefined)).waiting;
    await h.request('answerPlan', { id: waiting!.id, answer: { decision: 'decline', note: 'Only the first shop.' } });
    await h.runner.settled(conversation.id);
    const messages = await h.store.messages(conversation.id);
    expect(toolResult(messages, 'propose_plan')).toMatchObject({ ok: true, output: { approved: false, reason: 'declined', note: 'Only the first shop.' } });
    expect(toolResult(messages, 'mark_step_done')).toMatchObject({ ok: false, error: expect.stringContaining('No approved plan') });
    expect(gate.list()).toEqual([]);
    await expect(h.request('answerPlan', { id: waiting!.id, answer: { decision: 'approve' } })).rejects.toThrow(/no longer waits/);
  });

  it('a plan made from the model\'s words: origins, every step\'s site listed, what leaves; bad input refused in words', () => {
    const plan = planFrom({ ...PLAN, steps: [...PLAN.steps] as never, sites: [...PLAN.sites], leaves: [...PLAN.leaves] });
    expect(plan.sites).toEqual([SHOP, OTHER]);
    expect(grantOf(plan)).toEqual({ origins: [SHOP, OTHER], kinds: ['read', 'interact'], sinks: [OTHER] });
    expect(grantOf(edited(plan, { removeSites: [OTHER] }))).toEqual({ origins: [SHOP], kinds: ['read', 'interact'], sinks: [] });
    expect(() => planFrom({ goal: 'x', steps: [{ text: 'a', site: 'https://elsewhere.example' }], sites: [SHOP] })).toThrow(/not in sites/);
    expect(() => planFrom({ goal: 'x', steps: [{ text: 'a' }], sites: ['javascript:alert(1)'] })).toThrow(/not a web site/);
    expect(() => planFrom({ goal: ' ', steps: [{ text: 'a' }], sites: [SHOP] })).toThrow(/goal is empty/);
    expect(() => edited(plan, { removeSites: ['https://evil.example'] })).toThrow(/not one of the plan's sites/);
  });

  it('Approval mode: "plan first" adds the instruction to the prompt; "act without asking" starts new conversations with it on; a bad mode is refused', async () => {
    const { h } = setup();
    const conversation = await h.store.create();
    expect(await h.request('getApprovalMode', undefined)).toBe('ask');
    expect(await h.sections(conversation)).toEqual([]);
    expect(await Promise.all(h.trustNew.map((s) => s()))).toEqual([false]);
    await h.request('setApprovalMode', { mode: 'plan' });
    expect(await h.sections(conversation)).toEqual([PLAN_FIRST]);
    await h.request('setApprovalMode', { mode: 'act' });
    expect(await h.sections(conversation)).toEqual([]);
    expect(await Promise.all(h.trustNew.map((s) => s()))).toEqual([true]);
    await expect(h.request('setApprovalMode', { mode: 'never' as never })).rejects.toThrow(/approval modes/);
    expect(await h.request('getApprovalMode', undefined)).toBe('act');
  });
});

// Approval cards in words and sensitive actions (core/approvals/words.ts, policy.ts, gate.ts): the
// tool's `describe` is asked for the tab the card shows; its words go on the card; a sensitive call
// is asked every time (remembered Always allow and "act without asking" do not skip it), never
// remembered (an 'always' answer counts as once); a describe that throws or hangs leaves the
// generic words and is judged sensitive; a page that changes the element between the card and
// the answer gets the call refused (the attacker's test).
import { describe, expect, it, vi } from 'vitest';
import { ApprovalGate, type Permission, type PermissionStore } from '@/core/approvals/gate';
import { decide, type CallSituation } from '@/core/approvals/policy';
import { canonical } from '@/core/approvals/words';
import { said } from '@/core/i18n/catalog';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import type { CallWords, GatedCall, ToolAnnotations } from '@/core/registry/types';

const ACT: ToolAnnotations = {
  readOnly: false, destructive: false, openWorld: false, pages: true,
  target: (i: { tab_id?: number }) => ({ tabId: i.tab_id }),
};
const base: Omit<CallSituation, 'annotations'> = { hasTarget: true, onActiveTab: true, allowedInConversation: false, trusted: false, outbound: false };

describe('policy: sensitive calls', () => {
  const ask = { action: 'ask', reason: 'sensitive', scope: 'call' };
  it.each<[string, Partial<CallSituation>, unknown]>([
    ['asks every time', {}, ask],
    ['a remembered Always allow does not skip it', { remembered: 'allow' }, ask],
    ['"act without asking" does not skip it', { trusted: true }, ask],
    ['allowed once earlier in the conversation: asks again', { allowedInConversation: true }, ask],
    ['a remembered Deny still denies', { remembered: 'deny' }, { action: 'deny' }],
    ['an outbound ask says that reason (still once only)', { outbound: true, remembered: 'allow' }, { action: 'ask', reason: 'outbound', scope: 'call' }],
    ['a local-network ask says that reason', { local: true }, { action: 'ask', reason: 'local', scope: 'call' }],
  ])('%s', (_label, situation, expected) => {
    expect(decide({ ...base, ...situation, annotations: ACT, sensitive: true })).toEqual(expected);
  });
  it('the same call not sensitive keeps the usual rules', () => {
    expect(decide({ ...base, annotations: ACT, remembered: 'allow' })).toEqual({ action: 'allow' });
    expect(decide({ ...base, annotations: ACT, trusted: true })).toEqual({ action: 'allow' });
    expect(decide({ ...base, annotations: ACT })).toEqual({ action: 'ask', reason: 'acting', scope: 'call' });
  });
});

function memoryPermissions(initial: Permission[] = []): PermissionStore & { saved: Permission[] } {
  const saved = [...initial];
  return { saved, load: async () => [...saved], put: async (p) => void saved.push(p), remove: async () => {} };
}

const TABS: Record<number, string> = { 1: 'https://shop.example/cart', 2: 'https://mail.example/inbox' };
const tabView = (id: number) => (TABS[id] ? { id, url: TABS[id]!, title: `Tab ${id}` } : undefined);

function makeGate(permissions = memoryPermissions()) {
  const gate = new ApprovalGate({ permissions, activeTab: async () => tabView(1), tab: async (id) => tabView(id), describeTimeoutMs: 50 });
  return { gate, permissions };
}

const PLACE_ORDER: CallWords = { words: said('approval.noSite'), sensitive: true };
const words = (name: string, sensitive = false): CallWords => ({ words: { key: 'approval.tab', params: { title: name, site: 'shop.example' } }, ...(sensitive ? { sensitive } : {}) });

/** A click-like call whose words come from `describe` (as the loop binds them). */
function clickCall(describe: (tabId: number | undefined) => Promise<CallWords | undefined>, input: Record<string, unknown> = { ref: 'e5' }): GatedCall {
  return {
    name: 'click', input, conversationId: 'c1', toolCallId: 't1',
    spec: { name: 'click', description: '', inputSchema: {}, pluginId: 'page-actions', source: 'builtin', annotations: ACT },
    words: describe,
  };
}

async function nextAsk(gate: ApprovalGate) {
  await vi.waitFor(() => expect(gate.list()).toHaveLength(1));
  return gate.list()[0]!;
}

describe('gate: cards in words', () => {
  it('asks describe for the tab the card shows (the active one when the call names none) and puts the words on the card', async () => {
    const { gate } = makeGate();
    const describe = vi.fn(async () => words('Add to cart'));
    const verdict = gate.check(clickCall(describe));
    const card = await nextAsk(gate);
    expect(describe).toHaveBeenCalledWith(1);
    expect(card).toMatchObject({ action: words('Add to cart').words, reason: 'acting', scope: 'call', tab: { id: 1, origin: 'https://shop.example' } });
    expect(card.sensitive).toBeUndefined();
    expect(card.arguments).toContain('"ref": "e5"');
    gate.answer(card.id, 'once');
    await expect(verdict).resolves.toMatchObject({ ok: true, tabId: 1 });
  });

  it('a named tab is the one described', async () => {
    const { gate } = makeGate();
    const describe = vi.fn(async () => words('Send'));
    const verdict = gate.check(clickCall(describe, { ref: 'e1', tab_id: 2 }));
    gate.answer((await nextAsk(gate)).id, 'deny');
    await verdict;
    expect(describe).toHaveBeenCalledWith(2);
  });

  it('a non-sensitive action keeps Always allow: remembered for this tool on this site, the next call not asked', async () => {
    const { gate, permissions } = makeGate();
    const describe = async () => words('Add to cart');
    const first = gate.check(clickCall(describe));
    gate.answer((await nextAsk(gate)).id, 'always');
    await expect(first).resolves.toMatchObject({ ok: true });
    expect(permissions.saved).toMatchObject([{ tool: 'click', site: 'https://shop.example', decision: 'allow' }]);
    await expect(gate.check(clickCall(describe))).resolves.toMatchObject({ ok: true });
  });

  it('a sensitive action is asked every time and never remembered: an "always" answer counts as once', async () => {
    const { gate, permissions } = makeGate();
    const describe = async () => PLACE_ORDER;
    const first = gate.check(clickCall(describe));
    const card = await nextAsk(gate);
    expect(card).toMatchObject({ reason: 'sensitive', scope: 'call', sensitive: true, action: PLACE_ORDER.words });
    gate.answer(card.id, 'always'); // the card offers no such button; a forged answer is taken as once
    await expect(first).resolves.toMatchObject({ ok: true });
    expect(permissions.saved).toEqual([]);
    const second = gate.check(clickCall(describe));
    gate.answer((await nextAsk(gate)).id, 'deny');
    await expect(second).resolves.toMatchObject({ ok: false, result: { code: 'denied' } });
  });

  it('a remembered Always allow and "act without asking" do not skip a sensitive action', async () => {
    const { gate } = makeGate(memoryPermissions([{ tool: 'click', site: 'https://shop.example', decision: 'allow', at: 1 }]));
    await expect(gate.check(clickCall(async () => words('Add to cart')))).resolves.toMatchObject({ ok: true });
    const remembered = gate.check(clickCall(async () => PLACE_ORDER));
    gate.answer((await nextAsk(gate)).id, 'deny');
    await expect(remembered).resolves.toMatchObject({ ok: false });
    gate.setTrusted('c1', true);
    await expect(gate.check(clickCall(async () => words('Add to cart')))).resolves.toMatchObject({ ok: true });
    const trusted = gate.check(clickCall(async () => PLACE_ORDER));
    expect((await nextAsk(gate)).reason).toBe('sensitive');
    gate.answer(gate.list()[0]!.id, 'once');
    await expect(trusted).resolves.toMatchObject({ ok: true });
  });

  it('a describe that throws or hangs: generic words, judged sensitive (asked, no Always allow), never blocks', async () => {
    const { gate, permissions } = makeGate(memoryPermissions([{ tool: 'click', site: 'https://shop.example', decision: 'allow', at: 1 }]));
    for (const describe of [async () => Promise.reject(new Error('page agent gone')), () => new Promise<CallWords>(() => {})]) {
      const verdict = gate.check(clickCall(describe));
      const card = await nextAsk(gate);
      expect(card).toMatchObject({ reason: 'sensitive', sensitive: true, unchecked: true });
      expect(card.action).toBeUndefined();
      gate.answer(card.id, 'always');
      await expect(verdict).resolves.toMatchObject({ ok: true });
    }
    expect(permissions.saved).toHaveLength(1); // only the one it started with
  });

  it('a describe that gives nothing: generic words, the usual rules', async () => {
    const { gate } = makeGate(memoryPermissions([{ tool: 'click', site: 'https://shop.example', decision: 'allow', at: 1 }]));
    await expect(gate.check(clickCall(async () => undefined))).resolves.toMatchObject({ ok: true });
  });

  it('attack: the page renames the element between the card and the answer: refused, with both words for the model', async () => {
    const { gate } = makeGate();
    let current = words('Add to cart');
    const verdict = gate.check(clickCall(async () => current));
    const card = await nextAsk(gate);
    current = words('Place order', true);
    gate.answer(card.id, 'once');
    const result = await verdict;
    expect(result).toMatchObject({ ok: false, result: { code: 'denied' } });
    const error = !result.ok && !result.result.ok ? result.result.error : '';
    expect(error).toMatch(/changed while the user was asked/);
    expect(error).toContain('Add to cart');
    expect(error).toContain('Place order');
  });

  it('attack: the page makes the second look fail or hang: refused (it cannot be checked again)', async () => {
    const { gate } = makeGate();
    let calls = 0;
    const verdict = gate.check(clickCall(() => (++calls === 1 ? Promise.resolve(words('Add to cart')) : new Promise<CallWords>(() => {}))));
    gate.answer((await nextAsk(gate)).id, 'once');
    await expect(verdict).resolves.toMatchObject({ ok: false, result: { code: 'denied', error: expect.stringMatching(/could not be read again/) } });
  });

  it('the same words read again (keys in another order) pass', async () => {
    const { gate } = makeGate();
    let n = 0;
    const verdict = gate.check(clickCall(async () => (++n === 1 ? { words: { key: 'approval.tab', params: { title: 'A', site: 'b' } } } : { words: { params: { site: 'b', title: 'A' }, key: 'approval.tab' } })));
    gate.answer((await nextAsk(gate)).id, 'once');
    await expect(verdict).resolves.toMatchObject({ ok: true });
    expect(canonical({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });

  it('a call that names a tab that is gone is not described (it fails anyway)', async () => {
    const { gate } = makeGate();
    const describe = vi.fn(async () => PLACE_ORDER);
    const verdict = gate.check(clickCall(describe, { ref: 'e1', tab_id: 99 }));
    gate.answer((await nextAsk(gate)).id, 'deny');
    await verdict;
    expect(describe).not.toHaveBeenCalled();
  });
});

describe('registry.callWords', () => {
  it('binds the plugin\'s service and the tab; outside sources never get words', async () => {
    const registry = new ToolRegistry(interpretedValidators);
    const describe = vi.fn((input: { ref: string }, ctx: { tabId?: number; service: { label: string } }) => ({ words: said('approval.noSite', { x: `${ctx.service.label} ${input.ref} ${ctx.tabId}` }), sensitive: true }));
    registry.register(
      { id: 'acts', name: 'Acts', description: '', source: 'builtin', tools: [defineTool({ name: 'act', description: '', inputSchema: { type: 'object' }, annotations: { ...ACT, describe }, execute: () => 'ok' })] },
      { label: 'svc' },
    );
    await expect(registry.callWords('act', { ref: 'e1' }, 3)).resolves.toEqual({ words: { key: 'approval.noSite', params: { x: 'svc e1 3' } }, sensitive: true });
    registry.register({ id: 'page7', name: 'Page', description: '', source: 'page', tools: [{ name: 'page_act', description: '', inputSchema: { type: 'object' }, annotations: { ...ACT, describe }, execute: () => 'ok' }] });
    await expect(registry.callWords('page_act', {}, 3)).resolves.toBeUndefined();
    expect(describe).toHaveBeenCalledTimes(1);
  });
});

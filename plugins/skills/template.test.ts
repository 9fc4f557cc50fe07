// Drafts from runs (template.ts) built from real outlines, then filled at replay (fill.ts) against
// a reload (new references), a moved form and a removed element; parameters, tab references, page
// tools, ids from results; the form's edits.
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '@/core/storage/db';
import type { ToolResult } from '@/core/registry/types';
import { fillStep, shapeMatches, type FillEnv } from './fill';
import { draftFromRun, lastRun, markParam, removeStep, renameParam, type RunStepRecord } from './template';
import { acted, outlineFixture, pageRead } from './test-runs';
import type { SkillDraft } from './protocol';

const SHOP = 'https://shop.example/signup';

/** "Add a todo, tick Walk the dog" on TodoMVC; a failed click is left out. */
function todoRun(): RunStepRecord[] {
  return [
    { tool: 'read_page', input: {}, result: pageRead(outlineFixture('todo-1')) },
    { tool: 'fill', input: { ref: 'e1', text: 'Buy bread', submit: true }, result: acted(7, 'https://todo.example/', '- listitem:\n  - checkbox [ref=e11]\n  - text: Buy bread') },
    { tool: 'click', input: { ref: 'e99' }, result: { ok: false, code: 'failed', error: 'No element e99.' } },
    { tool: 'click', input: { ref: 'e5' }, result: acted() },
  ];
}
const todoInstruction = 'Add the todo "Buy bread" and tick "Walk the dog".';

/** A sign-up in a tab the run opened, then a page tool of that site and an id its result gave. */
function signupRun(): RunStepRecord[] {
  return [
    { tool: 'open_tab', input: { url: SHOP }, result: { ok: true, output: { tab_id: 42, url: SHOP } } },
    { tool: 'read_page', input: { tab_id: 42 }, result: pageRead(outlineFixture('form-1'), 42, SHOP, 'Sign up') },
    { tool: 'fill', input: { tab_id: 42, ref: 'e1', text: 'Ada Lovelace' }, result: acted(42, SHOP) },
    { tool: 'fill', input: { tab_id: 42, ref: 'e2', text: 'ada@example.com' }, result: acted(42, SHOP) },
    { tool: 'select_option', input: { tab_id: 42, ref: 'e4', label: 'Armenia' }, result: acted(42, SHOP) },
    { tool: 'page42_submit_signup', input: { plan: 'free', note: 'Sent by {bot}' }, result: { ok: true, output: { done: true, account_id: 'acc_5521' } }, origin: 'https://shop.example' },
    { tool: 'page42_account_status', input: { account_id: 'acc_5521' }, result: { ok: true, output: { status: 'active' } }, origin: 'https://shop.example' },
  ];
}
const signupInstruction = 'Sign up with the name Ada Lovelace, email ada@example.com and country Armenia';

function env(results: Array<ToolResult | undefined>, draft: SkillDraft, args: Record<string, string> = {}, more: Partial<FillEnv> = {}): FillEnv {
  return { args, params: draft.params, results, userTabId: 7, tabs: async () => [{ id: 77, url: 'https://shop.example/signup?x=1' }], ...more };
}

describe('draftFromRun', () => {
  it('keeps the successful steps, with element locators, a parameter from the instruction and result shapes', () => {
    const draft = draftFromRun({ instruction: todoInstruction, steps: todoRun(), conversationId: 'c1', userTabId: 7 });
    expect(draft.name).toBe('add-the-todo-buy-bread');
    expect(draft.description).toBe(todoInstruction);
    expect(draft.instruction).toBe('Add the todo "{todo}" and tick "Walk the dog".');
    expect(draft.params).toEqual([{ name: 'todo', example: 'Buy bread' }]);
    expect(draft.steps.map((s) => s.tool)).toEqual(['read_page', 'fill', 'click']);
    expect(draft.steps[1]!.input).toMatchObject({ ref: { $element: { step: 0, line: 'outline| - textbox "What needs to be done?" [ref=\u0000]' } }, text: '{todo}', submit: true });
    expect(draft.steps[2]!.input).toMatchObject({ ref: { $element: { step: 0, anchor: ['after', 0] } } });
    expect(draft.steps.map((s) => s.summary)).toEqual(['read_page', 'fill — textbox "What needs to be done?", "{todo}"', 'click — checkbox']);
    expect(draft.steps[0]!.shape).toEqual({ tab_id: 'number', url: 'string', title: 'string', nodes: 'number', truncated: 'boolean', outline: 'string' });
    expect(draft.literals).toEqual([]);
    expect(draft.fromConversation).toBe('c1');
  });

  it('finds tabs, page tools, ids from results, and named parameters', () => {
    const draft = draftFromRun({ instruction: signupInstruction, steps: signupRun(), conversationId: 'c2', userTabId: 7 });
    expect(draft.params.map((p) => `${p.name}=${p.example}`)).toEqual(['name=Ada Lovelace', 'email=ada@example.com', 'country=Armenia']);
    const [open, read, name, , select, submit, status] = draft.steps;
    expect(open!.input).toEqual({ url: SHOP });
    expect(read!.input).toEqual({ tab_id: { $tab: { step: 0, path: ['tab_id'] } } });
    expect(name!.input).toMatchObject({ tab_id: { $tab: { step: 0, path: ['tab_id'] } }, ref: { $element: { step: 1 } }, text: '{name}' });
    expect(select!.summary).toBe('select_option — combobox "Country", "{country}"');
    expect(submit).toMatchObject({ tool: 'page*_submit_signup', tab: { $tab: { step: 0, path: ['tab_id'] } }, input: { plan: 'free', note: 'Sent by {{bot}}' } });
    expect(status).toMatchObject({ tool: 'page*_account_status', input: { account_id: { $from: { step: 5, path: ['account_id'] } } } });
    expect(draft.literals).toEqual([
      { value: SHOP, steps: [0] },
      { value: 'free', steps: [5] },
      { value: 'Sent by {bot}', steps: [5] },
    ]);
  });

  it('takes the model\'s proposed parameters and name, and known ones of a skill it repairs', () => {
    const draft = draftFromRun({
      instruction: signupInstruction,
      steps: signupRun(),
      conversationId: 'c2',
      name: 'Sign Up!',
      description: 'Signs someone up.',
      proposedParams: [{ name: 'Email address', value: 'ada@example.com' }, { name: 'ghost', value: 'never used' }],
      knownParams: [{ name: 'plan', example: 'free' }],
      replaces: 'skill-1',
    });
    expect(draft.name).toBe('sign-up');
    expect(draft.description).toBe('Signs someone up.');
    expect(draft.replaces).toBe('skill-1');
    expect(draft.params.map((p) => p.name)).toEqual(['plan', 'email_address', 'name', 'country']);
    expect(draft.steps[3]!.input).toMatchObject({ text: '{email_address}' });
    expect(draft.steps[5]!.input).toMatchObject({ plan: '{plan}' });
  });

  it('finds a date and a query, also inside longer arguments', () => {
    const steps: RunStepRecord[] = [
      { tool: 'navigate', input: { url: 'https://news.example/search?q=solar+power&d=2026-12-07' }, result: acted() },
      { tool: 'fill', input: { ref: 'e3', text: 'solar' }, result: acted() },
      { tool: 'fill', input: { ref: 'e4', text: '2026-12-07' }, result: acted() },
      { tool: 'write_file', input: { path: 'report-2026-12-07.md', content: 'Report for 2026-12-07' }, result: { ok: true, output: { written: true } } },
    ];
    const draft = draftFromRun({ instruction: 'Look for solar news of 2026-12-07', steps, conversationId: 'c' });
    expect(draft.params).toEqual([
      { name: 'query', example: 'solar' },
      { name: 'date', example: '2026-12-07' },
    ]);
    expect(draft.steps[0]!.input).toEqual({ url: 'https://news.example/search?q={query}+power&d={date}' });
    expect(draft.steps[3]!.input).toEqual({ path: 'report-{date}.md', content: 'Report for {date}' });
    expect(draft.instruction).toBe('Look for {query} news of {date}');
  });

  it('does not take `true`, 1 or a short word for a value an earlier result gave', () => {
    const steps: RunStepRecord[] = [
      { tool: 'list', input: {}, result: { ok: true, output: { count: 1, open: true, side: 'left', items: [{ id: 1 }] } } },
      { tool: 'scroll', input: { amount: 1, smooth: true, side: 'left', id: 1 }, result: acted() },
    ];
    const draft = draftFromRun({ instruction: 'Scroll', steps, conversationId: 'c' });
    expect(draft.steps[1]!.input).toEqual({ amount: 1, smooth: true, side: 'left', id: 1 });
  });

  it('leaves out a step whose input holds a key that would read as a reference', () => {
    const steps: RunStepRecord[] = [{ tool: 'x', input: { a: { $tab: { user: true } } }, result: acted() }];
    expect(draftFromRun({ instruction: 'x', steps, conversationId: 'c' }).steps).toEqual([]);
  });
});

describe('fillStep at replay', () => {
  const draft = draftFromRun({ instruction: todoInstruction, steps: todoRun(), conversationId: 'c1', userTabId: 7 });

  it('fills the steps against a reload that changed every reference', async () => {
    const results: ToolResult[] = [pageRead(outlineFixture('todo-2'))];
    expect(await fillStep(draft.steps[0]!, env([], draft))).toEqual({ ok: true, tool: 'read_page', input: {} });
    expect(await fillStep(draft.steps[1]!, env(results, draft, { todo: 'Call {dad}' }))).toEqual({ ok: true, tool: 'fill', input: { ref: 'e1', text: 'Call {dad}', submit: true } });
    expect(await fillStep(draft.steps[1]!, env(results, draft))).toMatchObject({ input: { text: 'Buy bread' } });
    expect(await fillStep(draft.steps[2]!, env([...results, acted()], draft))).toEqual({ ok: true, tool: 'click', input: { ref: 'e7' } });
    expect(shapeMatches(draft.steps[0]!.shape, results[0]!.ok && results[0]!.output)).toBe(true);
  });

  it('fails a step whose element is gone, naming it', async () => {
    const results: ToolResult[] = [pageRead(outlineFixture('todo-3')), acted()];
    const filled = await fillStep(draft.steps[2]!, env(results, draft));
    expect(filled).toEqual({ ok: false, error: 'The step cannot be made: No checkbox before "- text: Walk the dog" in the result of step 1: the page changed.' });
  });

  it('fails a step whose earlier step failed or has not run', async () => {
    expect(await fillStep(draft.steps[1]!, env([{ ok: false, code: 'failed', error: 'x' }], draft))).toEqual({ ok: false, error: 'The step cannot be made: step 1, whose result it needs, did not succeed.' });
    expect(await fillStep(draft.steps[1]!, env([], draft))).toEqual({ ok: false, error: 'The step cannot be made: it refers to step 1, which has not run before it.' });
  });

  it('finds the tab a step opened, the page tool of that tab now, and an id a result gave', async () => {
    const signup = draftFromRun({ instruction: signupInstruction, steps: signupRun(), conversationId: 'c2', userTabId: 7 });
    const results: ToolResult[] = [
      { ok: true, output: { tab_id: 77, url: SHOP } },
      pageRead(outlineFixture('form-2'), 77, SHOP, 'Sign up'),
      acted(77, SHOP),
      acted(77, SHOP),
      acted(77, SHOP),
      { ok: true, output: { done: true, account_id: 'acc_9000' } },
    ];
    const args = { name: 'Grace Hopper', email: 'grace@example.com', country: 'Israel' };
    expect(await fillStep(signup.steps[2]!, env(results.slice(0, 2), signup, args))).toEqual({ ok: true, tool: 'fill', input: { tab_id: 77, ref: 'e4', text: 'Grace Hopper' } });
    expect(await fillStep(signup.steps[4]!, env(results.slice(0, 4), signup, args))).toEqual({ ok: true, tool: 'select_option', input: { tab_id: 77, ref: 'e7', label: 'Israel' } });
    expect(await fillStep(signup.steps[5]!, env(results.slice(0, 5), signup, args))).toEqual({ ok: true, tool: 'page77_submit_signup', input: { plan: 'free', note: 'Sent by {bot}' } });
    expect(await fillStep(signup.steps[6]!, env(results, signup, args))).toEqual({ ok: true, tool: 'page77_account_status', input: { account_id: 'acc_9000' } });
  });

  it('finds a tab by its address, the user\'s tab, and says when neither is there', async () => {
    const step = { tool: 'page*_search', tab: { $tab: { url: 'https://shop.example/' } }, input: { q: '{q}' } };
    const params = [{ name: 'q', example: 'tea' }];
    expect(await fillStep(step, { args: {}, params, results: [], tabs: async () => [{ id: 3, url: 'https://other.example/' }, { id: 9, url: 'https://shop.example/cart' }] })).toEqual({ ok: true, tool: 'page9_search', input: { q: 'tea' } });
    expect(await fillStep(step, { args: {}, params, results: [], tabs: async () => [] })).toEqual({ ok: false, error: 'The step cannot be made: no open tab is at https://shop.example/: open it first.' });
    expect(await fillStep({ tool: 'x', input: { tab_id: { $tab: { user: true } } } }, { args: {}, params, results: [], userTabId: 4, tabs: async () => [] })).toEqual({ ok: true, tool: 'x', input: { tab_id: 4 } });
    expect(await fillStep({ tool: 'x', input: { tab_id: { $tab: { user: true } } } }, { args: {}, params, results: [], tabs: async () => [] })).toMatchObject({ ok: false });
  });

  it('refuses an unknown placeholder and a lone brace; keeps a __proto__ key a plain key', async () => {
    const params = [{ name: 'q', example: 'tea' }];
    const base = { args: { toString: 'x' } as Record<string, string>, params, results: [], tabs: async () => [] };
    expect(await fillStep({ tool: 'x', input: '{nope}' }, base)).toEqual({ ok: false, error: 'The step cannot be made: The skill has no parameter {nope}.' });
    expect(await fillStep({ tool: 'x', input: '{constructor}' }, { ...base, args: {} })).toMatchObject({ ok: false });
    expect(await fillStep({ tool: 'x', input: 'a { b' }, base)).toMatchObject({ ok: false });
    const filled = await fillStep({ tool: 'x', input: JSON.parse('{"__proto__": {"polluted": "{q}"}}') }, base);
    expect(filled.ok && Object.getPrototypeOf(filled.input)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(filled.ok && JSON.stringify(filled.input)).toBe('{"__proto__":{"polluted":"tea"}}');
  });

  it('tells a result of another shape', () => {
    const shape = { tab_id: 'number', items: 'array', meta: {} } as const;
    expect(shapeMatches(shape, { tab_id: 1, items: [], meta: { a: 1 }, extra: 'fine' })).toBe(true);
    expect(shapeMatches(shape, { tab_id: '1', items: [], meta: {} })).toBe(false);
    expect(shapeMatches(shape, { tab_id: 1, meta: {} })).toBe(false);
    expect(shapeMatches(shape, 'text')).toBe(false);
    expect(shapeMatches('string', 'text')).toBe(true);
    expect(shapeMatches(undefined, 42)).toBe(true);
  });
});

describe('the form\'s edits', () => {
  const draft = draftFromRun({ instruction: signupInstruction, steps: signupRun(), conversationId: 'c2', userTabId: 7 });

  it('marks a literal as a parameter, inside longer strings too', () => {
    const marked = markParam(draft, 'shop.example', 'site');
    expect(marked.steps[0]!.input).toEqual({ url: 'https://{site}/signup' });
    expect(marked.params.at(-1)).toEqual({ name: 'site', example: 'shop.example' });
    expect(marked.literals.map((l) => l.value)).toEqual(['free', 'Sent by {bot}']);
    expect(markParam(draft, 'free', 'plan').steps[5]!.summary).toBe('page*_submit_signup — "{plan}", "Sent by {{bot}}"');
    expect(() => markParam(draft, 'nowhere', 'x')).toThrow('"nowhere" is not in the steps.');
    expect(() => markParam(draft, 'free', 'Plan')).toThrow('not a parameter name');
    expect(() => markParam(draft, 'free', 'name')).toThrow('There is a parameter {name} already.');
    // Braces of a value stay literal.
    expect(markParam(draft, '{bot}', 'who').steps[5]!.input).toMatchObject({ note: 'Sent by {who}' });
  });

  it('renames a parameter everywhere', () => {
    const renamed = renameParam(draft, 'name', 'full_name');
    expect(renamed.instruction).toBe('Sign up with the name {full_name}, email {email} and country {country}');
    expect(renamed.steps[2]!.input).toMatchObject({ text: '{full_name}' });
    expect(renamed.params[0]).toEqual({ name: 'full_name', example: 'Ada Lovelace' });
    expect(() => renameParam(draft, 'name', 'email')).toThrow('already');
    expect(() => renameParam(draft, 'nope', 'x')).toThrow('There is no parameter {nope}.');
    expect(() => renameParam(draft, 'name', '__proto__')).toThrow('not a parameter name');
  });

  it('removes a step and renumbers the references after it; refuses one a later step needs', () => {
    expect(() => removeStep(draft, 0)).toThrow('Step 2 uses what step 1 gave: remove step 2 first.');
    expect(() => removeStep(draft, 5)).toThrow('Step 7 uses what step 6 gave');
    expect(() => removeStep(draft, 9)).toThrow('There is no step 10.');
    const fewer = removeStep(draft, 4);
    expect(fewer.steps).toHaveLength(6);
    expect(fewer.steps[4]!.tool).toBe('page*_submit_signup');
    expect(fewer.steps[5]!.input).toEqual({ account_id: { $from: { step: 4, path: ['account_id'] } } });
    expect(fewer.steps[3]!.input).toMatchObject({ ref: { $element: { step: 1 } } });
    expect(fewer.steps[4]!.tab).toEqual({ $tab: { step: 0, path: ['tab_id'] } });
  });
});

describe('lastRun', () => {
  const base = { conversationId: 'c', createdAt: 0 };
  const messages: StoredMessage[] = [
    { ...base, id: 'u0', seq: 0, role: 'user', text: 'old' },
    { ...base, id: 'a0', seq: 1, role: 'assistant', text: '', status: 'complete', toolCalls: [{ id: 't0', name: 'old_tool', input: {} }] },
    { ...base, id: 'r0', seq: 2, role: 'tool', toolCallId: 't0', toolName: 'old_tool', input: {}, status: 'done', result: { ok: true, output: 1 } },
    { ...base, id: 'u1', seq: 3, role: 'user', text: 'Add the todo "Buy bread"' },
    { ...base, id: 'a1', seq: 4, role: 'assistant', text: '', status: 'complete', toolCalls: [{ id: 't1', name: 'read_page', input: {} }, { id: 't2', name: 'click', input: { ref: 'e1' } }, { id: 't3', name: 'bad', input: {}, invalid: 'bad JSON' }] },
    { ...base, id: 'r2', seq: 6, role: 'tool', toolCallId: 't2', toolName: 'click', input: { ref: 'e1' }, status: 'error', result: { ok: false, code: 'denied', error: 'The user declined.' } },
    { ...base, id: 'r1', seq: 5, role: 'tool', toolCallId: 't1', toolName: 'read_page', input: {}, status: 'done', result: { ok: true, output: 'x' } },
    { ...base, id: 'a2', seq: 7, role: 'assistant', text: '', status: 'complete', toolCalls: [{ id: 't4', name: 'page3_buy', input: {} }, { id: 't5', name: 'running', input: {} }] },
    { ...base, id: 'r4', seq: 8, role: 'tool', toolCallId: 't4', toolName: 'page3_buy', input: {}, status: 'error', result: { ok: false, code: 'failed', error: 'x' }, origin: 'https://shop.example' },
    { ...base, id: 'a3', seq: 9, role: 'assistant', text: 'Done.', status: 'complete', toolCalls: [] },
  ];

  it('takes the calls after the last user message, in order, without denied or unanswered ones', () => {
    const run = lastRun(messages)!;
    expect(run.instruction).toBe('Add the todo "Buy bread"');
    expect(run.userMessageId).toBe('u1');
    expect(run.steps).toEqual([
      { tool: 'read_page', input: {}, result: { ok: true, output: 'x' } },
      { tool: 'page3_buy', input: {}, result: { ok: false, code: 'failed', error: 'x' }, origin: 'https://shop.example' },
    ]);
    expect(lastRun([])).toBeUndefined();
  });
});

describe('values from results and from the user', () => {
  it('makes a file the user named a parameter, a file a result listed a $from, and a listed reference an $element', () => {
    const steps: RunStepRecord[] = [
      { tool: 'list_files', input: {}, result: { ok: true, output: { files: ['prices.csv', 'orders-2026.csv'] } } },
      { tool: 'read_file', input: { path: 'prices.csv' }, result: { ok: true, output: { text: 'a,b' } } },
      { tool: 'read_file', input: { path: 'orders-2026.csv' }, result: { ok: true, output: { text: 'c,d' } } },
      { tool: 'page3_list_products', input: {}, result: { ok: true, output: { products: [{ title: 'Tea', ref: 'p-17' }, { title: 'Rice', ref: 'p-18' }] } }, origin: 'https://shop.example' },
      { tool: 'page3_add_to_cart', input: { product: 'p-18' }, result: { ok: true, output: { cart: 1 } }, origin: 'https://shop.example' },
    ];
    const draft = draftFromRun({ instruction: 'Read the file prices.csv and the orders, then add rice to the cart', steps, conversationId: 'c', userTabId: 3 });
    expect(draft.steps[1]!.input).toEqual({ path: '{file}' });
    expect(draft.params).toEqual([{ name: 'file', example: 'prices.csv' }]);
    expect(draft.steps[2]!.input).toEqual({ path: { $from: { step: 0, path: ['files', 1] } } });
    expect(draft.steps[3]).toMatchObject({ tool: 'page*_list_products', tab: { $tab: { user: true } } });
    expect(draft.steps[4]!.input).toMatchObject({ product: { $element: { step: 3, line: '{}| "ref": "\u0000"', anchor: ['before', 0] } } });
    expect(draft.steps[4]!.summary).toBe('page*_add_to_cart — "ref" of the item with "title": "Rice"');
  });
});

import { afterEach, describe, expect, test, vi } from 'vitest';
import { batches } from '@/core/agent/loop';
import { applySubAgentEvent } from '@/core/agent/subagent-record';
import { ASK_TIMEOUT_MS, checkAnswer, QuestionDesk } from '@/core/background/questions';
import { TaskBoard } from '@/core/background/task-board';
import { ToolRegistry, defineTool } from '@/core/registry/registry';
import type { ToolSpec } from '@/core/registry/types';
import { unscriptableReason, toScriptResult } from '@/plugins/scripting';
import { allowFor, bindToTab, NEVER_FOR_SUB_AGENTS } from '@/plugins/subagents/types';
import { createTasksPlugin } from '@/plugins/tasks';

afterEach(() => {
  vi.useRealTimers();
});

describe('ask_user questions', () => {
  test('no answer in 5 minutes gives {answer: null, reason: "timeout"} and closes the question', async () => {
    vi.useFakeTimers();
    const desk = new QuestionDesk();
    const closed: string[] = [];
    desk.onChange((c) => c.type === 'closed' && closed.push(c.reason));
    const pending = desk.ask({ question: 'Continue?' });
    expect(desk.list()).toHaveLength(1);
    expect(desk.list()[0]!.expiresAt - desk.list()[0]!.askedAt).toBe(ASK_TIMEOUT_MS);
    await vi.advanceTimersByTimeAsync(ASK_TIMEOUT_MS - 1);
    expect(desk.list()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toEqual({ answer: null, reason: 'timeout' });
    expect(desk.list()).toEqual([]);
    expect(closed).toEqual(['timeout']);
  });

  test('the answer goes back; skip gives null with its reason', async () => {
    const desk = new QuestionDesk();
    const a = desk.ask({ question: 'Colour?', options: ['Red', 'Green'] });
    desk.answer(desk.list()[0]!.id, 'Green');
    await expect(a).resolves.toEqual({ answer: 'Green' });
    const b = desk.ask({ question: 'Name?' });
    desk.answer(desk.list()[0]!.id, null);
    await expect(b).resolves.toEqual({ answer: null, reason: 'skipped' });
    expect(() => desk.answer('gone', 'x')).toThrow(/no longer waiting/);
  });

  test('stopping the run withdraws the question', async () => {
    const desk = new QuestionDesk();
    const controller = new AbortController();
    const pending = desk.ask({ question: 'Still there?', conversationId: 'c1' }, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow(/withdrawn/);
    expect(desk.list()).toEqual([]);
    const other = desk.ask({ question: 'And now?', conversationId: 'c2' });
    desk.withdraw('c2');
    await expect(other).rejects.toThrow(/withdrawn/);
  });

  test('answers must fit the question', () => {
    expect(checkAnswer({ multiple: false }, '  free text ')).toBe('free text');
    expect(() => checkAnswer({ multiple: false }, '   ')).toThrow(/empty/);
    expect(() => checkAnswer({ options: ['A', 'B'], multiple: false }, 'C')).toThrow(/one of the options/);
    expect(checkAnswer({ options: ['A', 'B', 'C'], multiple: true }, ['C', 'A'])).toEqual(['A', 'C']);
    expect(() => checkAnswer({ options: ['A', 'B'], multiple: true }, [])).toThrow(/at least one/);
  });

  test('bad questions are refused before they are shown', async () => {
    const desk = new QuestionDesk();
    await expect(desk.ask({ question: 'x', options: ['A', 'A'] })).rejects.toThrow(/same/);
    await expect(desk.ask({ question: 'x', multiple: true })).rejects.toThrow(/multiple only applies/);
    expect(desk.list()).toEqual([]);
  });
});

describe('tasks', () => {
  test('per conversation, with string ids, and errors that say how to recover', async () => {
    const saved: unknown[] = [];
    const board = new TaskBoard({ load: async () => ({}), save: async (all) => void saved.push(all) });
    const changes: string[] = [];
    board.onChange((id, tasks) => changes.push(`${id}:${tasks.length}`));
    expect(await board.create('c1', 'Find flights')).toMatchObject({ task_id: '1', status: 'pending' });
    expect(await board.create('c1', ' Book   hotel ', 'near the station')).toMatchObject({ task_id: '2', subject: 'Book hotel' });
    expect(await board.create('c2', 'Other')).toMatchObject({ task_id: '1' });
    expect(await board.update('c1', '2', { status: 'in_progress' })).toMatchObject({ status: 'in_progress', description: 'near the station' });
    await expect(board.update('c1', '9', { status: 'completed' })).rejects.toThrow(/ids are 1, 2.*list_tasks/);
    await expect(board.update('c1', '1', {})).rejects.toThrow(/Nothing to change/);
    await expect(board.create('c1', '   ')).rejects.toThrow(/needs a subject/);
    expect((await board.list('c1')).map((t) => t.status)).toEqual(['pending', 'in_progress']);
    expect(changes).toEqual(['c1:1', 'c1:2', 'c2:1', 'c1:2']);
    await board.drop('c1');
    expect(await board.list('c1')).toEqual([]);
    expect(saved.length).toBeGreaterThan(0);
  });

  test('the lists come back from the session copy after a restart', async () => {
    const store: Record<string, unknown> = {};
    const persist = { load: async () => (store.all ?? {}) as never, save: async (all: unknown) => void (store.all = all) };
    await new TaskBoard(persist).create('c1', 'Survive a restart');
    await new Promise((r) => setTimeout(r, 0));
    expect((await new TaskBoard(persist).list('c1')).map((t) => t.subject)).toEqual(['Survive a restart']);
  });

  test('the tools go through the registry with the conversation of the call', async () => {
    const registry = new ToolRegistry(() => () => null);
    registry.register(createTasksPlugin(new TaskBoard()));
    const context = { conversationId: 'conv' };
    await registry.invoke('create_task', { subject: 'One' }, { context });
    const listed = await registry.invoke('list_tasks', {}, { context });
    expect(listed).toEqual({ ok: true, output: [{ task_id: '1', subject: 'One', status: 'pending' }] });
    expect(await registry.invoke('list_tasks', {}, { context: { conversationId: 'other' } })).toEqual({ ok: true, output: [] });
  });
});

describe('sub-agent types', () => {
  const spec = (name: string, pluginId: string, source: 'builtin' | 'page' = 'builtin'): ToolSpec => ({
    name, pluginId, source, description: '', inputSchema: { type: 'object', properties: name === 'execute_script' || name === 'close_tab' ? { tab_id: { type: 'integer' } } : {} },
  });
  const all = [
    spec('web_search', 'web'), spec('web_fetch', 'web'), spec('get_tab_content', 'tabs'), spec('list_tabs', 'tabs'),
    spec('close_tab', 'tabs'), spec('execute_script', 'scripting'), spec('opfs_write', 'workspace'), spec('create_task', 'tasks'),
    spec('ask_user', 'interaction'), spec('agent', 'subagents'), spec('page_1_add', 'page-1', 'page'),
  ];
  const names = (type: Parameters<typeof allowFor>[0]) => all.filter(allowFor(type)).map((s) => s.name);

  test('each type has its whitelist; none has ask_user or agent', () => {
    expect(names('researcher')).toEqual(['web_search', 'web_fetch', 'get_tab_content', 'list_tabs']);
    expect(names('page_operator')).toEqual(['get_tab_content', 'list_tabs', 'close_tab', 'execute_script', 'page_1_add']);
    expect(names('general')).toEqual(all.map((s) => s.name).filter((n) => !NEVER_FOR_SUB_AGENTS.has(n)));
  });

  test('the whitelist is enforced when a tool runs, not only in the list', async () => {
    const registry = new ToolRegistry(() => () => null);
    const ran: string[] = [];
    registry.register({
      id: 'workspace', source: 'builtin', name: 'W', description: '',
      tools: [defineTool({ name: 'opfs_write', description: '', inputSchema: { type: 'object' }, execute: () => void ran.push('opfs_write') })],
    });
    const result = await registry.invoke('opfs_write', {}, { allow: allowFor('researcher') });
    expect(result).toEqual({ ok: false, code: 'disabled', error: 'Tool opfs_write is not available to this agent.' });
    expect(ran).toEqual([]);
  });

  test('a bound tab fills tab_id and refuses another tab', () => {
    const bind = bindToTab(7, (name) => all.find((s) => s.name === name));
    expect(bind('execute_script', { code: '1', target: 'page' })).toEqual({ code: '1', target: 'page', tab_id: 7 });
    expect(bind('close_tab', { tab_id: 7 })).toEqual({ tab_id: 7 });
    expect(() => bind('close_tab', { tab_id: 8 })).toThrow(/works in tab 7 only/);
    expect(bind('list_tabs', {})).toEqual({});
  });

  test('concurrent calls run together only when consecutive', () => {
    expect(batches([true, true, false, true, true, true])).toEqual([[0, 1], [2], [3, 4, 5]]);
    expect(batches([false, false])).toEqual([[0], [1]]);
  });

  test('sub-agent events build the record kept on the tool message', () => {
    let record = applySubAgentEvent(undefined, { type: 'start', agentId: 'a', agentType: 'researcher', prompt: 'p' });
    const message = { id: 'm', role: 'assistant', conversationId: 'a', seq: 1, createdAt: 0, text: '', status: 'streaming', toolCalls: [] } as const;
    record = applySubAgentEvent(record, { type: 'message', agentId: 'a', message: { ...message, toolCalls: [] } });
    record = applySubAgentEvent(record, { type: 'delta', agentId: 'a', messageId: 'm', text: 'Hel', offset: 0 });
    record = applySubAgentEvent(record, { type: 'delta', agentId: 'a', messageId: 'm', text: 'llo', offset: 2 });
    record = applySubAgentEvent(record, { type: 'end', agentId: 'a', status: 'done' });
    expect(record).toMatchObject({ status: 'done', messages: [{ id: 'm', text: 'Hello' }] });
  });
});

describe('execute_script rules', () => {
  test('pages no extension may script are named', () => {
    expect(unscriptableReason('chrome://settings')).toMatch(/browser page/);
    expect(unscriptableReason('about:debugging')).toMatch(/browser page/);
    expect(unscriptableReason('https://chromewebstore.google.com/detail/x')).toMatch(/Web Store/);
    expect(unscriptableReason('https://addons.mozilla.org/en-US/firefox/')).toMatch(/add-ons/);
    expect(unscriptableReason('moz-extension://abc/page.html')).toMatch(/extension/);
    expect(unscriptableReason('https://example.com/')).toBeNull();
  });

  test('outcomes become results or errors worded for the model', () => {
    expect(toScriptResult({ ok: true, value: 3 }, { target: 'sandbox' })).toEqual({ target: 'sandbox', result: 3 });
    expect(toScriptResult({ ok: true }, { target: 'sandbox' })).toMatchObject({ result: null, note: expect.stringMatching(/no value/) });
    expect(() => toScriptResult({ ok: false, kind: 'csp', error: 'EvalError: x' }, { target: 'page' })).toThrow(/Content Security Policy/);
    expect(() => toScriptResult({ ok: false, kind: 'thrown', error: 'TypeError: y', logs: ['a'] }, { target: 'page' })).toThrow(/threw TypeError: y\nConsole output before the error:\na/);
  });
});

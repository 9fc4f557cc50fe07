import { describe, expect, test } from 'vitest';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import type { ToolAnnotations, ToolSpec } from '@/core/registry/types';
import { applySubAgentEvent } from './record';
import { allowFor, bindToTab } from './types';


describe('sub-agent types', () => {
  const READ = { readOnly: true, destructive: false, openWorld: false };
  const ACT = { readOnly: false, destructive: true, openWorld: false };
  const spec = (name: string, pluginId: string, annotations: ToolAnnotations, source: 'builtin' | 'page' = 'builtin'): ToolSpec => ({
    name, pluginId, source, annotations, description: '', inputSchema: { type: 'object', properties: name === 'execute_script' || name === 'close_tab' ? { tab_id: { type: 'integer' } } : {} },
  });
  // Tools as their plugins describe them: the types are decided from these annotations, not names.
  const all = [
    spec('web_search', 'web', { ...READ, openWorld: true }), spec('web_fetch', 'web', { ...READ, openWorld: true }),
    spec('get_tab_content', 'tabs', { ...READ, pages: true }), spec('list_tabs', 'tabs', { ...READ, pages: true }),
    spec('close_tab', 'tabs', { ...ACT, pages: true }), spec('execute_script', 'scripting', { ...ACT, openWorld: true, pages: true }),
    spec('opfs_write', 'workspace', ACT), spec('create_task', 'tasks', { ...ACT, destructive: false }),
    spec('ask_user', 'interaction', { ...READ, interactive: true }), spec('agent', 'subagents', { ...ACT, destructive: false }),
    spec('page_1_add', 'page-1', { ...ACT, openWorld: true, pages: true }, 'page'),
  ];
  const names = (type: Parameters<typeof allowFor>[0]) => all.filter(allowFor(type)).map((s) => s.name);

  test('each type has its whitelist; none has ask_user or agent', () => {
    expect(names('researcher')).toEqual(['web_search', 'web_fetch', 'get_tab_content', 'list_tabs']);
    expect(names('page_operator')).toEqual(['get_tab_content', 'list_tabs', 'close_tab', 'execute_script', 'page_1_add']);
    expect(names('general')).toEqual(all.map((s) => s.name).filter((n) => n !== 'ask_user' && n !== 'agent'));
  });

  test('the whitelist is enforced when a tool runs, not only in the list', async () => {
    const registry = new ToolRegistry(() => () => null);
    const ran: string[] = [];
    registry.register({
      id: 'workspace', source: 'builtin', name: 'W', description: '',
      tools: [defineTool({ annotations: { readOnly: false, destructive: true, openWorld: false }, name: 'opfs_write', description: '', inputSchema: { type: 'object' }, execute: () => void ran.push('opfs_write') })],
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

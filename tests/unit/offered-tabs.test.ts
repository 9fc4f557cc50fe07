import { describe, expect, it } from 'vitest';
import { offeredTabs, tabsInPlay } from '@/core/agent/offered-tabs';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import type { StoredMessage } from '@/core/storage/db';

const READ = { readOnly: true, destructive: false, openWorld: false };

function registryWithPages(tabs: number[]): ToolRegistry {
  const registry = new ToolRegistry(interpretedValidators);
  registry.register({
    id: 'tabs', name: 'Tabs', description: '', source: 'builtin',
    tools: [defineTool({ name: 'get_tab_content', description: 'Reads a tab.', annotations: READ, inputSchema: { type: 'object' }, execute: () => 'text' })],
  });
  for (const tab of tabs) {
    registry.register({
      id: `page-${tab}`, name: `Tab ${tab}`, description: '', source: 'page', scope: { tabId: tab, origin: `https://site${tab}.example` },
      tools: [defineTool({ name: `page${tab}_state`, description: 'The app state.', annotations: { ...READ, pages: true }, inputSchema: { type: 'object' }, execute: () => ({}) })],
    });
  }
  return registry;
}

const names = (registry: ToolRegistry, tabs?: Set<number>) => registry.listTools(undefined, tabs).map((t) => t.name).sort();

describe('which tabs\' own tools a step offers', () => {
  it('the user\'s tab, a bound tab, tabs named by a call or opened by one, and tabs whose tool was called; no other', async () => {
    const registry = registryWithPages([1, 2, 3, 4, 5]);
    registry.userTab = async () => 1;
    const history = [
      { role: 'assistant', toolCalls: [{ id: 'a', name: 'get_tab_content', input: { tab_id: 2 } }, { id: 'b', name: 'page3_state', input: {} }, { id: 'c', name: 'open_tab', input: { url: 'https://site4.example' } }] },
      { role: 'tool', toolCallId: 'a', toolName: 'get_tab_content', result: { ok: true, output: { tab_id: 2 } } },
      { role: 'tool', toolCallId: 'b', toolName: 'page3_state', result: { ok: false, code: 'failed', error: 'The page threw.' } },
      { role: 'tool', toolCallId: 'c', toolName: 'open_tab', result: { ok: true, output: { tab_id: 4, url: 'https://site4.example' } } },
    ] as unknown as StoredMessage[];
    const tabs = await offeredTabs(registry, history);
    expect([...tabs!].sort()).toEqual([1, 2, 3, 4]);
    expect(names(registry, tabs)).toEqual(['get_tab_content', 'page1_state', 'page2_state', 'page3_state', 'page4_state']);
    expect([...(await offeredTabs(registry, [], 5))!].sort()).toEqual([1, 5]);
  });

  it('a tab named only in a call that was denied, or that never ran, is not in play', async () => {
    const registry = registryWithPages([1, 2, 3, 4, 5, 6, 7]);
    registry.userTab = async () => 1;
    const calls = [
      { id: 'denied', name: 'get_tab_content', input: { tab_id: 2 } },
      { id: 'denied-tool', name: 'page3_state', input: {} },
      { id: 'invalid', name: 'get_tab_content', input: { tab_id: 4 } },
      { id: 'stopped', name: 'get_tab_content', input: { tab_id: 5 } },
      { id: 'unanswered', name: 'get_tab_content', input: { tab_id: 6 } },
      { id: 'timeout', name: 'get_tab_content', input: { tab_id: 7 } },
    ];
    const result = (id: string, code: string) => ({ role: 'tool', toolCallId: id, toolName: 'x', result: { ok: false, code, error: code } });
    const history = [
      { role: 'assistant', toolCalls: calls },
      result('denied', 'denied'),
      result('denied-tool', 'denied'),
      result('invalid', 'invalid_input'),
      result('stopped', 'aborted'),
      { role: 'tool', toolCallId: 'unanswered', toolName: 'get_tab_content', status: 'running' },
      result('timeout', 'timeout'),
    ] as unknown as StoredMessage[];
    const tabs = await offeredTabs(registry, history);
    expect([...tabs!].sort()).toEqual([1, 7]);
    expect(names(registry, tabs)).toEqual(['get_tab_content', 'page1_state', 'page7_state']);
    // The same list, as the core gives it to plugins (list_page_tools).
    expect([...(await tabsInPlay(registry, history))].sort()).toEqual([1, 7]);
  });

  it('without a user tab known, only named tabs; with no page tools at all, nothing to narrow', async () => {
    const registry = registryWithPages([7]);
    expect(names(registry, await offeredTabs(registry, []))).toEqual(['get_tab_content']);
    registry.userTab = async () => {
      throw new Error('no window');
    };
    expect(names(registry, await offeredTabs(registry, []))).toEqual(['get_tab_content']);
    expect(await offeredTabs(registryWithPages([]), [])).toBeUndefined();
  });
});

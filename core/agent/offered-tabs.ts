import type { ToolRegistry } from '@/core/registry/registry';
import type { ToolResult } from '@/core/registry/types';
import type { StoredMessage } from '@/core/storage/db';

function tabIdOf(value: unknown): number | undefined {
  const id = (value as { tab_id?: unknown } | null)?.tab_id;
  return typeof id === 'number' && Number.isInteger(id) ? id : undefined;
}

/**
 * Whether a call ran, so that the tab it named is in play: it succeeded, or failed while running
 * (an error, a timeout). A call the user denied, or one that never ran (refused as invalid,
 * unknown or switched off, stopped, not reached yet), only names a tab: the model can name any
 * tab id it saw in a list, and that must not bring the tab's own tools before it.
 */
function ran(result: ToolResult | undefined): boolean {
  return Boolean(result && (result.ok || result.code === 'failed' || result.code === 'timeout'));
}

/**
 * The tabs in play in a conversation: the tab the user is looking at, the tab a sub-agent is bound
 * to, and the tabs the conversation's calls that ran named, by a call's `tab_id`, a result's
 * `tab_id` (a tab the agent opened) or a call of a tab's own tool. A tab named only in a call that
 * was denied or never ran is not in play.
 */
export async function tabsInPlay(registry: ToolRegistry, history: readonly StoredMessage[], boundTab?: number): Promise<Set<number>> {
  const tabs = new Set<number>();
  if (boundTab !== undefined) tabs.add(boundTab);
  const active = await registry.userTab?.().catch(() => undefined);
  if (active !== undefined) tabs.add(active);
  const results = new Map<string, ToolResult | undefined>();
  for (const message of history) if (message.role === 'tool') results.set(message.toolCallId, message.result);
  for (const message of history) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) {
        if (!ran(results.get(call.id))) continue;
        const named = tabIdOf(call.input) ?? registry.toolTab(call.name);
        if (named !== undefined) tabs.add(named);
      }
    } else if (message.role === 'tool' && message.result?.ok) {
      const opened = tabIdOf(message.result.output);
      if (opened !== undefined) tabs.add(opened);
    }
  }
  return tabs;
}

/**
 * The tabs whose own tools (tab-scoped plugins: a page's tools) a step offers the model: the tabs
 * in play (`tabsInPlay`). Every other tab's page tools stay out of the list, so a page the user
 * merely has open elsewhere does not put its tools (and their descriptions) before the model.
 * Undefined when no tab-scoped plugin is registered: nothing to narrow.
 */
export async function offeredTabs(registry: ToolRegistry, history: readonly StoredMessage[], boundTab?: number): Promise<Set<number> | undefined> {
  if (!registry.hasScopedPlugins()) return undefined;
  return tabsInPlay(registry, history, boundTab);
}

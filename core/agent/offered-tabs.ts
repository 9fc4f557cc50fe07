import type { ToolRegistry } from '@/core/registry/registry';
import type { StoredMessage } from '@/core/storage/db';

function tabIdOf(value: unknown): number | undefined {
  const id = (value as { tab_id?: unknown } | null)?.tab_id;
  return typeof id === 'number' && Number.isInteger(id) ? id : undefined;
}

/**
 * The tabs whose own tools (tab-scoped plugins: a page's tools) a step offers the model: the tab
 * the user is looking at, the tab a sub-agent is bound to, and the tabs the conversation named, by
 * a call's `tab_id`, a result's `tab_id` (a tab the agent opened) or a call of a tab's own tool.
 * Every other tab's page tools stay out of the list, so a page the user merely has open elsewhere
 * does not put its tools (and their descriptions) before the model. Undefined when no tab-scoped
 * plugin is registered: nothing to narrow.
 */
export async function offeredTabs(registry: ToolRegistry, history: readonly StoredMessage[], boundTab?: number): Promise<Set<number> | undefined> {
  if (!registry.hasScopedPlugins()) return undefined;
  const tabs = new Set<number>();
  if (boundTab !== undefined) tabs.add(boundTab);
  const active = await registry.userTab?.().catch(() => undefined);
  if (active !== undefined) tabs.add(active);
  for (const message of history) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) {
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

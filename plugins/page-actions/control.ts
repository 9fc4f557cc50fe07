import type { PluginContext } from '@/core/plugin';
import type { ToolDefinition } from '@/core/registry/types';
import type { PageReply, PageRequest } from './protocol';

/**
 * The user stays in control (the `control` work): the acting bar in the tab (Stop, Take over,
 * Resume), take-over and `hand_over` (the run waits while the user has the tab), the sidebar's
 * "Paused — you have the tab" panel.
 */
export interface ActingControl {
  /**
   * Before every action in a tab: shows the bar ("acting") and, while the user has the tab (Take
   * over, `hand_over`), waits for Resume. Rejects when `signal` aborts.
   */
  beforeAction(tabId: number, conversationId: string | undefined, signal: AbortSignal): Promise<void>;
  dispose(): void;
}

export type CallPage = <T = Record<string, unknown>>(tabId: number, request: PageRequest) => Promise<PageReply<T>>;

export function createControl(_ctx: PluginContext, _callPage: CallPage): ActingControl {
  return { beforeAction: async () => {}, dispose: () => {} };
}

/** `hand_over` (placeholder in the skeleton). */
export const controlTools: ToolDefinition[] = [];

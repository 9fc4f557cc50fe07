import type { PluginContext } from '@/core/plugin';
import type { PageReply, PageRequest } from './protocol';
import { createControl, type ActingControl } from './control';

/**
 * The plugin's background service (the `tools` work): finds the tab a call means, injects the page
 * agent, sends it requests (`callPage`), keeps each tab's last document token, and hands the
 * acting bar and take-over to `control.ts`.
 */
export interface PageActionsService {
  /** Sends one request to the tab's page agent (injecting it first), with the tab's last token. */
  callPage<T = Record<string, unknown>>(tabId: number, request: PageRequest): Promise<PageReply<T>>;
  control: ActingControl;
}

export function setupPageActions(ctx: PluginContext): { service: PageActionsService; dispose(): void } {
  const callPage = async <T,>(_tabId: number, _request: PageRequest): Promise<PageReply<T>> => {
    throw new Error('not built yet');
  };
  const control = createControl(ctx, callPage);
  return { service: { callPage, control }, dispose: () => control.dispose() };
}

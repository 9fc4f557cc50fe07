import { t, tn } from '@/core/ui/i18n';
import type { McpServerView } from './types';

/** "3 tools", in the page's language. */
export function toolCount(s: McpServerView): string {
  return tn('plugins.tools', s.tools.length);
}

/** A server's state in a few words for its card: off, connected with n tools, connecting, … */
export function statusText(s: McpServerView): string {
  if (!s.enabled) return t('mcp.off');
  switch (s.status) {
    case 'connected':
      return t('mcp.connected', { tools: toolCount(s) });
    case 'connecting':
      return t('mcp.connecting');
    case 'error':
      return t('mcp.notConnected');
    default:
      return s.tools.length ? t('mcp.whenNeeded', { tools: toolCount(s) }) : t('mcp.notYet');
  }
}

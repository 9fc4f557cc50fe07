import type { ConsentDecision, PageTabView, SitePermission } from './types';

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** The page tools every tab offers now. */
    listPageTools(): PageTabView[];
    /** Asks a tab for a fresh list; null when its page offers no tools. */
    refreshPageTools(data: { tabId: number; reason?: string }): PageTabView | null;
    /** The user's answer to "allow this site's tools?". */
    decidePageTools(data: { origin: string; decision: ConsentDecision }): PageTabView[];
    listSitePermissions(): SitePermission[];
    /** Forgets a site's decision: its tools wait for the user's answer again. */
    revokeSitePermission(data: { origin: string }): SitePermission[];
  }
  interface UiEventMap {
    'page-tools': { tabs: PageTabView[] };
    'site-permissions': { permissions: SitePermission[] };
  }
}

export {};

import type { FromSchema } from 'json-schema-to-ts';
import { browser } from 'wxt/browser';
import { z } from 'zod';
import type { ImportRow, PluginSettingsFile } from '@/core/data/settings-import';
import { said } from '@/core/i18n/catalog';
import { lazy } from '@/core/storage/setting';
import { isLocalNetworkUrl } from '@/core/net/local-network';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { untrusted } from '@/core/registry/untrusted';
import { PageToolsManager } from './manager';
import './protocol';
import { pageToolsSchemas } from './schemas';
import type { PageTabView, SitePermission } from './types';

/** A tab's page tools as `list_page_tools` returns them: snake_case, what the model needs. */
export interface PageToolsListing {
  tab_id: number;
  site: string;
  url: string;
  title: string;
  /** Whether the model may call them now. */
  available: boolean;
  note?: string;
  tools: Array<{ name: string; page_name: string; group: string; description: string }>;
}

export function toListing(view: PageTabView): PageToolsListing {
  const notes: Record<string, string> = {
    pending: 'The user has not yet allowed this site\'s tools; the sidebar is asking them. They cannot be called or listed until then.',
    never: 'The user does not allow tools from this site.',
  };
  // A site the user has not allowed says nothing to the model: its names, descriptions, title and
  // address are the page's words, read only once the user trusts the site.
  if (view.consent === 'pending' || view.consent === 'never') {
    return { tab_id: view.tabId, site: view.site, url: '', title: '', available: false, note: notes[view.consent]!, tools: [] };
  }
  return {
    tab_id: view.tabId,
    site: view.site,
    url: view.url,
    title: view.title,
    available: view.offered,
    ...(notes[view.consent] ? { note: notes[view.consent] } : {}),
    tools: view.groups.flatMap((g) =>
      g.tools.map((t) => ({ name: t.modelName, page_name: t.name, group: g.name, description: t.description })),
    ),
  };
}

/** The remembered sites, checked when read; made at the first read (`lazy`), not at every start of the background. */
const sitePermissionSchema = lazy(
  () =>
    z.record(
      z.string(),
      z.object({ origin: z.string(), decision: z.enum(['always', 'never']), at: z.number() }),
    ) as z.ZodType<Record<string, SitePermission>>,
);

/** The remembered sites in a settings file: the preview lists each site whose choice the file adds, changes or removes. */
const pageToolsSettingsFile: PluginSettingsFile = {
  items: {
    sitePermissions: {
      // The manager looks a site up by its key: a file's key must be the origin it names.
      schema: lazy(() => sitePermissionSchema().refine((all) => Object.entries(all).every(([key, p]) => key === p.origin), 'each site must be kept under its own origin')),
      title: said('pageTools.import.title'),
      rows(file: Record<string, SitePermission>, now: Record<string, SitePermission> | undefined): ImportRow[] {
        const before = new Map(Object.entries(now ?? {}).map(([origin, p]) => [origin, p.decision]));
        const after = new Map(Object.entries(file).map(([origin, p]) => [origin, p.decision]));
        const rows: ImportRow[] = [];
        const words = (decision: SitePermission['decision']) => said(decision === 'always' ? 'pageTools.import.always' : 'pageTools.import.never');
        for (const [origin, decision] of after) {
          if (before.get(origin) === decision) continue;
          rows.push({ change: before.has(origin) ? 'changed' : 'added', name: '', address: origin, local: isLocalNetworkUrl(origin), detail: words(decision) });
        }
        for (const [origin, decision] of before) {
          if (!after.has(origin)) rows.push({ change: 'removed', name: '', address: origin, local: isLocalNetworkUrl(origin), detail: words(decision) });
        }
        return rows;
      },
    },
  },
};

/** The source `list_page_tools` gives its envelope. */
export const PAGE_TOOLS_SOURCE = 'page tools of the tabs in play (each page wrote its own tool names, descriptions, groups, title and address)';

export const listPageTools = defineTool<FromSchema<typeof pageToolsSchemas.list_page_tools>, string, PageToolsManager>({
  name: 'list_page_tools',
  description:
    'List the tools web pages offer (WebMCP, devtools tool discovery: app state, caches, flags, debug endpoints) as untrusted data, to call by name; use it for a web app\'s internals or after a page changed.',
  inputSchema: pageToolsSchemas.list_page_tools,
  annotations: { readOnly: true, destructive: false, openWorld: false, pages: true, target: (input: { tab_id?: number }) => (input.tab_id === undefined ? undefined : { tabId: input.tab_id }) },
  async execute({ tab_id }, { service: pageTools, conversationId, tabId: boundTab }) {
    // Names, descriptions, groups, titles and addresses are the pages' words: one envelope for all.
    const wrap = (tabs: PageToolsListing[]) => untrusted(PAGE_TOOLS_SOURCE, { tabs });
    if (tab_id !== undefined) {
      await browser.tabs.get(tab_id).catch(() => {
        throw new Error(`Tab ${tab_id} does not exist (it may have been closed). List the open tabs to find the right one.`);
      });
      const fresh = await pageTools.refresh(tab_id, 'agent asked');
      if (!fresh) return wrap([{ tab_id, site: '', url: '', title: '', available: false, note: 'This page offers no tools.', tools: [] }]);
      return wrap([toListing(fresh)]);
    }
    // Only the tabs in play: a page merely open in the background puts no tool, name or
    // description before the model, here as in the tools a step offers.
    const inPlay = await pageTools.tabsInPlay(conversationId, boundTab);
    const target = boundTab ?? (await pageTools.userTab());
    if (target !== undefined) await pageTools.refresh(target, 'agent asked');
    return wrap(pageTools.views().filter((view) => inPlay.has(view.tabId)).map(toListing));
  },
});

/**
 * The built-in `page_tools` plugin: bridges the tools web pages offer (devtoolstooldiscovery,
 * WebMCP) into the registry, one page plugin per allowed tab, and gives the agent a fresh list.
 */
export const pageToolsPlugin = definePlugin<PageToolsManager>({
  id: 'page_tools',
  name: 'Page tools',
  description: 'Find the tools web pages offer (devtoolstooldiscovery, WebMCP). The tools themselves appear once you allow a site.',
  tools: [listPageTools],
  settingsFile: pageToolsSettingsFile,
  setup(ctx) {
    const permissions = ctx.storage.item('sitePermissions', { fallback: {}, schema: sitePermissionSchema, legacyKey: 'local:sitePermissions' });
    const manager: PageToolsManager = new PageToolsManager({
      registry: ctx.registry,
      permissions: { load: () => permissions.getValue(), save: (all) => permissions.setValue(all) },
      tabsInPlay: (conversationId, boundTab) => ctx.conversations.tabsInPlay(conversationId, boundTab),
      onChange: () => {
        ctx.broadcast({ type: 'page-tools', tabs: manager.views() });
        ctx.broadcast({ type: 'site-permissions', permissions: manager.listPermissions() });
      },
    });
    manager.listen();
    ctx.retained('sessions', () => manager.retainedSizes().sessions);
    ctx.retained('pendingCalls', () => manager.retainedSizes().pendingCalls);
    ctx.retained('callNames', () => manager.retainedSizes().callNames);
    ctx.retained('refreshWaiters', () => manager.retainedSizes().waiters);
    ctx.onStartup(() => manager.start());
    ctx.onDeleteAll(() => manager.forgetAll());
    ctx.onSettingsImported(async () => manager.applyPermissions(await permissions.getValue()));
    ctx.handle('listPageTools', () => manager.views());
    ctx.handle('refreshPageTools', ({ tabId, reason }) => manager.refresh(tabId, reason ?? 'refresh'));
    ctx.handle('decidePageTools', async ({ origin, decision }) => {
      await manager.decide(origin, decision);
      return manager.views();
    });
    ctx.handle('listSitePermissions', () => manager.listPermissions());
    ctx.handle('revokeSitePermission', async ({ origin }) => {
      await manager.revoke(origin);
      return manager.listPermissions();
    });
    return { service: manager };
  },
});

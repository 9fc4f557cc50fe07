import type { FromSchema } from 'json-schema-to-ts';
import { browser } from 'wxt/browser';
import type { PageToolsManager } from '@/core/page-tools/manager';
import type { PageTabView } from '@/core/page-tools/types';
import { definePlugin, defineTool } from '@/core/registry/registry';
import { pageToolsSchemas } from './schemas';

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
    pending: 'The user has not yet allowed this site\'s tools; the sidebar is asking them. They cannot be called until then.',
    never: 'The user does not allow tools from this site.',
  };
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

/** The built-in `page_tools` plugin: the agent's way to ask pages for a fresh list of their tools. */
export function createPageToolsPlugin(pageTools: PageToolsManager) {
  const listPageTools = defineTool<FromSchema<typeof pageToolsSchemas.list_page_tools>, { tabs: PageToolsListing[] }>({
    name: 'list_page_tools',
    description:
      'Ask web pages for the tools they offer (devtoolstooldiscovery and WebMCP tools an app registers to expose its internal state: caches, feature flags, state trees, debug endpoints). Asks the given tab, or the active tab, for a fresh list and returns every tab\'s page tools with the names to call them by. Use it when the user asks about a web app\'s internals, or after a page changed.',
    inputSchema: pageToolsSchemas.list_page_tools,
    async execute({ tab_id }) {
      let target = tab_id;
      if (target === undefined) {
        const [active] = await browser.tabs.query({ active: true, lastFocusedWindow: true });
        target = active?.id;
      } else {
        await browser.tabs.get(target).catch(() => {
          throw new Error(`Tab ${tab_id} does not exist (it may have been closed). Call list_tabs to see the open tabs.`);
        });
      }
      const fresh = target === undefined ? null : await pageTools.refresh(target, 'agent asked');
      const views = pageTools.views();
      if (tab_id !== undefined) {
        if (!fresh) return { tabs: [{ tab_id, site: '', url: '', title: '', available: false, note: 'This page offers no tools.', tools: [] }] };
        return { tabs: [toListing(fresh)] };
      }
      return { tabs: views.map(toListing) };
    },
  });

  return definePlugin({
    id: 'page_tools',
    source: 'builtin',
    name: 'Page tools',
    description: 'Find the tools web pages offer (devtoolstooldiscovery, WebMCP). The tools themselves appear once you allow a site.',
    tools: [listPageTools],
  });
}

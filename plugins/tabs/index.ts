import type { FromSchema } from 'json-schema-to-ts';
import { browser, type Browser } from 'wxt/browser';
import { waitForTabLoad } from '@/core/tabs/access';
import { readPdf } from '@/core/extract/pdf-reading';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { compileSafeRegex, PATTERN_SYNTAX, PatternError, type SafeRegex } from '@/core/registry/safe-regex';
import { untrusted } from '@/core/registry/untrusted';
import { parseWebAddress } from '@/core/net/web-address';
import { AgentTabs, agentTabRecord, browserTabGroups } from './agent-tabs';
import { getTabContent, type TabsService } from './content';
import './protocol';
import { tabsSchemas } from './schemas';

type Tab = Browser.tabs.Tab;

/** A tab as tools return it: snake_case, only what the model needs. */
export interface TabInfo {
  tab_id: number;
  window_id: number;
  title: string;
  url: string;
  active: boolean;
  audible: boolean;
  status: string;
}

/** A tab as `list_tabs` lists it: also whether this conversation's agent opened it. */
export interface ListedTab extends TabInfo {
  opened_by_agent: boolean;
}

export function toTabInfo(tab: Tab): TabInfo {
  return {
    tab_id: tab.id ?? -1,
    window_id: tab.windowId ?? -1,
    title: tab.title ?? '',
    url: tab.url ?? tab.pendingUrl ?? '',
    active: Boolean(tab.active),
    audible: Boolean(tab.audible),
    status: tab.status ?? 'unknown',
  };
}

/**
 * A tab as `open_tab` and `activate_tab` return it: its title, which the page wrote, inside the
 * untrusted envelope (empty stays empty). The address stays outside: the browser's
 * percent-encoded URL (no spaces, quotes, angle brackets or line breaks), which names the tab.
 */
export function toModelTabInfo(tab: Tab): TabInfo {
  const info = toTabInfo(tab);
  return info.title ? { ...info, title: untrusted(`title of tab ${info.tab_id}, written by its page`, info.title) } : info;
}

/** Fetches a tab or throws an error that tells the model how to recover. */
export async function getTabOrThrow(tabId: number): Promise<Tab> {
  try {
    return await browser.tabs.get(tabId);
  } catch {
    throw new Error(`Tab ${tabId} does not exist (it may have been closed). Call list_tabs to see the open tabs.`);
  }
}

/** Patterns the model gives `list_tabs`: short enough to say what to look for. */
export const MAX_PATTERN_LENGTH = 200;
/**
 * URLs and titles are matched on their first this many characters: a page sets its own title, of
 * any length.
 */
export const MATCH_CHARS = 2048;
/**
 * The largest compiled pattern taken (instructions): one match of it on `MATCH_CHARS` characters
 * costs 0.05 to 0.2 s at worst (50 to 175 ns an instruction and character on the engine's NFA).
 */
export const MAX_PATTERN_PROGRAM = 500;
/** Matching gives the event loop a turn after this long, so other conversations are answered meanwhile. */
const SLICE_MS = 15;

/**
 * Compiles a `list_tabs` pattern on the linear-time engine (core/registry/safe-regex.ts),
 * case-insensitive, or throws an error that tells the model what is allowed.
 */
function compilePattern(raw: string | undefined, field: string): SafeRegex | undefined {
  if (raw === undefined) return undefined;
  if (raw.length > MAX_PATTERN_LENGTH) {
    throw new Error(`${field} is ${raw.length} characters long; give a pattern of at most ${MAX_PATTERN_LENGTH} characters (a distinctive part of the address or title is enough).`);
  }
  try {
    return compileSafeRegex(raw, { ignoreCase: true, maxChars: MAX_PATTERN_LENGTH, maxProgram: MAX_PATTERN_PROGRAM });
  } catch (error) {
    if (error instanceof PatternError) throw new Error(`${field} cannot be used: ${error.message}. ${PATTERN_SYNTAX}`);
    throw error;
  }
}

/** Lets the event loop run (messages of other conversations, the gate) before going on. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The address `open_tab` loads, parsed once as the browser will (`core/net/web-address.ts`): web
 * pages and a blank tab only, never `javascript:`, `file:`, `data:` or browser-internal URLs.
 */
export function checkOpenableUrl(url: string): string {
  try {
    if (new URL(url).href === 'about:blank') return 'about:blank';
  } catch {
    // Not an address at all: the parse below says so.
  }
  return parseWebAddress(url, 'open_tab only opens').href;
}

const LOAD_WAIT_MS = 25_000;

/** The source `list_tabs` gives its envelope. */
export const TAB_LIST_SOURCE = 'the open tabs (each page wrote its own title and chose its address)';

export const listTabs = defineTool<FromSchema<typeof tabsSchemas.list_tabs>, string, TabsService | undefined>({
  name: 'list_tabs',
  description:
    'List the open tabs (tab_id, window, title, url, state, opened_by_agent: you opened it in this conversation) to find a tab_id; titles are untrusted page data.',
  inputSchema: tabsSchemas.list_tabs,
  alwaysOffered: true,
  annotations: { readOnly: true, destructive: false, openWorld: false, pages: true },
  async execute(input, { signal, conversationId, service }) {
    const urlRe = compilePattern(input.url_pattern, 'url_pattern');
    const titleRe = compilePattern(input.title_pattern, 'title_pattern');
    const query: Browser.tabs.QueryInfo = {};
    if (input.active !== undefined) query.active = input.active;
    if (input.window_id !== undefined) query.windowId = input.window_id;
    if (input.audible !== undefined) query.audible = input.audible;
    const mine = (await service?.agentTabs?.openedBy(conversationId)) ?? new Set<number>();
    const tabs = (await browser.tabs.query(query)).map((tab): ListedTab => ({ ...toTabInfo(tab), opened_by_agent: mine.has(tab.id ?? -1) }));
    const found: ListedTab[] = [];
    let since = performance.now();
    for (const tab of tabs) {
      if (urlRe || titleRe) {
        if (performance.now() - since > SLICE_MS) {
          await yieldToEventLoop();
          signal?.throwIfAborted();
          since = performance.now();
        }
        if ((urlRe && !urlRe.test(tab.url.slice(0, MATCH_CHARS))) || (titleRe && !titleRe.test(tab.title.slice(0, MATCH_CHARS)))) continue;
      }
      found.push(tab);
    }
    // One envelope for the whole list, as search results: every title (and address) is a page's.
    return untrusted(TAB_LIST_SOURCE, found);
  },
});

export const openTab = defineTool<FromSchema<typeof tabsSchemas.open_tab>, TabInfo & { loaded: boolean }, TabsService | undefined>({
  name: 'open_tab',
  description:
    'Open a URL in a new tab (or an existing one) and return the tab.',
  inputSchema: tabsSchemas.open_tab,
  // The one parse of the address: the gate's target and the tab get the same href.
  prepare: (input) => ({ ...input, url: checkOpenableUrl(input.url) }),
  // Loads an address (a request to that site, with the user's cookies); with tab_id it replaces
  // the page that tab showed.
  annotations: {
    readOnly: false,
    destructive: false,
    openWorld: true,
    pages: true,
    target: (input: { url: string; tab_id?: number }) => ({ url: input.url, tabId: input.tab_id }),
  },
  async execute(input, { signal, conversationId, service }) {
    // As `prepare` parsed it (a direct call, not through the loop, is checked here all the same).
    const url = checkOpenableUrl(input.url);
    const active = input.active ?? true;
    let tab: Tab;
    if (input.tab_id !== undefined) {
      await getTabOrThrow(input.tab_id);
      tab = (await browser.tabs.update(input.tab_id, { url, active })) ?? (await getTabOrThrow(input.tab_id));
    } else {
      const create: Browser.tabs.CreateProperties = { url, active };
      if (input.window_id !== undefined) create.windowId = input.window_id;
      try {
        tab = await browser.tabs.create(create);
      } catch (error) {
        throw new Error(`Could not open the tab: ${(error as Error).message}`);
      }
      // The one record of the agent's tabs, and its group; a tab it only navigates stays whose it was.
      if (conversationId) await service?.agentTabs?.opened(conversationId, tab).catch((error) => console.warn('[sidequest] the agent\'s tab was not recorded', error));
    }
    if (input.wait_until_loaded ?? true) {
      tab = await waitForTabLoad(tab.id!, LOAD_WAIT_MS, signal);
    }
    return { ...toModelTabInfo(tab), loaded: tab.status === 'complete' };
  },
});

export const closeTab = defineTool<FromSchema<typeof tabsSchemas.close_tab>, { tab_id: number; closed: true }>({
  name: 'close_tab',
  description: 'Close a tab for good (it cannot be reopened).',
  inputSchema: tabsSchemas.close_tab,
  annotations: { readOnly: false, destructive: true, openWorld: false, pages: true, target: (input: { tab_id: number }) => ({ tabId: input.tab_id }) },
  async execute({ tab_id }) {
    await getTabOrThrow(tab_id);
    await browser.tabs.remove(tab_id);
    return { tab_id, closed: true };
  },
});

export const activateTab = defineTool<FromSchema<typeof tabsSchemas.activate_tab>, TabInfo>({
  name: 'activate_tab',
  description: 'Show a tab to the user: make it active and focus its window.',
  inputSchema: tabsSchemas.activate_tab,
  annotations: { readOnly: false, destructive: false, openWorld: false, pages: true, target: (input: { tab_id: number }) => ({ tabId: input.tab_id }) },
  async execute({ tab_id }) {
    const before = await getTabOrThrow(tab_id);
    const tab = (await browser.tabs.update(tab_id, { active: true })) ?? before;
    if (before.windowId !== undefined) {
      // Focusing can fail where windows are not focusable (a headless browser): the tab is still active.
      await browser.windows.update(before.windowId, { focused: true }).catch(() => undefined);
    }
    return toModelTabInfo({ ...tab, active: true });
  },
});

/** The built-in `tabs` plugin. */
export const tabsPlugin = definePlugin<TabsService | undefined>({
  id: 'tabs',
  name: 'Tabs',
  description: 'See, open, switch and close browser tabs.',
  tools: [listTabs, getTabContent, openTab, closeTab, activateTab],
  setup(ctx) {
    const agentTabs = new AgentTabs({
      record: agentTabRecord,
      groups: browserTabGroups,
      title: async (conversationId) => (await ctx.conversations.get(conversationId))?.title,
      changed: (conversationId, left) => ctx.broadcast({ type: 'agent-tabs', conversationId, left }),
    });
    const onRemoved = (tabId: number) => void agentTabs.removed(tabId).catch(() => undefined);
    const onUpdated = (tabId: number, info: Browser.tabs.OnUpdatedInfo) => {
      if (info.groupId !== undefined) void agentTabs.regrouped(tabId).catch(() => undefined);
    };
    browser.tabs.onRemoved.addListener(onRemoved);
    browser.tabs.onUpdated.addListener(onUpdated);
    // The conversation may have been renamed meanwhile: its group follows.
    ctx.conversations.onRunEnd((conversationId) => agentTabs.retitle(conversationId));
    ctx.conversations.onDeleted((conversationId) => agentTabs.forget(conversationId));
    ctx.handle('tabs/agentTabs', async ({ conversationId }) => ({ left: (await agentTabs.leftOpen(conversationId)).length }));
    ctx.handle('tabs/closeAgentTabs', async ({ conversationId }) => ({ closed: await agentTabs.close(conversationId) }));
    ctx.handle('tabs/keepAgentTabs', ({ conversationId }) => agentTabs.keep(conversationId));
    return {
      service: { getModelClient: ctx.getModelClient, readPdf: (bytes, source) => readPdf(ctx.offscreen, bytes, source), agentTabs },
      dispose: () => {
        browser.tabs.onRemoved.removeListener(onRemoved);
        browser.tabs.onUpdated.removeListener(onUpdated);
      },
    };
  },
});

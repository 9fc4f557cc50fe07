import { browser, type Browser } from 'wxt/browser';
import { z } from 'zod';
import { defineSetting, lazy } from '@/core/storage/setting';

/**
 * The record of the tabs the agent opened, by conversation, and their tab group: the one place
 * that says "this conversation's agent opened tab N". Only `open_tab` opens tabs for the agent, so
 * the tabs plugin keeps it (a plugin that came to open tabs too would move it to `core/tabs`, offered
 * through `PluginContext`).
 *
 * - Each new tab goes into the conversation's group in its window (made on the first one: named
 *   after the conversation, a colour of its own), where the browser has tab groups (Chrome's
 *   `tabGroups`, Firefox 139's); elsewhere nothing is grouped and the record still marks the tabs.
 *   Only the agent's new tab is ever grouped: the user's tabs are never moved.
 * - A tab the user took out of the agent's group (or whose group they ungrouped) is theirs: Close
 *   leaves it alone. So do Keep them's tabs, closed tabs and the extension's own pages.
 * - Kept in `storage.session`, so it outlives Chrome stopping the service worker (tab and group
 *   ids hold for the browser's session, as `storage.session` does); a closed tab leaves it.
 */

/** A tab the agent opened: its id, the group it was put in, and whether the user said Keep them. */
export interface AgentTab {
  id: number;
  group?: number;
  kept?: boolean;
}

export type AgentTabRecord = Record<string, AgentTab[]>;

export const agentTabRecord = defineSetting<AgentTabRecord>('session:agentTabs', {
  fallback: {},
  schema: lazy(() =>
    z.record(z.string(), z.array(z.object({ id: z.number().int(), group: z.number().int().optional(), kept: z.boolean().optional() }))),
  ),
  version: 1,
});

/** The colours both browsers give a group ('grey' left out: it reads as no colour). */
export const GROUP_COLORS = ['blue', 'red', 'yellow', 'green', 'pink', 'purple', 'cyan', 'orange'] as const;
export type GroupColor = (typeof GROUP_COLORS)[number];

/** The conversation's colour: the same every time for one conversation (a hash of its id). */
export function groupColor(conversationId: string): GroupColor {
  let hash = 0;
  for (let i = 0; i < conversationId.length; i++) hash = (Math.imul(hash, 31) + conversationId.charCodeAt(i)) | 0;
  return GROUP_COLORS[Math.abs(hash) % GROUP_COLORS.length]!;
}

/** A group's name: the conversation's title, cut to what a tab strip shows. */
export const MAX_GROUP_TITLE = 40;
export function groupTitle(title: string): string {
  const clean = title.replace(/\s+/g, ' ').trim();
  return clean.length > MAX_GROUP_TITLE ? `${clean.slice(0, MAX_GROUP_TITLE - 1).trimEnd()}…` : clean;
}

/** What the tab group APIs give: `tabs.group` and `tabGroups.get`/`update`. */
export interface TabGroupsApi {
  group(options: { tabIds: number[]; groupId?: number; createProperties?: { windowId?: number } }): Promise<number>;
  get(groupId: number): Promise<{ id: number; windowId: number; title?: string }>;
  update(groupId: number, properties: { title?: string; color?: GroupColor }): Promise<unknown>;
}

/** The browser's tab groups, or undefined where it has none (an older Firefox, another browser). */
export function browserTabGroups(): TabGroupsApi | undefined {
  const tabs = browser.tabs as Partial<typeof browser.tabs>;
  const groups = (browser as { tabGroups?: Partial<typeof browser.tabGroups> }).tabGroups;
  if (typeof tabs.group !== 'function' || typeof groups?.get !== 'function' || typeof groups.update !== 'function') return undefined;
  return {
    group: (options) => browser.tabs.group(options as Browser.tabs.GroupOptions),
    get: (groupId) => browser.tabGroups.get(groupId),
    update: (groupId, properties) => browser.tabGroups.update(groupId, properties),
  };
}

export interface AgentTabsDeps {
  record: { getValue(): Promise<AgentTabRecord>; setValue(value: AgentTabRecord): Promise<void> };
  /** The tab group APIs now (undefined: none). */
  groups(): TabGroupsApi | undefined;
  /** The conversation's title (undefined: it is gone). */
  title(conversationId: string): Promise<string | undefined>;
  /** The conversation's tabs left open changed: tell the pages. */
  changed(conversationId: string, left: number): void;
}

/** The conversation whose agent opened the tab, if any. */
function conversationOf(all: AgentTabRecord, tabId: number): string | undefined {
  return Object.keys(all).find((c) => all[c]!.some((t) => t.id === tabId));
}

/** The agent's tabs of every conversation (see the file's comment). */
export class AgentTabs {
  /** Changes run one at a time: two tabs opened at once must not make two groups. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: AgentTabsDeps) {}

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The agent opened `tab` for the conversation: recorded, and put in the conversation's group. */
  async opened(conversationId: string, tab: Browser.tabs.Tab): Promise<void> {
    const tabId = tab.id;
    if (tabId === undefined) return;
    await this.serial(async () => {
      const all = await this.deps.record.getValue();
      const list = all[conversationId] ?? [];
      if (list.some((t) => t.id === tabId)) return;
      const entry: AgentTab = { id: tabId };
      const api = this.deps.groups();
      if (api && tab.windowId !== undefined) {
        try {
          entry.group = await this.group(api, conversationId, list, tabId, tab.windowId);
        } catch (error) {
          // A window that takes no groups (a popup), a tab gone meanwhile: the tab is still the agent's.
          console.warn('[sidequest] the agent\'s tab was not grouped', error);
        }
      }
      await this.deps.record.setValue({ ...all, [conversationId]: [...list, entry] });
    });
    await this.announce(conversationId);
  }

  /** Puts the tab in the conversation's group in its window, made if there is none; returns its id. */
  private async group(api: TabGroupsApi, conversationId: string, list: AgentTab[], tabId: number, windowId: number): Promise<number> {
    const title = groupTitle((await this.deps.title(conversationId)) ?? '');
    for (const groupId of new Set(list.flatMap((t) => (t.group === undefined ? [] : [t.group])))) {
      const existing = await api.get(groupId).catch(() => undefined);
      if (existing?.windowId !== windowId) continue;
      await api.group({ groupId, tabIds: [tabId] });
      if (existing.title !== title) await api.update(groupId, { title });
      return groupId;
    }
    const groupId = await api.group({ tabIds: [tabId], createProperties: { windowId } });
    await api.update(groupId, { title, color: groupColor(conversationId) });
    return groupId;
  }

  /** The tabs the conversation's agent opened that are still open (list_tabs marks them). */
  async openedBy(conversationId: string | undefined): Promise<Set<number>> {
    if (!conversationId) return new Set();
    return new Set(((await this.deps.record.getValue())[conversationId] ?? []).map((t) => t.id));
  }

  /**
   * The conversation's agent tabs still open that Close would close: not kept, not taken out of
   * the agent's group by the user, not an extension page (the sidebar opened in a tab).
   */
  async leftOpen(conversationId: string): Promise<number[]> {
    const own = browser.runtime.getURL('/');
    const left: number[] = [];
    for (const entry of (await this.deps.record.getValue())[conversationId] ?? []) {
      if (entry.kept) continue;
      const tab = await browser.tabs.get(entry.id).catch(() => undefined);
      if (!tab || (tab.url ?? '').startsWith(own)) continue;
      if (entry.group !== undefined && tab.groupId !== entry.group) continue;
      left.push(entry.id);
    }
    return left;
  }

  /** Closes the conversation's agent tabs left open (`leftOpen`); returns how many. */
  async close(conversationId: string): Promise<number> {
    const ids = await this.serial(async () => {
      const left = await this.leftOpen(conversationId);
      if (left.length) await browser.tabs.remove(left);
      await this.without(conversationId, new Set(left));
      return left;
    });
    await this.announce(conversationId);
    return ids.length;
  }

  /** Keep them: the tabs left open stay, and are not offered for closing again. */
  async keep(conversationId: string): Promise<void> {
    await this.serial(async () => {
      const left = new Set(await this.leftOpen(conversationId));
      const all = await this.deps.record.getValue();
      const list = all[conversationId];
      if (!list) return;
      await this.deps.record.setValue({ ...all, [conversationId]: list.map((t) => (left.has(t.id) ? { ...t, kept: true } : t)) });
    });
    await this.announce(conversationId);
  }

  /** The conversation's groups take its title again (it may have changed since they were made). */
  async retitle(conversationId: string): Promise<void> {
    const api = this.deps.groups();
    const list = (await this.deps.record.getValue())[conversationId];
    if (!api || !list?.length) return;
    const title = await this.deps.title(conversationId);
    if (title === undefined) return;
    for (const groupId of new Set(list.flatMap((t) => (t.group === undefined ? [] : [t.group])))) {
      const group = await api.get(groupId).catch(() => undefined);
      if (group && group.title !== groupTitle(title)) await api.update(groupId, { title: groupTitle(title) }).catch(() => undefined);
    }
  }

  /** A tab closed (by anyone): it leaves the record. */
  async removed(tabId: number): Promise<void> {
    const conversationId = await this.serial(async () => {
      const id = conversationOf(await this.deps.record.getValue(), tabId);
      if (id) await this.without(id, new Set([tabId]));
      return id;
    });
    if (conversationId) await this.announce(conversationId);
  }

  /** A tab changed group (the user took an agent's tab out, or put it back): the pages hear the new count. */
  async regrouped(tabId: number): Promise<void> {
    const conversationId = conversationOf(await this.deps.record.getValue(), tabId);
    if (conversationId) await this.announce(conversationId);
  }

  /** The conversation is deleted: its record goes (its tabs stay open, the user's now). */
  async forget(conversationId: string): Promise<void> {
    await this.serial(() => this.without(conversationId));
  }

  /** Drops `ids` (all of them when not given) from the conversation's record. */
  private async without(conversationId: string, ids?: Set<number>): Promise<void> {
    const all = await this.deps.record.getValue();
    const list = all[conversationId];
    if (!list) return;
    const rest = ids ? list.filter((t) => !ids.has(t.id)) : [];
    const next = { ...all };
    if (rest.length) next[conversationId] = rest;
    else delete next[conversationId];
    await this.deps.record.setValue(next);
  }

  private async announce(conversationId: string): Promise<void> {
    this.deps.changed(conversationId, (await this.leftOpen(conversationId)).length);
  }
}

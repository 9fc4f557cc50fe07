import { describe, expect, it, vi } from 'vitest';
import type { Browser } from 'wxt/browser';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { unwrapUntrusted } from '@/core/registry/untrusted';
import { AgentTabs, agentTabRecord, GROUP_COLORS, groupColor, groupTitle, MAX_GROUP_TITLE, type TabGroupsApi } from './agent-tabs';
import { listTabs, openTab, type ListedTab } from './index';

/**
 * The tab group APIs as both browsers answer them (the fake browser has none): a group lives in
 * one window, `group` moves the tabs into it (their `groupId`), a group with no tabs is gone.
 */
class FakeGroups implements TabGroupsApi {
  readonly groups = new Map<number, { id: number; windowId: number; title?: string; color?: string }>();
  calls: Array<{ tabIds: number[]; groupId?: number }> = [];
  private next = 100;

  async group({ tabIds, groupId, createProperties }: Parameters<TabGroupsApi['group']>[0]): Promise<number> {
    this.calls.push({ tabIds, groupId });
    const id = groupId ?? this.next++;
    if (!this.groups.has(id)) this.groups.set(id, { id, windowId: createProperties?.windowId ?? 1 });
    for (const tabId of tabIds) await fakeBrowser.tabs.update(tabId, { groupId: id } as never);
    return id;
  }

  async get(groupId: number) {
    const group = this.groups.get(groupId);
    const tabs = await fakeBrowser.tabs.query({});
    if (!group || !tabs.some((t) => t.groupId === groupId)) throw new Error(`No group with id: ${groupId}.`);
    return group;
  }

  async update(groupId: number, properties: { title?: string; color?: string }) {
    Object.assign(this.groups.get(groupId)!, properties);
  }
}

/**
 * The fake browser's `tabs.remove` (1.5.2) looks up the closed tab's window by the tab's id: with a
 * window of every small id, closing a tab works as in a browser (the windows hold no tabs here).
 */
async function windowsForEveryTabId(): Promise<void> {
  for (let i = 0; i < 20; i++) await fakeBrowser.windows.create({});
}

async function setUp({ groups = new FakeGroups() as FakeGroups | null, titles = { c1: 'Compare three offers', c2: 'Invoices' } as Record<string, string> } = {}) {
  await windowsForEveryTabId();
  const changes: Array<[string, number]> = [];
  const agentTabs = new AgentTabs({
    record: agentTabRecord,
    groups: () => groups ?? undefined,
    title: async (id) => titles[id],
    changed: (id, left) => changes.push([id, left]),
  });
  fakeBrowser.tabs.onRemoved.addListener((tabId) => void agentTabs.removed(tabId));
  return { agentTabs, groups, changes, titles };
}

const open = async (url: string, windowId?: number) =>
  (await fakeBrowser.tabs.create({ url, active: false, ...(windowId ? { windowId } : {}) })) as unknown as Browser.tabs.Tab;
const context = (agentTabs: AgentTabs, conversationId = 'c1') => ({ signal: new AbortController().signal, conversationId, service: { agentTabs } });
const listed = async (agentTabs: AgentTabs, conversationId = 'c1'): Promise<ListedTab[]> =>
  JSON.parse(unwrapUntrusted(await listTabs.execute({}, context(agentTabs, conversationId)))!.content);

describe("the agent's tabs", () => {
  it('puts the tabs a conversation opens in one group named after it, in its own colour; the user\'s tab stays out', async () => {
    const { agentTabs, groups } = await setUp();
    const users = await open('https://mail.example/');
    const [a, b] = [await open('https://shop-a.example/'), await open('https://shop-b.example/')];
    // Opened side by side, as two calls of one step: still one group.
    await Promise.all([agentTabs.opened('c1', a), agentTabs.opened('c1', b)]);

    expect(groups!.groups.size).toBe(1);
    const [group] = [...groups!.groups.values()];
    expect(group).toMatchObject({ title: 'Compare three offers', color: groupColor('c1') });
    expect((await fakeBrowser.tabs.get(a.id!)).groupId).toBe(group!.id);
    expect((await fakeBrowser.tabs.get(b.id!)).groupId).toBe(group!.id);
    expect((await fakeBrowser.tabs.get(users.id!)).groupId).toBeUndefined();
    // Only the agent's new tab is ever named in a grouping call.
    expect(groups!.calls.flatMap((c) => c.tabIds)).toEqual([a.id, b.id]);
    expect(await agentTabs.leftOpen('c1')).toEqual([a.id, b.id]);
  });

  it('gives each conversation its own group and a stable colour; a group\'s name is the title, cut short', async () => {
    const { agentTabs, groups } = await setUp();
    await agentTabs.opened('c1', await open('https://a.example/'));
    await agentTabs.opened('c2', await open('https://b.example/'));
    expect([...groups!.groups.values()].map((g) => g.title)).toEqual(['Compare three offers', 'Invoices']);
    expect(groupColor('c1')).toBe(groupColor('c1'));
    expect(new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map(groupColor)).size).toBeGreaterThan(3);
    expect(GROUP_COLORS).not.toContain('grey');
    const long = groupTitle(`  Find   the ${'very '.repeat(20)}cheapest flight`);
    expect(long.length).toBeLessThanOrEqual(MAX_GROUP_TITLE);
    expect(long).toMatch(/^Find the very very .*…$/);
  });

  it('makes another group for a tab opened in another window', async () => {
    const { agentTabs, groups } = await setUp();
    const other = await fakeBrowser.windows.create({});
    await agentTabs.opened('c1', await open('https://a.example/'));
    await agentTabs.opened('c1', await open('https://b.example/', other.id));
    expect([...groups!.groups.values()].map((g) => g.windowId)).toEqual([expect.any(Number), other.id]);
  });

  it('follows the conversation\'s title when it changes', async () => {
    const { agentTabs, groups, titles } = await setUp();
    await agentTabs.opened('c1', await open('https://a.example/'));
    titles.c1 = 'Book the cheapest';
    await agentTabs.retitle('c1');
    expect([...groups!.groups.values()][0]!.title).toBe('Book the cheapest');
  });

  it('Close closes only the agent\'s tabs of that conversation, not one the user took out of the group', async () => {
    const { agentTabs, changes } = await setUp();
    const users = await open('https://mail.example/');
    const [a, b, taken] = [await open('https://a.example/'), await open('https://b.example/'), await open('https://c.example/')];
    const other = await open('https://other.example/');
    for (const tab of [a, b, taken]) await agentTabs.opened('c1', tab);
    await agentTabs.opened('c2', other);
    // The user drags one out of the agent's group: it is theirs now, and the offer counts one less.
    await fakeBrowser.tabs.update(taken.id!, { groupId: -1 } as never);
    await agentTabs.regrouped(taken.id!);
    expect(changes.at(-1)).toEqual(['c1', 2]);

    expect(await agentTabs.close('c1')).toBe(2);
    const open_ = (await fakeBrowser.tabs.query({})).map((t) => t.id);
    expect(open_).toEqual(expect.arrayContaining([users.id, taken.id, other.id]));
    expect(open_).not.toContain(a.id);
    expect(open_).not.toContain(b.id);
    expect(await agentTabs.leftOpen('c2')).toEqual([other.id]);
    expect(changes.at(-1)).toEqual(['c1', 0]);
  });

  it('Keep them keeps the tabs and does not offer them again; a later tab is offered', async () => {
    const { agentTabs } = await setUp();
    const a = await open('https://a.example/');
    await agentTabs.opened('c1', a);
    await agentTabs.keep('c1');
    expect(await agentTabs.leftOpen('c1')).toEqual([]);
    const b = await open('https://b.example/');
    await agentTabs.opened('c1', b);
    expect(await agentTabs.leftOpen('c1')).toEqual([b.id]);
    await agentTabs.close('c1');
    expect((await fakeBrowser.tabs.query({})).map((t) => t.id)).toContain(a.id);
  });

  it('never closes the extension\'s own page, even if the record names it', async () => {
    const { agentTabs } = await setUp({ groups: null });
    const own = await open(fakeBrowser.runtime.getURL('/sidepanel.html'));
    await agentTabs.opened('c1', own);
    expect(await agentTabs.close('c1')).toBe(0);
    expect((await fakeBrowser.tabs.query({})).map((t) => t.id)).toContain(own.id);
  });

  it('without tab groups, nothing is grouped and the tabs are still marked and closed', async () => {
    const { agentTabs } = await setUp({ groups: null });
    const a = await open('https://a.example/');
    await agentTabs.opened('c1', a);
    expect((await fakeBrowser.tabs.get(a.id!)).groupId).toBeUndefined();
    expect((await listed(agentTabs)).find((t) => t.tab_id === a.id)?.opened_by_agent).toBe(true);
    expect(await agentTabs.close('c1')).toBe(1);
  });

  it('a group that fails (a window that takes none) leaves the tab recorded, ungrouped', async () => {
    const groups = new FakeGroups();
    groups.group = async () => {
      throw new Error('Tabs can only be moved to and from normal windows.');
    };
    const { agentTabs } = await setUp({ groups });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const a = await open('https://a.example/');
    await agentTabs.opened('c1', a);
    expect(await agentTabs.leftOpen('c1')).toEqual([a.id]);
    expect(warn).toHaveBeenCalledWith("[sidequest] the agent's tab was not grouped", expect.any(Error));
    warn.mockRestore();
  });

  it('the record is in storage.session: a new service (a restarted worker) knows the tabs; closed tabs and deleted conversations leave it', async () => {
    const first = await setUp();
    const a = await open('https://a.example/');
    const b = await open('https://b.example/');
    await first.agentTabs.opened('c1', a);
    await first.agentTabs.opened('c1', b);
    const again = new AgentTabs({ record: agentTabRecord, groups: () => first.groups ?? undefined, title: async () => 'x', changed: () => undefined });
    expect(await again.leftOpen('c1')).toEqual([a.id, b.id]);
    await fakeBrowser.tabs.remove(a.id!);
    await again.removed(a.id!);
    expect((await agentTabRecord.getValue()).c1!.map((t) => t.id)).toEqual([b.id]);
    await again.forget('c1');
    expect(await agentTabRecord.getValue()).toEqual({});
  });

  it('list_tabs marks the tabs this conversation\'s agent opened, and only those', async () => {
    const { agentTabs } = await setUp();
    const users = await open('https://mail.example/');
    const mine = await open('https://a.example/');
    const theirs = await open('https://b.example/');
    await agentTabs.opened('c1', mine);
    await agentTabs.opened('c2', theirs);
    const marks = Object.fromEntries((await listed(agentTabs)).map((t) => [t.tab_id, t.opened_by_agent]));
    expect(marks).toMatchObject({ [users.id!]: false, [mine.id!]: true, [theirs.id!]: false });
  });

  it('open_tab records a new tab for its conversation; navigating a tab the user had does not make it the agent\'s', async () => {
    const { agentTabs } = await setUp();
    const users = await open('https://mail.example/');
    const made = await openTab.execute({ url: 'https://a.example/', wait_until_loaded: false, active: false }, context(agentTabs));
    await openTab.execute({ url: 'https://b.example/', tab_id: users.id, active: true, wait_until_loaded: false }, context(agentTabs));
    expect([...(await agentTabs.openedBy('c1'))]).toEqual([made.tab_id]);
    // A call without a conversation (a direct call) records nothing.
    await openTab.execute({ url: 'https://c.example/', active: true, wait_until_loaded: false }, { signal: new AbortController().signal, service: { agentTabs } });
    expect(Object.keys(await agentTabRecord.getValue())).toEqual(['c1']);
  });
});

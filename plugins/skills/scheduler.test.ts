// The scheduler (plugins/skills/scheduler.ts) over wxt's fake browser (alarms, notifications): a
// due alarm makes an unattended conversation (grantedAhead) and sends `/name args`; a run missed
// while the browser was closed runs once at start-up; an ask in a scheduled run's conversation
// shows a notification (and one elsewhere does not), whose click shows the conversation; the badge
// counts finished runs not opened; 'skills/uses' and 'skills/schedule'; deleting clears alarms.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { saidOf } from '@/core/i18n/catalog';
import type { PendingApproval } from '@/core/approvals/types';
import type { PluginContext } from '@/core/plugin';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import type { ToolAnnotations } from '@/core/registry/types';
import { openDb } from '@/core/storage/db';
import { pluginStorage } from '@/core/storage/plugin-data';
import { NOTIFICATION_PREFIX, startScheduler } from './scheduler';
import type { SkillStore } from './store-types';
import type { Skill } from './types';

const NOW = Date.parse('2026-06-10T12:00:00Z');
const HOUR = 3_600_000;

const READ_TAB: ToolAnnotations = { readOnly: true, destructive: false, openWorld: false, pages: true, target: (i: { tab_id?: number }, c) => ({ tabId: i.tab_id ?? c.tabId }) };
const CLICK: ToolAnnotations = { readOnly: false, destructive: false, openWorld: true, pages: true, target: (i: { tab_id?: number }, c) => ({ tabId: i.tab_id ?? c.tabId }) };
const OPEN: ToolAnnotations = { readOnly: false, destructive: false, openWorld: true, pages: true, target: (i: { url: string }) => ({ url: i.url }) };
const NOTE: ToolAnnotations = { readOnly: false, destructive: false, openWorld: false };

function registry() {
  const r = new ToolRegistry(interpretedValidators);
  const tool = (name: string, annotations: ToolAnnotations) => defineTool({ name, description: name, annotations, inputSchema: { type: 'object' }, execute: () => ({}) });
  r.register({ id: 'test', name: 'Test', description: '', source: 'builtin', tools: [tool('open_tab', OPEN), tool('read_tab', READ_TAB), tool('click', CLICK), tool('add_note', NOTE)] });
  // A remote server's tool (MCP): an outside tool, granted as its definition reads now.
  r.register({ id: 'server', name: 'Server', description: '', source: 'remote', tools: [tool('srv_log', NOTE)] });
  return r;
}

const skill = (over: Partial<Skill> = {}): Skill => ({
  id: 's1',
  name: 'orders',
  description: 'Check the orders',
  instruction: 'Check my orders since {date}',
  params: [{ name: 'date', example: '2026-06-01' }],
  steps: [
    { tool: 'open_tab', input: { url: 'https://shop.example/orders?since={date}' } },
    { tool: 'read_tab', input: { tab_id: { $tab: { step: 0, path: ['tabId'] } } } },
    { tool: 'click', input: { tab_id: { $tab: { step: 0, path: ['tabId'] } }, ref: { $element: { step: 1, line: '- button "More" [ref=\u0000]', before: [], after: [], index: 0 } } } },
    { tool: 'click', input: { ref: 'e1' } },
    { tool: 'add_note', input: { text: 'seen {date}' } },
  ],
  createdAt: NOW - 10 * 24 * HOUR,
  updatedAt: NOW - 10 * 24 * HOUR,
  ...over,
});

const daily = (next: number, over: Partial<NonNullable<Skill['schedule']>> = {}): NonNullable<Skill['schedule']> => ({
  when: { kind: 'daily', time: '09:00' },
  timeZone: 'Europe/Berlin',
  args: { date: 'last week' },
  grants: [{ tool: 'open_tab', site: 'https://shop.example' }],
  since: NOW - 5 * 24 * HOUR,
  next,
  ...over,
});

function harness(initial: Skill[], db = openDb(`test-scheduler-${Math.random()}`)) {
  const saved = new Map(initial.map((s) => [s.id, structuredClone(s)]));
  let changes = 0;
  const skills: SkillStore = {
    list: async () => [...saved.values()].map((s) => structuredClone(s)),
    get: async (id) => structuredClone(saved.get(id)),
    put: async (s) => void saved.set(s.id, structuredClone(s)),
    changed: () => void changes++,
  };
  const startups: Array<() => unknown> = [];
  const runEnds: Array<(id: string) => unknown> = [];
  const deletions: Array<(id: string) => unknown> = [];
  const asks: Array<(a: PendingApproval) => unknown> = [];
  const deleteAll: Array<() => unknown> = [];
  const handlers = new Map<string, (data: unknown) => unknown>();
  const created: Array<{ id: string; title: string; grantedAhead?: unknown }> = [];
  const sent: Array<{ id: string; text: string }> = [];
  const shown: string[] = [];
  const badge: number[] = [];
  const ctx = {
    pluginId: 'skills',
    registry: registry(),
    storage: pluginStorage(db, 'skills'),
    handle: (type: string, handler: (data: unknown) => unknown) => void handlers.set(type, handler),
    setBadgeCount: (n: number) => void badge.push(n),
    onStartup: (task: () => unknown) => void startups.push(task),
    onDeleteAll: (l: () => unknown) => void deleteAll.push(l),
    showConversation: async (id: string) => void shown.push(id),
    approvals: { onAsk: (l: (a: PendingApproval) => unknown) => void asks.push(l) },
    conversations: {
      onRunEnd: (l: (id: string) => unknown) => void runEnds.push(l),
      onDeleted: (l: (id: string) => unknown) => void deletions.push(l),
      create: async ({ title, grantedAhead }: { title: string; grantedAhead?: unknown }) => {
        const conversation = { id: `conv${created.length + 1}`, title, ...(grantedAhead ? { grantedAhead } : {}) };
        created.push(conversation);
        return conversation;
      },
      send: async (id: string, text: string) => void sent.push({ id, text }),
    },
  } as unknown as PluginContext;
  const scheduler = startScheduler(ctx, skills);
  return {
    db,
    scheduler,
    saved,
    created,
    sent,
    shown,
    badge,
    changes: () => changes,
    startUp: async () => {
      for (const task of startups) await task();
    },
    call: (type: string, data: unknown) => handlers.get(type)!(data),
    runEnded: async (id: string) => {
      for (const l of runEnds) await l(id);
    },
    deleted: async (id: string) => {
      for (const l of deletions) await l(id);
    },
    ask: async (approval: Partial<PendingApproval>) => {
      for (const l of asks) await l({ id: 'a1', tool: 'click', site: 'https://shop.example', arguments: '{}', reason: 'acting', scope: 'call', askedAt: NOW, expiresAt: NOW + 300_000, ...approval });
    },
    deleteAll: async () => {
      for (const l of deleteAll) await l();
    },
  };
}

/** Whether the fake event has a listener (the fake has `hasListeners`; its types do not say so). */
const listening = (event: object) => (event as { hasListeners(): boolean }).hasListeners();

const alarmTimes = async () => Object.fromEntries((await fakeBrowser.alarms.getAll()).map((a) => [a.name, a.scheduledTime]));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the scheduler', () => {
  it('listens to alarms and notification clicks at once, before any await (a woken worker)', () => {
    harness([]);
    expect(listening(fakeBrowser.alarms.onAlarm)).toBe(true);
    expect(listening(fakeBrowser.notifications.onClicked)).toBe(true);
  });

  it('arms one alarm per scheduled skill at start-up, and clears one whose skill is gone', async () => {
    const next = NOW + 3 * HOUR;
    await fakeBrowser.alarms.create('skills:gone', { when: NOW + HOUR });
    await fakeBrowser.alarms.create('other', { when: NOW + HOUR });
    const h = harness([skill({ schedule: daily(next) }), skill({ id: 's2', name: 'plain' })]);
    await h.startUp();
    expect(await alarmTimes()).toEqual({ 'skills:s1': next, other: NOW + HOUR });
    expect(h.created).toEqual([]);
  });

  it('a due alarm makes the conversation with what was granted ahead and sends /name with the arguments', async () => {
    const next = NOW + 2000;
    const h = harness([skill({ schedule: daily(next, { args: { date: 'last week' } }) })]);
    await h.startUp();
    vi.setSystemTime(next);
    await fakeBrowser.alarms.onAlarm.trigger({ name: 'skills:s1', scheduledTime: next });
    await vi.waitFor(() => expect(h.sent).toHaveLength(1));
    expect(h.created).toHaveLength(1);
    expect(h.created[0]!.title).toMatch(/^orders — .*2026/);
    expect(h.created[0]!.grantedAhead).toEqual([{ tool: 'open_tab', site: 'https://shop.example' }]);
    expect(h.sent[0]).toEqual({ id: 'conv1', text: '/orders date="last week"' });
    // Written back: when it ran and the next run (tomorrow 09:00 in Berlin), re-armed.
    const after = h.saved.get('s1')!.schedule!;
    expect(after.lastRun).toBe(next);
    expect(after.next).toBe(Date.parse('2026-06-11T07:00:00Z'));
    expect(await alarmTimes()).toEqual({ 'skills:s1': after.next });
    expect(h.changes()).toBeGreaterThan(0);
    // The same alarm again (a duplicate delivery): nothing runs twice.
    await fakeBrowser.alarms.onAlarm.trigger({ name: 'skills:s1', scheduledTime: next });
    await new Promise((r) => setTimeout(r, 20));
    expect(h.sent).toHaveLength(1);
  });

  it('a run missed while the browser was closed runs once at start-up, and the next is counted from now', async () => {
    // Three days of daily runs missed.
    const h = harness([skill({ schedule: daily(NOW - 3 * 24 * HOUR) })]);
    await h.startUp();
    expect(h.sent).toEqual([{ id: 'conv1', text: '/orders date="last week"' }]);
    expect(h.saved.get('s1')!.schedule!.next).toBe(Date.parse('2026-06-11T07:00:00Z'));
    // Chrome also delivers the missed alarm when it starts: it finds nothing due.
    await fakeBrowser.alarms.onAlarm.trigger({ name: 'skills:s1', scheduledTime: NOW - 3 * 24 * HOUR });
    await new Promise((r) => setTimeout(r, 20));
    expect(h.sent).toHaveLength(1);
  });

  it('a `once` runs once and then has no alarm', async () => {
    const next = NOW + 5000;
    const h = harness([skill({ schedule: daily(next, { when: { kind: 'once', at: '2026-06-10T14:00' }, args: {} }) })]);
    await h.startUp();
    vi.setSystemTime(next);
    await fakeBrowser.alarms.onAlarm.trigger({ name: 'skills:s1', scheduledTime: next });
    await vi.waitFor(() => expect(h.sent).toEqual([{ id: 'conv1', text: '/orders' }]));
    expect(h.saved.get('s1')!.schedule).toMatchObject({ lastRun: next });
    expect(h.saved.get('s1')!.schedule!.next).toBeUndefined();
    expect(await alarmTimes()).toEqual({});
  });

  it('an ask in a scheduled run\'s conversation shows a notification; one elsewhere does not; a click shows the conversation', async () => {
    const h = harness([skill({ schedule: daily(NOW - HOUR) })]);
    await h.startUp();
    await h.ask({ conversationId: 'elsewhere' });
    await h.ask({ conversationId: undefined });
    expect(await fakeBrowser.notifications.getAll()).toEqual({});
    await h.ask({ conversationId: 'conv1', tool: 'click', site: 'https://shop.example' });
    const shown = await fakeBrowser.notifications.getAll();
    expect(Object.keys(shown)).toEqual([`${NOTIFICATION_PREFIX}conv1`]);
    expect(shown[`${NOTIFICATION_PREFIX}conv1`]).toMatchObject({ type: 'basic', title: 'orders waits for your yes', message: 'orders waits for your yes: click on https://shop.example' });
    // Kept in the plugin's storage too (headless Firefox closes notifications at once: e2e tests read this).
    const rows = await h.db.pluginData.toArray();
    expect(rows.find((r) => r.key === 'skills/scheduledRuns')?.value).toMatchObject([{ conversationId: 'conv1', notified: NOW }]);
    await fakeBrowser.notifications.onClicked.trigger(`${NOTIFICATION_PREFIX}conv1`);
    await vi.waitFor(() => expect(h.shown).toEqual(['conv1']));
    // Another plugin's notification is not ours to open.
    await fakeBrowser.notifications.onClicked.trigger('mcp:something');
    expect(h.shown).toEqual(['conv1']);
  });

  it('the runs survive a worker restart: a new scheduler on the same storage still knows conv1 is a scheduled run', async () => {
    const first = harness([skill({ schedule: daily(NOW - HOUR) })]);
    await first.startUp();
    expect(first.sent).toHaveLength(1);
    first.scheduler.dispose();
    expect(listening(fakeBrowser.alarms.onAlarm)).toBe(false);
    const second = harness([...first.saved.values()], first.db);
    await second.startUp();
    expect(second.sent).toEqual([]); // ran already: not due again
    await second.ask({ conversationId: 'conv1', site: '' });
    expect(Object.values(await fakeBrowser.notifications.getAll())[0]).toMatchObject({ message: 'orders waits for your yes: click' });
  });

  it('the notification goes when the run ends; the badge counts finished runs until seen', async () => {
    const h = harness([skill({ schedule: daily(NOW - HOUR) })]);
    await h.startUp();
    await h.ask({ conversationId: 'conv1' });
    await h.runEnded('conv1');
    expect(await fakeBrowser.notifications.getAll()).toEqual({});
    expect(h.badge.at(-1)).toBe(1);
    await h.runEnded('not-scheduled');
    expect(h.badge.at(-1)).toBe(1);
    await h.call('skills/seen', { conversationId: 'conv1' });
    expect(h.badge.at(-1)).toBe(0);
    // A follow-up the user ran there later does not count it again.
    await h.runEnded('conv1');
    expect(h.badge.at(-1)).toBe(0);
    // Deleting an unseen run's conversation forgets it.
    await h.startUp(); // (nothing due: the next run is tomorrow)
    vi.setSystemTime(NOW + 24 * HOUR);
    await fakeBrowser.alarms.onAlarm.trigger({ name: 'skills:s1', scheduledTime: NOW + 24 * HOUR });
    await vi.waitFor(() => expect(h.sent).toHaveLength(2));
    // An ask and the run's end at once: neither write is lost.
    await Promise.all([h.ask({ conversationId: 'conv2' }), h.runEnded('conv2')]);
    expect(h.badge.at(-1)).toBe(1);
    const rows = await h.db.pluginData.toArray();
    expect(rows.find((r) => r.key === 'skills/scheduledRuns')?.value).toMatchObject([{ conversationId: 'conv1', seen: true }, { conversationId: 'conv2', finished: true, seen: false }]);
    await h.deleted('conv2');
    expect(h.badge.at(-1)).toBe(0);
  });

  it('a restart counts the finished runs not seen on the badge again without writing the runs back (unless there are too many)', async () => {
    const first = harness([skill({ schedule: daily(NOW - HOUR) })]);
    await first.startUp();
    await first.runEnded('conv1');
    first.scheduler.dispose();
    const second = harness([...first.saved.values()], first.db);
    const put = vi.spyOn(second.db.pluginData, 'put');
    await second.startUp();
    expect(second.badge).toEqual([1]);
    expect(put).not.toHaveBeenCalled();
    second.scheduler.dispose();

    // More runs than are kept: the start-up cuts the list and writes it.
    const many = Array.from({ length: 205 }, (_, i) => ({ conversationId: `c${i}`, skillId: 's1', skill: 'orders', finished: true, seen: true }));
    await second.db.pluginData.put({ key: 'skills/scheduledRuns', value: many });
    const third = harness([...first.saved.values()], first.db);
    await third.startUp();
    const rows = await third.db.pluginData.toArray();
    expect(rows.find((r) => r.key === 'skills/scheduledRuns')?.value).toHaveLength(200);
  });

  it('skills/uses: the tools and sites of the steps, $tab sites from the step that opened it, the user\'s tab with a note', async () => {
    const h = harness([skill()]);
    await h.startUp();
    const uses = (await h.call('skills/uses', { id: 's1' })) as Array<Record<string, unknown>>;
    expect(uses).toEqual([
      { tool: 'open_tab', site: 'https://shop.example', steps: 1, acts: true },
      { tool: 'read_tab', site: 'https://shop.example', steps: 1, acts: false },
      { tool: 'click', site: 'https://shop.example', steps: 1, acts: true },
      { tool: 'click', site: '', steps: 1, acts: true, note: { key: 'skills.schedule.uses.userTab' } },
      { tool: 'add_note', site: '', steps: 1, acts: true },
    ]);
    await expect(h.call('skills/uses', { id: 'nope' })).rejects.toThrow(/no longer exists/);
  });

  it('skills/uses: a page\'s own tool is listed on its tab\'s site with a note, and cannot be granted', async () => {
    const page = skill({
      steps: [
        { tool: 'page*_add_to_cart', input: { sku: '{date}' }, tab: { $tab: { url: 'https://shop.example/cart' } } },
        { tool: 'srv_log', input: { text: 'done' } },
      ],
    });
    const h = harness([page]);
    await h.startUp();
    expect(await h.call('skills/uses', { id: 's1' })).toEqual([
      { tool: 'page*_add_to_cart', site: 'https://shop.example', steps: 1, acts: true, note: { key: 'skills.schedule.uses.pageTool' } },
      { tool: 'srv_log', site: '', steps: 1, acts: true },
    ]);
    const input = { when: { kind: 'hours', every: 2 }, timeZone: 'UTC', args: {}, grants: [{ tool: 'page*_add_to_cart', site: 'https://shop.example' }] };
    await expect(h.call('skills/schedule', { id: 's1', schedule: input })).rejects.toThrow(/cannot be allowed ahead/);
    // The outside tool's grant is pinned to its definition (the form never sends a pin: it is dropped).
    const saved = (await h.call('skills/schedule', { id: 's1', schedule: { ...input, grants: [{ tool: 'srv_log', site: '', pin: 'f'.repeat(64) }] } })) as Skill;
    expect(saved.schedule!.grants).toEqual([{ tool: 'srv_log', site: '', pin: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(saved.schedule!.grants[0]!.pin).not.toBe('f'.repeat(64));
    expect(saved.schedule!.next).toBe(NOW + 2 * HOUR);
  });

  it('a run with nothing granted is still unattended (grantedAhead: [])', async () => {
    const h = harness([skill({ schedule: daily(NOW - HOUR, { grants: [], args: { date: 'a "b"' } }) })]);
    await h.startUp();
    expect(h.created[0]!.grantedAhead).toEqual([]);
    expect(h.sent[0]!.text).toBe('/orders date="a \\"b\\""');
  });

  it('skills/schedule: validates, computes the next run, saves, arms; null removes it and its alarm', async () => {
    const h = harness([skill()]);
    await h.startUp();
    const input = { when: { kind: 'daily', time: '09:00' }, timeZone: 'Europe/Berlin', args: { date: 'today' }, grants: [{ tool: 'click', site: 'https://shop.example' }] };
    const saved = (await h.call('skills/schedule', { id: 's1', schedule: input })) as Skill;
    expect(saved.schedule).toEqual({ ...input, since: NOW, next: Date.parse('2026-06-11T07:00:00Z') });
    expect(h.saved.get('s1')!.schedule).toEqual(saved.schedule);
    expect(await alarmTimes()).toEqual({ 'skills:s1': Date.parse('2026-06-11T07:00:00Z') });
    // A grant for what the skill does not use (a tool on another site) is refused.
    const error = await Promise.resolve(h.call('skills/schedule', { id: 's1', schedule: { ...input, grants: [{ tool: 'click', site: 'https://bank.example' }] } })).catch((e) => e);
    expect(saidOf(error)?.key).toBe('skills.schedule.errors.grant');
    await expect(h.call('skills/schedule', { id: 's1', schedule: { ...input, when: { kind: 'daily', time: '25:00' } } })).rejects.toThrow(/HH:MM/);
    expect(h.saved.get('s1')!.schedule).toEqual(saved.schedule);
    const cleared = (await h.call('skills/schedule', { id: 's1', schedule: null })) as Skill;
    expect(cleared.schedule).toBeUndefined();
    expect(await alarmTimes()).toEqual({});
  });

  it('a skill deleted: its alarm is cleared on sync, or when it fires (and nothing runs)', async () => {
    const h = harness([skill({ schedule: daily(NOW + HOUR) }), skill({ id: 's2', name: 'two', schedule: daily(NOW + HOUR) })]);
    await h.startUp();
    h.saved.delete('s1');
    await h.scheduler.sync();
    expect(Object.keys(await alarmTimes())).toEqual(['skills:s2']);
    h.saved.delete('s2');
    vi.setSystemTime(NOW + HOUR);
    await fakeBrowser.alarms.onAlarm.trigger({ name: 'skills:s2', scheduledTime: NOW + HOUR });
    await vi.waitFor(async () => expect(await alarmTimes()).toEqual({}));
    expect(h.sent).toEqual([]);
  });

  it('Delete all clears every skill alarm and notification, and the badge', async () => {
    await fakeBrowser.alarms.create('other', { when: NOW + HOUR });
    const h = harness([skill({ schedule: daily(NOW - HOUR) }), skill({ id: 's2', name: 'two', schedule: daily(NOW + HOUR) })]);
    await h.startUp();
    await h.ask({ conversationId: 'conv1' });
    await h.deleteAll();
    expect(Object.keys(await alarmTimes())).toEqual(['other']);
    expect(await fakeBrowser.notifications.getAll()).toEqual({});
    expect(h.badge.at(-1)).toBe(0);
  });
});

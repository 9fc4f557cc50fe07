import { browser } from 'wxt/browser';
import { z } from 'zod';
import { definitionPin } from '@/core/approvals/card';
import { translate, type SaidParams } from '@/core/i18n/catalog';
import { loadCatalog } from '@/core/i18n/load';
import { localeOf, type Locale } from '@/core/i18n/locales';
import { lazy } from '@/core/storage/setting';
import type { PluginContext } from '@/core/plugin';
import { uiLanguage } from '@/core/storage/settings';
import type { PendingApproval } from '@/core/approvals/types';
import { formatCommand } from './command';
import { dueAtStart, nextRun, sayError, validateSchedule } from './schedule';
import type { SkillStore } from './store-types';
import type { Skill } from './types';
import { skillUses } from './uses';
import './protocol';

/** Alarm names: `skills:<skill id>`, one per scheduled skill. */
export const ALARM_PREFIX = 'skills:';
/** Notification ids: `skills-ask:<conversation id>`, one per waiting scheduled run. */
export const NOTIFICATION_PREFIX = 'skills-ask:';
/** An alarm may fire a little early (Firefox rounds): a run this close to its time is due. */
const EARLY_MS = 5_000;

/** A scheduled run's conversation, remembered across worker restarts (the badge, the notifications). */
export interface ScheduledRun {
  conversationId: string;
  skillId: string;
  skill: string;
  /** Its run has ended. */
  finished: boolean;
  /** Opened in the sidebar since its run ended (`skills/seen`). */
  seen: boolean;
  /**
   * When a notification last said it waits for a yes (ms). Kept because a notification may be gone
   * at once (headless Firefox closes every one): an end-to-end test reads it here.
   */
  notified?: number;
}

/** Made at the first read of the runs (`lazy`), not at every start of the background. */
const runsSchema = lazy(() =>
  z.array(
    z.object({ conversationId: z.string(), skillId: z.string(), skill: z.string(), finished: z.boolean(), seen: z.boolean(), notified: z.number().optional() }),
  ),
);

/** At most this many runs are remembered: the oldest seen ones go first. */
const MAX_RUNS = 200;

export interface Scheduler {
  dispose(): void;
  /** Re-arms every skill's alarm from the store (after a skill was deleted or imported: `service.ts`). */
  sync(): Promise<void>;
}

/**
 * Runs scheduled skills (`Skill.schedule`): one `browser.alarms` alarm per scheduled skill
 * (`skills:<id>`, at its next run), made again at every start-up and after every change. A due
 * skill runs in a new unattended conversation "<name> — <date time>" (`grantedAhead`: the gate lets
 * through only the ticked tools on their sites), by sending `/name args` as the user would; a run
 * missed while the browser was closed runs once at the next start. An approval asked in such a
 * conversation shows a notification whose click opens the sidebar at the waiting card; the badge
 * counts finished runs not opened since. Handles 'skills/uses', 'skills/schedule', 'skills/seen'.
 */
export function startScheduler(ctx: PluginContext, skills: SkillStore, options: { now?: () => number } = {}): Scheduler {
  const now = options.now ?? (() => Date.now());
  const runs = ctx.storage.item<ScheduledRun[]>('scheduledRuns', { fallback: [], schema: runsSchema, exported: false });
  let disposed = false;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  // One thing at a time: an alarm and the start-up check may find the same skill due.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const done = queue.then(task);
    queue = done.catch(() => undefined);
    return done;
  };

  // A woken MV3 worker gets the event that woke it at once: listen before any await.
  const onAlarm = (alarm: { name: string }) => {
    if (!alarm.name.startsWith(ALARM_PREFIX)) return;
    const id = alarm.name.slice(ALARM_PREFIX.length);
    void ready.then(() => serial(() => runIfDue(id, false))).catch((error) => console.error('[sidequest] skills: a scheduled run failed:', error));
  };
  const onClicked = (notificationId: string) => {
    if (!notificationId.startsWith(NOTIFICATION_PREFIX)) return;
    const conversationId = notificationId.slice(NOTIFICATION_PREFIX.length);
    void browser.notifications.clear(notificationId).catch(() => undefined);
    void ctx.showConversation(conversationId).catch((error) => console.error('[sidequest] skills: could not show the conversation:', error));
  };
  browser.alarms.onAlarm.addListener(onAlarm);
  browser.notifications.onClicked.addListener(onClicked);

  async function language(): Promise<Locale> {
    let browserLanguage: string | undefined;
    try {
      browserLanguage = browser.i18n.getUILanguage();
    } catch {
      browserLanguage = undefined;
    }
    return localeOf(await uiLanguage.getValue().catch(() => 'auto'), browserLanguage);
  }

  async function words(key: 'notify.title' | 'notify.message' | 'notify.messageNoSite', params: SaidParams): Promise<string> {
    const locale = await language();
    // The background holds English only: the user's language is fetched the first time (else English).
    await loadCatalog(locale).catch((error) => console.error('[sidequest] skills: the words of', locale, 'did not load:', error));
    return translate(locale, `skills.schedule.${key}`, params);
  }

  async function arm(skill: Skill): Promise<void> {
    const name = ALARM_PREFIX + skill.id;
    const next = skill.schedule?.next;
    if (next === undefined) await browser.alarms.clear(name);
    else await browser.alarms.create(name, { when: next });
  }

  /** Every scheduled skill's alarm as its `next` says, and none for a skill that is gone. `known`: the skills as just read. */
  async function sync(known?: Skill[]): Promise<void> {
    const all = known ?? (await skills.list());
    const ids = new Set(all.filter((s) => s.schedule?.next !== undefined).map((s) => s.id));
    for (const alarm of [...(await browser.alarms.getAll())]) {
      if (alarm.name.startsWith(ALARM_PREFIX) && !ids.has(alarm.name.slice(ALARM_PREFIX.length))) await browser.alarms.clear(alarm.name);
    }
    for (const skill of all) if (ids.has(skill.id)) await arm(skill);
  }

  /** Runs the skill if its time has come (`missed`: at start-up, its `next` passed while closed). */
  async function runIfDue(id: string, missed: boolean): Promise<void> {
    const skill = await skills.get(id);
    const schedule = skill?.schedule;
    if (!skill || !schedule) {
      await browser.alarms.clear(ALARM_PREFIX + id);
      return;
    }
    const at = now();
    // A stale alarm (the schedule changed, or this run was done by the start-up check): re-arm.
    if (schedule.next === undefined || schedule.next > at + EARLY_MS) return arm(skill);
    const next = missed ? dueAtStart(schedule, at).next : nextRun(schedule.when, schedule.timeZone, Math.max(at, schedule.next), schedule.since);
    // Written first: a worker that stops half-way never runs it twice.
    const { next: _was, ...rest } = schedule;
    const updated: Skill = { ...skill, schedule: { ...rest, lastRun: at, ...(next === undefined ? {} : { next }) } };
    await skills.put(updated);
    skills.changed();
    await arm(updated);
    await start(updated, at);
  }

  async function start(skill: Skill, at: number): Promise<void> {
    const schedule = skill.schedule!;
    const locale = await language();
    const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: schedule.timeZone }).format(at);
    const conversation = await ctx.conversations.create({ title: `${skill.name} — ${date}`, grantedAhead: schedule.grants });
    await editRuns((list) => void list.push({ conversationId: conversation.id, skillId: skill.id, skill: skill.name, finished: false, seen: false }));
    try {
      await ctx.conversations.send(conversation.id, formatCommand(skill.name, schedule.args));
    } catch (error) {
      console.error(`[sidequest] skills: the scheduled run of /${skill.name} could not start:`, error);
      await finished(conversation.id);
    }
  }

  let runsLock: Promise<unknown> = Promise.resolve();
  /**
   * Reads the runs, lets `change` edit the list, and writes it back (with the badge) unless it
   * returned false: one change at a time (an ask and a run's end may come together). `reading`:
   * the change edits nothing; the list is written only if it had to be cut to `MAX_RUNS`.
   */
  function editRuns(change: (list: ScheduledRun[]) => boolean | void, { reading = false } = {}): Promise<void> {
    const done = runsLock.then(async () => {
      const list = await runs.getValue();
      if (change(list) === false) return;
      let cut = false;
      while (list.length > MAX_RUNS) {
        const old = list.findIndex((r) => r.seen || r.finished);
        list.splice(old >= 0 ? old : 0, 1);
        cut = true;
      }
      if (!reading || cut) await runs.setValue(list);
      ctx.setBadgeCount(list.filter((r) => r.finished && !r.seen).length);
    });
    runsLock = done.catch(() => undefined);
    return done;
  }

  async function finished(conversationId: string): Promise<void> {
    let ours = false;
    await editRuns((list) => {
      const run = list.find((r) => r.conversationId === conversationId);
      ours = Boolean(run);
      // The scheduled run's own end counts; the user's later messages there do not.
      if (!run || run.finished) return false;
      run.finished = true;
      run.seen = false;
    });
    if (ours) await browser.notifications.clear(NOTIFICATION_PREFIX + conversationId).catch(() => undefined);
  }

  async function asked(approval: PendingApproval): Promise<void> {
    if (!approval.conversationId) return;
    const run = (await runs.getValue()).find((r) => r.conversationId === approval.conversationId);
    if (!run || run.finished) return;
    const message = approval.site
      ? await words('notify.message', { skill: run.skill, tool: approval.tool, site: approval.site })
      : await words('notify.messageNoSite', { skill: run.skill, tool: approval.tool });
    await browser.notifications.create(NOTIFICATION_PREFIX + run.conversationId, {
      type: 'basic',
      iconUrl: browser.runtime.getURL('/icon/128.png'),
      title: await words('notify.title', { skill: run.skill }),
      message,
      // Chrome: stays until clicked or the run ends (Firefox ignores it).
      ...(import.meta.env.FIREFOX ? {} : { requireInteraction: true }),
    });
    const at = now();
    await editRuns((list) => {
      const found = list.find((r) => r.conversationId === run.conversationId);
      if (!found) return false;
      found.notified = at;
    });
  }

  ctx.onStartup(async () => {
    try {
      const at = now();
      const all = await skills.list();
      let changed = false;
      for (const skill of all) {
        const schedule = skill.schedule;
        if (!schedule) continue;
        const { due, next } = dueAtStart(schedule, at);
        if (due) {
          changed = true;
          await serial(() => runIfDue(skill.id, true));
        } else if (next !== schedule.next) {
          changed = true;
          const { next: _was, ...rest } = schedule;
          await skills.put({ ...skill, schedule: { ...rest, ...(next === undefined ? {} : { next }) } });
        }
      }
      await serial(() => sync(changed ? undefined : all));
      // A new worker's badge counter starts empty: the finished runs not seen are counted again.
      await editRuns(() => undefined, { reading: true });
    } catch (error) {
      console.error('[sidequest] skills: the schedules could not be checked at start-up:', error);
    } finally {
      markReady();
    }
    // After the others: a due skill's run must see the MCP servers' tools and the remembered permissions.
  }, { last: true });

  ctx.conversations.onRunEnd((conversationId) => finished(conversationId));
  ctx.conversations.onDeleted(async (conversationId) => {
    await editRuns((list) => {
      const at = list.findIndex((r) => r.conversationId === conversationId);
      if (at < 0) return false;
      list.splice(at, 1);
    });
    await browser.notifications.clear(NOTIFICATION_PREFIX + conversationId).catch(() => undefined);
  });
  ctx.approvals.onAsk((approval) => asked(approval));
  ctx.onDeleteAll(async () => {
    for (const alarm of [...(await browser.alarms.getAll())]) if (alarm.name.startsWith(ALARM_PREFIX)) await browser.alarms.clear(alarm.name);
    for (const id of Object.keys(await browser.notifications.getAll())) if (id.startsWith(NOTIFICATION_PREFIX)) await browser.notifications.clear(id);
    ctx.setBadgeCount(0);
  });

  ctx.handle('skills/seen', ({ conversationId }) =>
    editRuns((list) => {
      const run = list.find((r) => r.conversationId === conversationId);
      if (!run || run.seen) return false;
      run.seen = true;
    }),
  );

  ctx.handle('skills/uses', async ({ id }) => {
    const skill = await skills.get(id);
    if (!skill) throw sayError('unknownSkill');
    return skillUses(skill, ctx.registry);
  });

  ctx.handle('skills/schedule', ({ id, schedule }) =>
    serial(async () => {
      const skill = await skills.get(id);
      if (!skill) throw sayError('unknownSkill');
      const updated: Skill = { ...skill, updatedAt: now() };
      if (schedule === null) delete updated.schedule;
      else {
        const at = now();
        const clean = validateSchedule(schedule, skill.params.map((p) => p.name), at);
        // Only the tools and sites the skill uses can be granted (what the form listed).
        const uses = await skillUses(skill, ctx.registry);
        for (const grant of clean.grants) {
          if (!uses.some((u) => u.tool === grant.tool && u.site === grant.site && !u.note)) throw sayError('grant', { tool: grant.tool, site: grant.site || '—' });
          // An outside tool (a server's) is granted as it reads now: changed words ask again.
          const spec = ctx.registry.describe(grant.tool);
          if (spec && spec.source !== 'builtin') grant.pin = await definitionPin(spec);
        }
        const next = nextRun(clean.when, clean.timeZone, at, at);
        if (next === undefined) throw sayError('past');
        updated.schedule = { ...clean, since: at, next };
      }
      await skills.put(updated);
      skills.changed();
      await arm(updated);
      return updated;
    }),
  );

  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      browser.alarms.onAlarm.removeListener(onAlarm);
      browser.notifications.onClicked.removeListener(onClicked);
    },
    sync: () => serial(() => sync()),
  };
}

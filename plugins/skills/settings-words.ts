import { formatDate, formatRelative, t } from '@/core/ui/i18n';
import type { Schedule, ScheduleWhen, Skill } from './types';

/** The day names of the schedule form (0 = Sunday), in the page's language. */
export function dayNames(locale?: string): string[] {
  // 2026-11-29 was a Sunday: seven days from it, at noon UTC so no time zone moves the date.
  const format = new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' });
  return Array.from({ length: 7 }, (_, day) => format.format(Date.UTC(2026, 10, 29 + day, 12)));
}

/** "Daily at 09:00", "Weekly on Monday at 09:00", "Once on 7 Dec 2026 at 09:00", "Every 3 hours". */
export function whenText(when: ScheduleWhen): string {
  switch (when.kind) {
    case 'once': {
      const [date = '', time = ''] = when.at.split('T');
      const [y, m, d] = date.split('-').map(Number);
      const day = y && m && d ? formatDate(Date.UTC(y, m - 1, d, 12), { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }) : date;
      return t('skills.settings.when.once', { date: day, time });
    }
    case 'daily':
      return t('skills.settings.when.daily', { time: when.time });
    case 'weekly':
      return t('skills.settings.when.weekly', { day: dayNames(document.documentElement.lang || undefined)[when.day] ?? String(when.day), time: when.time });
    case 'hours':
      return t('skills.settings.when.hours', { hours: when.every });
  }
}

/** The schedule's line in the list: when it runs, and when next (a past `once` says it ran). */
export function scheduleSummary(schedule: Schedule | undefined, now = Date.now()): string {
  if (!schedule) return t('skills.settings.notScheduled');
  const when = whenText(schedule.when);
  if (schedule.next === undefined || schedule.next === null) return when;
  return t('skills.settings.scheduleNext', { when, next: formatRelative(schedule.next, now) });
}

/** "Last run 3 hours ago" or "Never run" (the schedule's last run). */
export function lastRunText(skill: Skill, now = Date.now()): string {
  const last = skill.schedule?.lastRun;
  return last ? t('skills.settings.lastRun', { when: formatRelative(last, now) }) : t('skills.settings.neverRun');
}

/** The file name of one skill's export: `<name>.sidequest-skill.json`. */
export const skillFileName = (name: string) => `${name.replace(/[^a-z0-9-]/gi, '-') || 'skill'}.sidequest-skill.json`;

/** The file name of Export all: `sidequest-skills-<date>.json`. */
export const allSkillsFileName = (now = new Date()) => `sidequest-skills-${now.toISOString().slice(0, 10)}.json`;

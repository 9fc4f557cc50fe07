import { SaidError } from '@/core/i18n/catalog';
import type { Schedule, ScheduleWhen } from './types';

/**
 * The schedule arithmetic (pure, no extension API): when a scheduled skill runs next, in the
 * schedule's IANA time zone (read through `Intl`, so every zone the browser knows works).
 * - `daily`/`weekly` keep their local wall time across DST changes (09:00 stays 09:00 local);
 *   a time that does not exist that day (02:30 when clocks spring forward 02:00 → 03:00) runs
 *   at the first valid time after it (03:00); a time that happens twice (fall back) runs once,
 *   at its first occurrence.
 * - `hours` is elapsed time: every N hours from `Schedule.since`, whatever the clocks say.
 * - `once` is a local date-time; undefined once it is past.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The most hours `every N hours` may be (a week). */
export const MAX_EVERY_HOURS = 168;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** Whether the browser knows this IANA time zone. */
export function knownTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || !timeZone || timeZone.length > 64) return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** A wall-clock time in some zone. `month` 1–12. */
interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** The wall clock at instant `t` in `timeZone`, as if it were UTC (ms, seconds dropped). */
function wallAt(t: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(t)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  // Some engines still say 24 for midnight even with h23.
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour! % 24, parts.minute!, parts.second!);
}

/** The zone's offset from UTC at instant `t` (ms; positive east of Greenwich). */
function offsetAt(t: number, timeZone: string): number {
  const whole = Math.floor(t / 1000) * 1000;
  return wallAt(whole, timeZone) - whole;
}

/**
 * The instant the wall-clock time `wall` happens in `timeZone`: the first of two (fall back), or
 * the moment the clocks jump past it when it does not exist that day (spring forward).
 */
export function instantOf(wall: Wall, timeZone: string): number {
  const w = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  // The offsets a day before and after cover any transition near it (none is longer than a day).
  const before = offsetAt(w - DAY, timeZone);
  const after = offsetAt(w + DAY, timeZone);
  const candidates = [...new Set([w - before, w - after, w - offsetAt(w, timeZone)])].sort((a, b) => a - b);
  for (const t of candidates) if (t + offsetAt(t, timeZone) === w) return t;
  // A gap: the clocks jumped from `before` to `after` somewhere in [w - after, w - before]; the
  // first valid time after the asked one is the moment of that jump.
  let lo = Math.min(w - after, w - before);
  let hi = Math.max(w - after, w - before);
  const startOffset = offsetAt(lo, timeZone);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(mid, timeZone) === startOffset) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The local date (year, month, day) at instant `t` in `timeZone`. */
function localDate(t: number, timeZone: string): { year: number; month: number; day: number } {
  const d = new Date(wallAt(t, timeZone));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** `date` moved by `days` (month and year ends handled by Date.UTC), with its weekday (0 = Sunday). */
function addDays(date: { year: number; month: number; day: number }, days: number) {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: d.getUTCDay() };
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)$/;

/** "HH:MM" → hours and minutes, or undefined. */
export function parseTime(time: unknown): { hour: number; minute: number } | undefined {
  const m = typeof time === 'string' ? TIME.exec(time) : null;
  return m ? { hour: Number(m[1]), minute: Number(m[2]) } : undefined;
}

/** "YYYY-MM-DDTHH:MM" → a wall-clock time, or undefined (also for dates that do not exist: 02-30). */
export function parseDateTime(at: unknown): Wall | undefined {
  const m = typeof at === 'string' ? DATE_TIME.exec(at) : null;
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (year < 1970 || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return { year, month, day, hour, minute };
}

/**
 * The first time after `after` (ms, strictly later) that `when` is due in `timeZone`; `since` is
 * when the schedule was set (`hours` counts from it). Undefined: a `once` in the past (or a
 * schedule that cannot be read).
 */
export function nextRun(when: ScheduleWhen, timeZone: string, after: number, since: number): number | undefined {
  switch (when.kind) {
    case 'once': {
      const wall = parseDateTime(when.at);
      if (!wall) return undefined;
      const t = instantOf(wall, timeZone);
      return t > after ? t : undefined;
    }
    case 'hours': {
      const period = when.every * HOUR;
      if (!(period > 0)) return undefined;
      const k = Math.max(1, Math.floor((after - since) / period) + 1);
      return since + k * period;
    }
    case 'daily':
    case 'weekly': {
      const time = parseTime(when.time);
      if (!time) return undefined;
      const today = localDate(after, timeZone);
      // From the day before (a jump past midnight can move yesterday's time into today) to 8 days on.
      for (let d = -1; d <= 8; d++) {
        const date = addDays(today, d);
        if (when.kind === 'weekly' && date.weekday !== when.day) continue;
        const t = instantOf({ ...date, ...time }, timeZone);
        if (t > after) return t;
      }
      return undefined;
    }
  }
}

/**
 * At start-up: whether the schedule's run was missed while the browser was closed (its `next`
 * has passed), and the next run to arm. A missed run runs once, now, and the next is counted from
 * now: never a burst of every run missed.
 */
export function dueAtStart(schedule: Schedule, now: number): { due: boolean; next: number | undefined } {
  const { next } = schedule;
  if (next === undefined) {
    // A `once` that ran (or lies in the past); the others: computed now.
    return { due: false, next: schedule.when.kind === 'once' ? undefined : nextRun(schedule.when, schedule.timeZone, now, schedule.since) };
  }
  if (next <= now) return { due: true, next: nextRun(schedule.when, schedule.timeZone, now, schedule.since) };
  return { due: false, next };
}

/** A schedule as the form sends it (`skills/schedule`). */
export type ScheduleInput = Omit<Schedule, 'next' | 'lastRun' | 'since'>;

const MAX_GRANTS = 100;

/**
 * Checks a schedule from the form (the pages are ours, but a message is data: every field is
 * checked) and returns it clean, or throws a `SaidError` saying what to fix. `params`: the names
 * the skill takes (an argument for another name is refused). `now`: a `once` must lie ahead.
 */
export function validateSchedule(input: unknown, params: string[], now: number): ScheduleInput {
  const fail = (key: Parameters<typeof sayError>[0], values?: Record<string, string | number>): never => {
    throw sayError(key, values);
  };
  if (!input || typeof input !== 'object') fail('shape');
  const raw = input as Record<string, unknown>;
  if (!knownTimeZone(raw.timeZone)) fail('timeZone', { zone: String(raw.timeZone ?? '').slice(0, 64) });
  const timeZone = raw.timeZone as string;
  const w = raw.when as Record<string, unknown> | undefined;
  let when: ScheduleWhen;
  switch (w && typeof w === 'object' ? w.kind : undefined) {
    case 'once': {
      const wall = parseDateTime(w!.at);
      if (!wall) fail('at');
      if (nextRun({ kind: 'once', at: w!.at as string }, timeZone, now, now) === undefined) fail('past');
      when = { kind: 'once', at: w!.at as string };
      break;
    }
    case 'daily':
      if (!parseTime(w!.time)) fail('time');
      when = { kind: 'daily', time: w!.time as string };
      break;
    case 'weekly':
      if (!parseTime(w!.time)) fail('time');
      if (!Number.isInteger(w!.day) || (w!.day as number) < 0 || (w!.day as number) > 6) fail('day');
      when = { kind: 'weekly', day: w!.day as number, time: w!.time as string };
      break;
    case 'hours':
      if (!Number.isInteger(w!.every) || (w!.every as number) < 1 || (w!.every as number) > MAX_EVERY_HOURS) fail('hours', { max: MAX_EVERY_HOURS });
      when = { kind: 'hours', every: w!.every as number };
      break;
    default:
      return fail('repeat');
  }
  const args: Record<string, string> = {};
  const rawArgs = raw.args ?? {};
  if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) fail('shape');
  for (const [name, value] of Object.entries(rawArgs as Record<string, unknown>)) {
    if (!params.includes(name)) fail('param', { name: name.slice(0, 40) });
    if (typeof value !== 'string' || value.length > 2000) fail('value', { name });
    args[name] = value as string;
  }
  const rawGrants = raw.grants ?? [];
  if (!Array.isArray(rawGrants) || rawGrants.length > MAX_GRANTS) fail('shape');
  const grants = (rawGrants as unknown[]).map((g) => {
    const grant = g as { tool?: unknown; site?: unknown } | null;
    if (!grant || typeof grant.tool !== 'string' || typeof grant.site !== 'string' || !grant.tool || grant.tool.length > 200 || grant.site.length > 500) fail('shape');
    return { tool: grant!.tool as string, site: grant!.site as string };
  });
  return { when, timeZone, args, grants };
}

type ScheduleErrorKey = 'shape' | 'timeZone' | 'repeat' | 'at' | 'past' | 'time' | 'day' | 'hours' | 'param' | 'value' | 'grant' | 'unknownSkill';

/** A schedule error in words (`skills.schedule.errors.*`): English for logs, translated in the page. */
export function sayError(key: ScheduleErrorKey, values?: Record<string, string | number>): SaidError {
  return new SaidError(`skills.schedule.errors.${key}`, values);
}

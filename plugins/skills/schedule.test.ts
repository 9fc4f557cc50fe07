// The schedule arithmetic (plugins/skills/schedule.ts): next runs in IANA time zones, across DST
// changes both ways (Lord Howe's 30-minute shift included), month and year ends, every N hours as
// elapsed time, missed runs (once, never a burst), and the form's validation with its errors.
import { describe, expect, it } from 'vitest';
import { saidOf } from '@/core/i18n/catalog';
import { dueAtStart, instantOf, knownTimeZone, nextRun, validateSchedule } from './schedule';
import type { Schedule, ScheduleWhen } from './types';

const t = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const daily = (time: string): ScheduleWhen => ({ kind: 'daily', time });
const weekly = (day: number, time: string): ScheduleWhen => ({ kind: 'weekly', day, time });

/** The runs after `from`, one after another. */
function runs(when: ScheduleWhen, zone: string, from: string, count: number, since = t(from)): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  let after = t(from);
  for (let i = 0; i < count; i++) {
    const next = nextRun(when, zone, after, since);
    out.push(iso(next));
    if (next === undefined) break;
    after = next;
  }
  return out;
}

describe('nextRun: daily and weekly keep the local time', () => {
  it('UTC: the next day at a year end, and strictly after `after`', () => {
    expect(runs(daily('00:00'), 'UTC', '2026-12-31T12:00:00Z', 2)).toEqual(['2027-01-01T00:00:00.000Z', '2027-01-02T00:00:00.000Z']);
    // Exactly at the time: the next one is the next day's.
    expect(iso(nextRun(daily('09:00'), 'UTC', t('2026-05-01T09:00:00Z'), 0))).toBe('2026-05-02T09:00:00.000Z');
    expect(iso(nextRun(daily('09:00'), 'UTC', t('2026-05-01T08:59:59Z'), 0))).toBe('2026-05-01T09:00:00.000Z');
  });

  it('Asia/Kolkata (+05:30, no DST): month ends and a leap day', () => {
    expect(runs(daily('23:30'), 'Asia/Kolkata', '2026-01-31T18:00:00Z', 2)).toEqual(['2026-02-01T18:00:00.000Z', '2026-02-02T18:00:00.000Z']);
    expect(runs(daily('09:00'), 'Asia/Kolkata', '2028-02-28T04:00:00Z', 2)).toEqual(['2028-02-29T03:30:00.000Z', '2028-03-01T03:30:00.000Z']);
    // 00:15 local is the evening before in UTC: the local date decides.
    expect(iso(nextRun(daily('00:15'), 'Asia/Kolkata', t('2026-03-31T18:00:00Z'), 0))).toBe('2026-03-31T18:45:00.000Z');
  });

  it('America/New_York, spring forward: 09:00 stays 09:00 local; 02:30 does not exist and runs at 03:00', () => {
    expect(runs(daily('09:00'), 'America/New_York', '2026-03-07T12:00:00Z', 3)).toEqual([
      '2026-03-07T14:00:00.000Z', // EST
      '2026-03-08T13:00:00.000Z', // EDT from that morning
      '2026-03-09T13:00:00.000Z',
    ]);
    expect(runs(daily('02:30'), 'America/New_York', '2026-03-07T12:00:00Z', 2)).toEqual([
      '2026-03-08T07:00:00.000Z', // 03:00 EDT: the first valid time after 02:30
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
    ]);
  });

  it('America/New_York, fall back: 01:30 happens twice and runs once', () => {
    expect(runs(daily('01:30'), 'America/New_York', '2026-10-31T12:00:00Z', 3)).toEqual([
      '2026-11-01T05:30:00.000Z', // the first 01:30 (EDT)
      '2026-11-02T06:30:00.000Z', // not 06:30Z on Nov 1 (the second 01:30, EST)
      '2026-11-03T06:30:00.000Z',
    ]);
    // Between the two 01:30s (a run computed from "now" then): still not the second one.
    expect(iso(nextRun(daily('01:30'), 'America/New_York', t('2026-11-01T06:00:00Z'), 0))).toBe('2026-11-02T06:30:00.000Z');
  });

  it('Europe/Berlin: DST both ways, weekly on Sundays', () => {
    // 29 March 2026: 02:00 CET → 03:00 CEST.
    expect(iso(nextRun(weekly(0, '02:30'), 'Europe/Berlin', t('2026-03-25T00:00:00Z'), 0))).toBe('2026-03-29T01:00:00.000Z');
    expect(runs(weekly(0, '09:00'), 'Europe/Berlin', '2026-03-25T00:00:00Z', 2)).toEqual(['2026-03-29T07:00:00.000Z', '2026-04-05T07:00:00.000Z']);
    // 25 October 2026: 03:00 CEST → 02:00 CET; 02:30 twice, run at the first.
    expect(runs(weekly(0, '02:30'), 'Europe/Berlin', '2026-10-20T00:00:00Z', 2)).toEqual(['2026-10-25T00:30:00.000Z', '2026-11-01T01:30:00.000Z']);
    expect(runs(weekly(0, '09:00'), 'Europe/Berlin', '2026-10-20T00:00:00Z', 2)).toEqual(['2026-10-25T08:00:00.000Z', '2026-11-01T08:00:00.000Z']);
  });

  it('Australia/Lord_Howe: a 30-minute DST shift both ways', () => {
    // 4 October 2026: 02:00 → 02:30 (+10:30 → +11). 02:15 does not exist: 02:30.
    expect(runs(daily('02:15'), 'Australia/Lord_Howe', '2026-10-02T12:00:00Z', 3)).toEqual([
      '2026-10-02T15:45:00.000Z', // 3 Oct, 02:15 +10:30
      '2026-10-03T15:30:00.000Z', // 4 Oct, 02:30 +11
      '2026-10-04T15:15:00.000Z', // 5 Oct, 02:15 +11
    ]);
    // 5 April 2026: 02:00 → 01:30 (+11 → +10:30). 01:45 twice: once.
    expect(runs(daily('01:45'), 'Australia/Lord_Howe', '2026-04-03T12:00:00Z', 3)).toEqual([
      '2026-04-03T14:45:00.000Z', // 4 Apr, +11
      '2026-04-04T14:45:00.000Z', // 5 Apr, the first 01:45 (+11)
      '2026-04-05T15:15:00.000Z', // 6 Apr, +10:30
    ]);
  });

  it('weekly: day 0 is Sunday, 6 Saturday; the same day later on runs a week on', () => {
    // Monday 4 May 2026, 10:00 UTC.
    expect(iso(nextRun(weekly(1, '09:00'), 'UTC', t('2026-05-04T10:00:00Z'), 0))).toBe('2026-05-11T09:00:00.000Z');
    expect(iso(nextRun(weekly(1, '11:00'), 'UTC', t('2026-05-04T10:00:00Z'), 0))).toBe('2026-05-04T11:00:00.000Z');
    expect(iso(nextRun(weekly(6, '08:00'), 'UTC', t('2026-05-04T10:00:00Z'), 0))).toBe('2026-05-09T08:00:00.000Z');
    expect(iso(nextRun(weekly(0, '08:00'), 'UTC', t('2026-12-29T10:00:00Z'), 0))).toBe('2027-01-03T08:00:00.000Z');
  });
});

describe('nextRun: once and every N hours', () => {
  it('once: a local date-time; undefined once past; a time in a gap runs when the clocks jump', () => {
    const once = (at: string): ScheduleWhen => ({ kind: 'once', at });
    expect(iso(nextRun(once('2026-12-07T09:00'), 'Europe/Berlin', t('2026-12-01T00:00:00Z'), 0))).toBe('2026-12-07T08:00:00.000Z');
    expect(nextRun(once('2026-12-07T09:00'), 'Europe/Berlin', t('2026-12-07T08:00:00Z'), 0)).toBeUndefined();
    expect(iso(nextRun(once('2026-03-08T02:10'), 'America/New_York', t('2026-03-01T00:00:00Z'), 0))).toBe('2026-03-08T07:00:00.000Z');
    expect(nextRun(once('2026-02-30T10:00'), 'UTC', 0, 0)).toBeUndefined();
  });

  it('every N hours is elapsed time from `since`, whatever the clocks do', () => {
    const since = t('2026-03-08T05:00:00Z'); // midnight EST, the night the clocks spring forward
    expect(runs({ kind: 'hours', every: 24 }, 'America/New_York', '2026-03-08T05:00:00Z', 2, since)).toEqual(['2026-03-09T05:00:00.000Z', '2026-03-10T05:00:00.000Z']);
    expect(iso(nextRun({ kind: 'hours', every: 6 }, 'UTC', since - 1000, since))).toBe('2026-03-08T11:00:00.000Z');
    // Long after (the browser was closed for days): the next slot, not the ones missed.
    expect(iso(nextRun({ kind: 'hours', every: 6 }, 'UTC', since + 100 * 3_600_000 + 1, since))).toBe('2026-03-12T11:00:00.000Z');
    expect(iso(nextRun({ kind: 'hours', every: 6 }, 'UTC', since + 102 * 3_600_000, since))).toBe('2026-03-12T17:00:00.000Z');
  });

  it('instantOf: the first of two, and the jump for a time that does not exist', () => {
    expect(iso(instantOf({ year: 2026, month: 11, day: 1, hour: 1, minute: 0 }, 'America/New_York'))).toBe('2026-11-01T05:00:00.000Z');
    expect(iso(instantOf({ year: 2026, month: 3, day: 8, hour: 2, minute: 0 }, 'America/New_York'))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(instantOf({ year: 2026, month: 7, day: 1, hour: 12, minute: 0 }, 'Asia/Kolkata'))).toBe('2026-07-01T06:30:00.000Z');
  });
});

describe('dueAtStart: a run missed while the browser was closed', () => {
  const schedule = (when: ScheduleWhen, next?: number): Schedule => ({ when, timeZone: 'Europe/Berlin', args: {}, grants: [], since: t('2026-01-01T00:00:00Z'), ...(next === undefined ? {} : { next }) });

  it('three daily runs missed: due once, and the next counted from now', () => {
    const now = t('2026-06-10T12:00:00Z');
    expect(dueAtStart(schedule(daily('09:00'), t('2026-06-07T07:00:00Z')), now)).toEqual({ due: true, next: t('2026-06-11T07:00:00Z') });
  });

  it('not passed yet: not due, the same next', () => {
    const next = t('2026-06-11T07:00:00Z');
    expect(dueAtStart(schedule(daily('09:00'), next), t('2026-06-10T12:00:00Z'))).toEqual({ due: false, next });
  });

  it('a `once` missed runs once; one that ran has no next', () => {
    const when: ScheduleWhen = { kind: 'once', at: '2026-06-09T09:00' };
    expect(dueAtStart(schedule(when, t('2026-06-09T07:00:00Z')), t('2026-06-10T12:00:00Z'))).toEqual({ due: true, next: undefined });
    expect(dueAtStart({ ...schedule(when), lastRun: t('2026-06-09T07:00:00Z') }, t('2026-06-10T12:00:00Z'))).toEqual({ due: false, next: undefined });
  });

  it('every N hours missed for days: one run, then the next slot', () => {
    const s = { ...schedule({ kind: 'hours', every: 4 }, t('2026-01-01T04:00:00Z')) };
    expect(dueAtStart(s, t('2026-01-03T10:30:00Z'))).toEqual({ due: true, next: t('2026-01-03T12:00:00Z') });
  });
});

describe('validateSchedule: what the form sends, with clear errors', () => {
  const now = t('2026-06-01T00:00:00Z');
  const errorOf = (input: unknown, params: string[] = []) => {
    try {
      validateSchedule(input, params, now);
    } catch (error) {
      return { key: saidOf(error)?.key, message: (error as Error).message };
    }
    return undefined;
  };
  const ok = { timeZone: 'Europe/Berlin', args: {}, grants: [] };

  it('a good schedule comes back clean (unknown fields dropped)', () => {
    expect(validateSchedule({ ...ok, when: { kind: 'weekly', day: 3, time: '07:05', extra: 1 }, args: { date: 'today' }, grants: [{ tool: 'read_tab', site: 'https://a.example', more: true }], next: 1 }, ['date'], now)).toEqual({
      when: { kind: 'weekly', day: 3, time: '07:05' },
      timeZone: 'Europe/Berlin',
      args: { date: 'today' },
      grants: [{ tool: 'read_tab', site: 'https://a.example' }],
    });
    expect(validateSchedule({ ...ok, when: { kind: 'hours', every: 168 } }, [], now).when).toEqual({ kind: 'hours', every: 168 });
    expect(validateSchedule({ ...ok, when: { kind: 'once', at: '2026-06-02T10:00' } }, [], now).when).toEqual({ kind: 'once', at: '2026-06-02T10:00' });
  });

  it.each([
    ['a time without two digits', { ...ok, when: { kind: 'daily', time: '9:00' } }, 'time', /HH:MM/],
    ['24:00', { ...ok, when: { kind: 'daily', time: '24:00' } }, 'time', /00:00 to 23:59/],
    ['day 7', { ...ok, when: { kind: 'weekly', day: 7, time: '10:00' } }, 'day', /day of the week/],
    ['0 hours', { ...ok, when: { kind: 'hours', every: 0 } }, 'hours', /from 1 to 168/],
    ['169 hours', { ...ok, when: { kind: 'hours', every: 169 } }, 'hours', /from 1 to 168/],
    ['1.5 hours', { ...ok, when: { kind: 'hours', every: 1.5 } }, 'hours', /whole number/],
    ['an unknown repeat', { ...ok, when: { kind: 'monthly' } }, 'repeat', /Once, Daily, Weekly or Every N hours/],
    ['an unknown time zone', { ...ok, timeZone: 'Mars/Olympus', when: { kind: 'daily', time: '10:00' } }, 'timeZone', /"Mars\/Olympus" is not a time zone/],
    ['a date that does not exist', { ...ok, when: { kind: 'once', at: '2026-02-30T10:00' } }, 'at', /exist/],
    ['a once in the past', { ...ok, when: { kind: 'once', at: '2026-05-31T23:00' } }, 'past', /already passed/],
    ['an argument the skill does not take', { ...ok, when: { kind: 'daily', time: '10:00' }, args: { evil: 'x' } }, 'param', /no parameter named "evil"/],
    ['an argument that is not text', { ...ok, when: { kind: 'daily', time: '10:00' }, args: { date: 5 } }, 'value', /"date" must be text/],
    ['a grant without a tool', { ...ok, when: { kind: 'daily', time: '10:00' }, grants: [{ site: 'https://a.example' }] }, 'shape', /expected form/],
    ['not an object', 'daily', 'shape', /expected form/],
  ])('refuses %s', (_label, input, key, message) => {
    expect(errorOf(input, ['date'])).toMatchObject({ key: `skills.schedule.errors.${key}`, message: expect.stringMatching(message) });
  });

  it('knows the zones Intl knows', () => {
    for (const zone of ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Lord_Howe']) expect(knownTimeZone(zone)).toBe(true);
    for (const zone of ['', 'Nowhere/City', 42, null, 'x'.repeat(100)]) expect(knownTimeZone(zone)).toBe(false);
  });
});

/**
 * Jobs for the offscreen document: work the background cannot always do itself (parse HTML with a
 * DOM, make blob URLs). A plugin declares its jobs as one group in its `offscreen.ts`; the groups
 * are listed in `plugins/offscreen.ts`, which Chrome's offscreen document serves. Each job takes
 * and returns plain data, so it can cross a message boundary.
 */
export type OffscreenJob = (input: any) => unknown;

export interface OffscreenGroup<Jobs extends Record<string, OffscreenJob> = Record<string, OffscreenJob>> {
  /** Unique among groups; the plugin's id. */
  name: string;
  /** True when the calling context can run the jobs itself (Firefox's background page has a DOM). */
  runsHere(): boolean;
  jobs: Jobs;
}

/**
 * What a plugin's background code holds of its group: the name, and the jobs' types only. The
 * plugin imports its `offscreen.ts` as a type (`import type`), so the jobs' code (Readability,
 * Turndown, the result pages' parsers) is in a background bundle only where the background runs
 * them itself: Firefox's, which lists the groups (core/offscreen/host.ts `runOffscreenJobsHere`).
 */
export interface OffscreenRef<Jobs extends Record<string, OffscreenJob> = Record<string, OffscreenJob>> {
  readonly name: string;
  /** Never set: carries the jobs' types. */
  readonly jobs?: Jobs;
}

/*#__NO_SIDE_EFFECTS__*/
export function defineOffscreenGroup<Jobs extends Record<string, OffscreenJob>>(group: OffscreenGroup<Jobs>): OffscreenGroup<Jobs> {
  return group;
}

/** The reference to a group by name, typed by the group: `offscreenRef<typeof webJobs>('web')`. */
export function offscreenRef<Group extends OffscreenGroup>(name: Group['name']): OffscreenRef<Group['jobs']> {
  return { name };
}

/** The one envelope of every message to the offscreen document. */
export interface OffscreenRequest {
  target: typeof OFFSCREEN_TARGET;
  group: string;
  job: string;
  input: unknown;
}

export type OffscreenReply = { ok: true; value: unknown } | { ok: false; error: string };

/** Marks messages meant for the offscreen document; everything else it ignores. */
export const OFFSCREEN_TARGET = 'sidequest:offscreen';

export function isOffscreenRequest(message: unknown): message is OffscreenRequest {
  const m = message as Partial<OffscreenRequest> | null;
  return Boolean(m && m.target === OFFSCREEN_TARGET && typeof m.group === 'string' && typeof m.job === 'string');
}

/** Runs a job here and wraps the outcome (or the error) as a reply. */
export async function runJobHere(group: OffscreenGroup, job: string, input: unknown): Promise<OffscreenReply> {
  const fn = Object.hasOwn(group.jobs, job) ? group.jobs[job] : undefined;
  if (!fn) return { ok: false, error: `The offscreen document has no job "${group.name}.${job}".` };
  try {
    return { ok: true, value: await fn(input) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

import { browser, type Browser } from 'wxt/browser';
import { OFFSCREEN_TARGET, runJobHere, type OffscreenGroup, type OffscreenJob, type OffscreenRef, type OffscreenReply, type OffscreenRequest } from './jobs';

/** The groups this background was given to run itself (`runOffscreenJobsHere`), by name. */
const here = new Map<string, OffscreenGroup>();

/**
 * Gives the background the groups it runs in place: Firefox's background page, which has a DOM,
 * `Worker` and `URL.createObjectURL` (entrypoints/background.ts, in Firefox builds only, so
 * Chrome's service worker bundle holds none of the jobs' code).
 */
export function runOffscreenJobsHere(groups: readonly OffscreenGroup[]): void {
  for (const group of groups) here.set(group.name, group);
}

/**
 * Runs an offscreen job from the background. Where the background was given the group and can do
 * it itself (Firefox's background is a page with a DOM and `URL.createObjectURL`), in place; in
 * Chrome, whose MV3 background is a service worker without them, in the extension's one offscreen
 * document (`entrypoints/offscreen`), created on first use and kept for the next calls.
 */
export async function runOffscreenJob<Jobs extends Record<string, OffscreenJob>, K extends keyof Jobs & string>(
  ref: OffscreenRef<Jobs>,
  job: K,
  input: Parameters<Jobs[K]>[0],
): Promise<Awaited<ReturnType<Jobs[K]>>> {
  const group = here.get(ref.name);
  const reply = group?.runsHere() ? await runJobHere(group, job, input) : await runInOffscreen(ref.name, job, input);
  if (!reply.ok) throw new Error(reply.error);
  return reply.value as Awaited<ReturnType<Jobs[K]>>;
}

const OFFSCREEN_PATH = '/offscreen.html';
let creating: Promise<void> | undefined;

/**
 * Creates Chrome's offscreen document if it is not there yet. Chrome allows one per extension, so
 * it serves every plugin's jobs, and is created with every reason they need.
 */
export async function ensureOffscreenDocument(): Promise<void> {
  const offscreen = browser.offscreen;
  if (!offscreen) throw new Error('This browser has neither a DOM in the background nor offscreen documents.');
  const url = browser.runtime.getURL(OFFSCREEN_PATH);
  const contexts = await browser.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT' as Browser.runtime.ContextType], documentUrls: [url] });
  if (contexts.length > 0) return;
  creating ??= offscreen
    .createDocument({
      url: OFFSCREEN_PATH,
      reasons: ['DOM_PARSER', 'BLOBS', 'WORKERS'] as Browser.offscreen.Reason[],
      justification: 'Parse fetched web pages into Markdown and search result pages into results; read the text of PDFs; make blob URLs for files of the agent\'s workspace; run the agent\'s sandboxed scripts in a worker.',
    })
    .catch((error: unknown) => {
      // Two callers raced; the document exists now, which is all we wanted.
      if (!/single offscreen document/i.test(String((error as Error)?.message))) throw error;
    })
    .finally(() => {
      creating = undefined;
    });
  await creating;
}

async function runInOffscreen(group: string, job: string, input: unknown): Promise<OffscreenReply> {
  await ensureOffscreenDocument();
  const request: OffscreenRequest = { target: OFFSCREEN_TARGET, group, job, input };
  const reply = (await browser.runtime.sendMessage(request)) as OffscreenReply | undefined;
  if (!reply) throw new Error(`The offscreen document did not answer (${group}.${job}).`);
  return reply;
}

import { browser, type Browser } from 'wxt/browser';
import type { ToolContext } from '@/core/registry/types';
import { untrusted } from '@/core/registry/untrusted';
import { TRUSTED_OPS, type ActionReply, type OutlineReply, type PageReply, type PageRequest } from './protocol';
import type { PageActionsService } from './service';
import { assertScriptable, resolveTab, TabError, tabUrl, watchLoads, type LoadWatch } from './tab-access';

/**
 * How a tool call goes, around the page agent: which tab, the acting bar first, the request, and
 * what the model reads back — the page's words in the untrusted envelope, ours outside it. An
 * action that makes the page navigate (a link, a form post, Enter in a search box) returns the new
 * page's address, title and the head of its outline.
 */

type Tab = Browser.tabs.Tab;
export type Context = ToolContext<PageActionsService>;

/** How long an action waits for the page it navigated to. */
export const NAV_WAIT_MS = 15_000;
/** How long after a click (or a key, or a submit) a navigation may still start and be noticed. */
export const NAV_GRACE_MS = 150;
/** How long a call whose page went away mid-call waits to see the new load begin. */
export const NAV_LOST_MS = 2_000;
/** The head of a new page's outline, returned after a navigation. */
export const HEAD_CHARS = 3_000;

/** What every action returns. */
export interface ActionResult {
  tab_id: number;
  url: string;
  /** The page's title (in the envelope: the page wrote it). */
  title: string;
  /** The outline of what changed (in the envelope), or our words for no change. */
  changed: string;
  /** What was done: our words, with the page's (names of elements) in the envelope. */
  note: string;
  /** `clipboard` copy/cut: what the page put on its clipboard, or the selected text (in the envelope). */
  clipboard?: string;
}

export const NO_CHANGE = 'No visible change.';

/** The page's title, in the envelope (empty stays empty). */
export function pageTitle(tabId: number, title: string): string {
  return title ? untrusted(`title of tab ${tabId}, written by its page`, title) : '';
}

/**
 * The tab a call works in, checked, after the acting bar is up and while the user does not have
 * the tab (`control.beforeAction` waits through a take-over).
 */
export async function begin(tabIdInput: number | undefined, context: Context): Promise<Tab> {
  const tab = await resolveTab(tabIdInput, context.tabId);
  assertScriptable(tab);
  const before = await context.service.control.beforeAction(tab.id!, context.conversationId, context.signal, context.waitForUser);
  if (before?.note) heldNotes.set(context, before.note);
  return tab;
}

/** Calls that waited while the user had the tab: their result says so (the page may have changed). */
const heldNotes = new WeakMap<Context, string>();

/** The agent's refusal as the model's error: its words (which name the page's elements) enveloped. */
export function refusal(what: string, tabId: number, reply: { error: string; stale?: boolean }): Error {
  const said = untrusted(`the page agent's report from tab ${tabId}`, reply.error);
  if (reply.stale) {
    return new TabError(`${what} was not done: the element reference is stale (the page changed or navigated since it was read). Call read_page again and use a fresh reference. Details: ${said}`, 'failed');
  }
  return new TabError(`${what} was not done in tab ${tabId}. ${said}`, 'failed');
}

/** The address the browser shows for the tab now (its own, percent-encoded: outside the envelope). */
async function currentUrl(tabId: number, fallback: string): Promise<{ url: string; title: string }> {
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  return { url: (tab && tabUrl(tab)) || fallback, title: tab?.title ?? '' };
}

/** An action's reply as the model reads it. */
export async function actionResult(tabId: number, fallbackUrl: string, reply: ActionReply, extraNote = ''): Promise<ActionResult> {
  const { url } = await currentUrl(tabId, fallbackUrl);
  const notes = [extraNote, reply.note ? `What was done: ${untrusted(`the page agent's note from tab ${tabId}`, reply.note)}` : '', dialogNotes(tabId, reply)].filter(Boolean);
  return {
    tab_id: tabId,
    url,
    title: pageTitle(tabId, reply.title),
    changed: reply.changed ? untrusted(`what changed in tab ${tabId} (${url})`, reply.changed) : NO_CHANGE,
    note: notes.join(' ') || 'Done.',
    // A copy or cut: what the page's clipboard got (page data, private like any read).
    ...(typeof reply.clipboard === 'string' ? { clipboard: reply.clipboard ? untrusted(`the clipboard's text from tab ${tabId} (${url})`, reply.clipboard) : '' } : {}),
  };
}

/**
 * The dialogs the page raised during an action (answered at once: `page/dialogs-main.ts`), in our
 * words, with the page's messages in the envelope, and how to answer otherwise.
 */
export function dialogNotes(tabId: number, reply: Pick<ActionReply, 'dialogs' | 'moreDialogs'>): string {
  const dialogs = reply.dialogs ?? [];
  if (!dialogs.length) return '';
  const page = (text: string) => untrusted(`a dialog's text from tab ${tabId}`, text);
  const lines = dialogs.map((d) => {
    if (d.type === 'alert') return `The page showed an alert: ${page(d.message)}; it was closed (OK).`;
    const answer = d.accepted ? (d.type === 'prompt' ? `OK with the text ${page(d.text ?? '')}` : 'OK') : 'Cancel';
    const fallback = d.armed ? ' (the answer dialog set)' : '';
    const deflt = d.type === 'prompt' && d.defaultText ? ` (its default text: ${page(d.defaultText)})` : '';
    return `The page asked (${d.type}): ${page(d.message)}${deflt}; answered ${answer}${fallback}.`;
  });
  if (reply.moreDialogs) lines.push(`The page raised ${reply.moreDialogs} more dialog(s) during the action, answered the same way (Cancel).`);
  const asked = dialogs.some((d) => d.type !== 'alert' && !d.armed);
  if (asked) lines.push('To answer otherwise, call dialog {accept: true} (with text for a prompt), then repeat the action.');
  return lines.join(' ');
}

/** The head of the page's outline (after a navigation): the reply, or the reason it could not be read. */
export async function outlineHead(tabId: number, context: Context): Promise<PageReply<OutlineReply> | { ok: false; error: string }> {
  try {
    return await context.service.callPage<OutlineReply>(tabId, { op: 'outline', maxLength: HEAD_CHARS }, { signal: context.signal });
  } catch (error) {
    if (context.signal.aborted) throw error;
    return { ok: false, error: (error as Error).message };
  }
}

/** The result after the tab loaded a new page: its address, title and the head of its outline. */
export async function navigatedResult(tabId: number, context: Context, how: string, reply?: ActionReply, read?: Awaited<ReturnType<typeof outlineHead>>): Promise<ActionResult> {
  const head = read ?? (await outlineHead(tabId, context));
  const { url, title } = await currentUrl(tabId, '');
  const dialogs = reply ? dialogNotes(tabId, reply) : '';
  const did = `${reply?.note ? ` What was done before: ${untrusted(`the page agent's note from tab ${tabId}`, reply.note)}` : ''}${dialogs ? ` ${dialogs}` : ''}`;
  if (!head.ok) {
    return { tab_id: tabId, url, title: pageTitle(tabId, title), changed: NO_CHANGE, note: `${how} ${url}.${did} The new page could not be read: ${head.error}` };
  }
  const outline = head as OutlineReply & { token: string };
  const more = outline.truncated ? ' This is the head of its outline: call read_page for all of it.' : '';
  return {
    tab_id: tabId,
    url,
    title: pageTitle(tabId, outline.title || title),
    changed: untrusted(`outline of the page now in tab ${tabId} (${url})`, outline.text),
    note: `${how} ${url}.${did}${more} References from before are no longer valid; use those in this outline.`,
  };
}

/**
 * Runs an action in the page and says what it changed. When the page navigates during it (or
 * right after, within `NAV_GRACE_MS` when the page said it began to unload and the action can
 * navigate: `mayNavigate`), waits for the new page
 * and returns its head; a change of address within the same document (a hash, `pushState`) keeps
 * the action's own result.
 */
export async function runAction(tab: Tab, request: PageRequest, context: Context, what: string, mayNavigate: boolean): Promise<ActionResult> {
  // After the gate, before the page agent aims: trusted input (Chrome's debugger) when the setting is on.
  const trusted = context.service.trusted;
  const delivery = TRUSTED_OPS.has(request.op) && trusted ? await trusted.begin(tab.id!, tabUrl(tab)) : undefined;
  let result: ActionResult;
  try {
    result = await runActionInPage(tab, delivery?.trusted ? { ...request, trusted: true } : request, context, what, mayNavigate);
  } finally {
    if (delivery?.trusted) trusted?.end(tab.id!);
  }
  const notes = [heldNotes.get(context), delivery?.note, result.note].filter(Boolean);
  return notes.length > 1 ? { ...result, note: notes.join(' ') } : result;
}

async function runActionInPage(tab: Tab, request: PageRequest, context: Context, what: string, mayNavigate: boolean): Promise<ActionResult> {
  const tabId = tab.id!;
  const startUrl = tabUrl(tab);
  const watch = watchLoads(tabId, startUrl);
  try {
    let reply: PageReply<ActionReply> | undefined;
    try {
      reply = await context.service.callPage<ActionReply>(tabId, request, { signal: context.signal });
    } catch (error) {
      if (!(error instanceof TabError && error.kind === 'navigated')) throw error;
    }
    if (reply && !reply.ok) throw refusal(what, tabId, reply);
    // The call lost its page (it navigated away mid-call), or the page said it began to unload: wait
    // for the load to show. Not after every click: that would cost each one the grace.
    const lost = !reply;
    if (!watch.started && (!reply || (reply.ok && reply.navigating && mayNavigate))) await watch.startedWithin(lost ? NAV_LOST_MS : NAV_GRACE_MS, context.signal);
    if (!watch.started) {
      if (lost) return await navigatedResult(tabId, context, 'The page went away during the action; the tab now shows', undefined, await outlineHead(tabId, context));
      return await actionResult(tabId, startUrl, reply as ActionReply);
    }
    return await afterLoad(tabId, watch, context, reply as (ActionReply & { token: string }) | undefined, startUrl);
  } finally {
    watch.stop();
  }
}

/** After a load started: the new page, or (same document, a new address) the action's own result. */
async function afterLoad(tabId: number, watch: LoadWatch, context: Context, reply: (ActionReply & { token: string }) | undefined, startUrl: string): Promise<ActionResult> {
  await watch.loaded(NAV_WAIT_MS, context.signal);
  const head = await outlineHead(tabId, context);
  // Same document (its token unchanged): the address changed, the action's outline of the change holds.
  if (reply && head.ok && (head as { token: string }).token === reply.token) {
    const { url } = await currentUrl(tabId, startUrl);
    return actionResult(tabId, startUrl, reply, url !== startUrl ? `The address changed to ${url}.` : '');
  }
  return navigatedResult(tabId, context, 'The page navigated to', reply, head);
}

/** Waits for the tab's next load (`wait_for` with `navigation`, `navigate`): it must start within `startMs`. */
export async function nextLoad(watch: LoadWatch, tabId: number, startMs: number, context: Context, noStart: string): Promise<void> {
  const began = Date.now();
  if (!(await watch.startedWithin(startMs, context.signal))) throw new TabError(noStart, 'timeout');
  if (watch.removed) throw new TabError(`Tab ${tabId} was closed.`, 'closed');
  await watch.loaded(Math.max(NAV_WAIT_MS, startMs - (Date.now() - began)), context.signal);
}

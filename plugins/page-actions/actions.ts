import type { FromSchema } from 'json-schema-to-ts';
import { browser } from 'wxt/browser';
import { withAttachments, type OutputWithAttachments } from '@/core/registry/attachments';
import { defineTool } from '@/core/registry/registry';
import type { ToolDefinition } from '@/core/registry/types';
import { untrusted } from '@/core/registry/untrusted';
import { parseWebAddress } from '@/core/net/web-address';
import { begin, nextLoad, navigatedResult, pageTitle, refusal, runAction, type ActionResult, type Context } from './flow';
import type { OutlineReply, RectReply } from './protocol';
import { pageActionsSchemas as schemas } from './schemas';
import { canonicalKey } from './key-spec';
import { captureVisible, encodeFrame, originsInView } from './screenshot';
import type { PageActionsService } from './service';
import { getTab, TabError, tabUrl, watchLoads } from './tab-access';
import { rememberShot } from './shots';
import { cardWords } from './words';

/**
 * The tools of the `page-actions` plugin: `read_page` and the actions on its references. Each
 * works in `tab_id`, else the tab the call is bound to (`context.tabId`: the tab the approval card
 * showed), else the tab the user is looking at.
 */

type In<K extends keyof typeof schemas> = FromSchema<(typeof schemas)[K], { keepDefaultedPropertiesOptional: true }>;

/** An action may wait for the user: a take-over pauses it (the registry's clock stops only for cards). */
export const ACTION_TIMEOUT_MS = 10 * 60_000;

/** The tab a call concerns, for the approval gate (none given: the user's tab, which the card shows). */
const tabTarget = (input: { tab_id?: number }, context: { tabId?: number }) => ({ tabId: input.tab_id ?? context.tabId });

/** Reads: their results are the page's content (the outbound rule counts them). */
const READS = { readOnly: true, destructive: false, openWorld: false, pages: true, privateData: true, target: tabTarget } as const;
/** Acts in the tab: asks unless allowed, like any acting tool (the pointer and forms tools too). */
export const ACTS = { readOnly: false, destructive: false, openWorld: false, pages: true, target: tabTarget } as const;

/** What every action returns, said once per description. */
const AFTER = 'Returns what changed (after a navigation, the new page\'s outline).';

export const readPage = defineTool<In<'read_page'>, unknown, PageActionsService>({
  name: 'read_page',
  description:
    'Read a tab as an accessibility outline, one element a line (`- button "Buy" [ref=e12]`), with refs for the page actions; untrusted page data.',
  inputSchema: schemas.read_page,
  alwaysOffered: true,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...READS },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    const tabId = tab.id!;
    const reply = await context.service.callPage<OutlineReply>(
      tabId,
      { op: 'outline', ...(input.selector ? { selector: input.selector } : {}), ...(input.ref ? { ref: input.ref } : {}), ...(input.find ? { find: input.find } : {}), maxLength: input.max_length ?? 24_000 },
      { signal: context.signal },
    );
    if (!reply.ok) throw refusal('Reading the page', tabId, reply);
    const url = tabUrl(await getTab(tabId).catch(() => tab));
    return {
      tab_id: tabId,
      url,
      title: pageTitle(tabId, reply.title),
      nodes: reply.nodes,
      truncated: reply.truncated,
      outline: untrusted(`outline of tab ${tabId} (${url})`, reply.text),
    };
  },
});

export const click = defineTool<In<'click'>, ActionResult, PageActionsService>({
  name: 'click',
  description: `Click an element as a person would (it must be visible, enabled and not covered). ${AFTER}`,
  inputSchema: schemas.click,
  alwaysOffered: true,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('click') },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    const { ref, button, double, modifiers } = input;
    return runAction(tab, { op: 'click', ref, ...(button ? { button } : {}), ...(double ? { double } : {}), ...(modifiers?.length ? { modifiers: [...modifiers] } : {}) }, context, 'The click', true);
  },
});

export const fill = defineTool<In<'fill'>, ActionResult, PageActionsService>({
  name: 'fill',
  description: `Clear a text field and type text into it as a person would. ${AFTER}`,
  inputSchema: schemas.fill,
  alwaysOffered: true,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('fill') },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    return runAction(tab, { op: 'fill', ref: input.ref, text: input.text, ...(input.submit ? { submit: true } : {}) }, context, 'Typing', Boolean(input.submit));
  },
});

export const selectOption = defineTool<In<'select_option'>, ActionResult, PageActionsService>({
  name: 'select_option',
  description: `Choose an option of a select element by value or label. ${AFTER}`,
  inputSchema: schemas.select_option,
  alwaysOffered: true,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('select_option') },
  async execute(input, context: Context) {
    if (input.value === undefined && input.label === undefined && input.values === undefined) throw new Error('Give the option\'s value or its label (the text shown for it), or values for a multi-select.');
    const tab = await begin(input.tab_id, context);
    const { value, label, values } = input;
    return runAction(tab, { op: 'select', ref: input.ref, ...(value !== undefined ? { value } : {}), ...(label !== undefined ? { label } : {}), ...(values !== undefined ? { values: [...values] } : {}) }, context, 'Choosing the option', true);
  },
});

export const pressKey = defineTool<In<'press_key'>, ActionResult, PageActionsService>({
  name: 'press_key',
  description: `Press a key in the focused element. ${AFTER}`,
  inputSchema: schemas.press_key,
  alwaysOffered: true,
  timeoutMs: ACTION_TIMEOUT_MS,
  // One name per key, for the card and the page alike ("\r", "Return", "NumpadEnter" are Enter).
  prepare: (input) => ({ ...input, key: canonicalKey(input.key) }),
  annotations: { ...ACTS, describe: cardWords('press_key') },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    return runAction(tab, { op: 'press', key: input.key, ...(input.ref ? { ref: input.ref } : {}) }, context, 'The key press', true);
  },
});

export const hover = defineTool<In<'hover'>, ActionResult, PageActionsService>({
  name: 'hover',
  description: `Move the pointer over an element (for hover menus and tooltips). ${AFTER}`,
  inputSchema: schemas.hover,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('hover') },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    return runAction(tab, { op: 'hover', ref: input.ref }, context, 'Hovering', false);
  },
});

export const scroll = defineTool<In<'scroll'>, ActionResult, PageActionsService>({
  name: 'scroll',
  description: `Scroll the page by screenfuls, or bring an element into view. ${AFTER}`,
  inputSchema: schemas.scroll,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('scroll') },
  async execute(input, context: Context) {
    if (!input.ref && !input.direction) throw new Error('Give ref (an element to bring into view) or direction (up, down, left, right), or both.');
    const tab = await begin(input.tab_id, context);
    return runAction(
      tab,
      { op: 'scroll', ...(input.ref ? { ref: input.ref } : {}), ...(input.direction ? { direction: input.direction } : {}), ...(input.amount !== undefined ? { amount: input.amount } : {}) },
      context,
      'Scrolling',
      false,
    );
  },
});

/** The address `navigate` loads, parsed once as the browser will (`core/net/web-address.ts`): http(s) only. */
export function navigableUrl(raw: string): string {
  return parseWebAddress(raw, 'navigate only loads').href;
}

/**
 * One step back or forward in the tab's history, as the page's own `history.go` takes it. Chrome's
 * back button (and `tabs.goBack`) skips entries of pages the user never interacted with, and a
 * page the agent acted on by synthetic input is one: `tabs.goBack` would leap past the page the
 * model means (back to the tab's first page). Where the page cannot be scripted, the browser's step.
 */
async function historyStep(tabId: number, delta: -1 | 1): Promise<void> {
  const step = browser.scripting.executeScript({ target: { tabId }, func: (d: number) => void setTimeout(() => history.go(d), 0), args: [delta] }).then(
    () => 'done',
    () => 'refused',
  );
  // The answer may be lost with the document it came from: the tab's loads tell the rest.
  const outcome = await Promise.race([step, new Promise((resolve) => setTimeout(() => resolve('slow'), 1_000))]);
  if (outcome !== 'refused') return;
  if (delta < 0) await browser.tabs.goBack(tabId);
  else await browser.tabs.goForward(tabId);
}

/** How long `back`/`forward` wait for the history step to begin before saying there is none. */
const HISTORY_START_MS = 2_000;

export const navigate = defineTool<In<'navigate'>, ActionResult, PageActionsService>({
  name: 'navigate',
  description:
    'Load a URL in a tab, or go back, forward or reload; returns the head of the new page\'s outline (earlier refs are void).',
  inputSchema: schemas.navigate,
  alwaysOffered: true,
  timeoutMs: ACTION_TIMEOUT_MS,
  // The one parse of the address: the gate's target and the load below get the same href.
  prepare: (input) => {
    if (input.url !== undefined && input.action !== undefined) throw new Error('Give either url or action, not both.');
    if (input.url === undefined && input.action === undefined) throw new Error('Give url (an http(s) address) or action (back, forward or reload).');
    return input.url === undefined ? input : { ...input, url: navigableUrl(input.url) };
  },
  // Loads an address with the user's cookies: the address is where data can go (the outbound rule).
  annotations: {
    readOnly: false,
    destructive: false,
    openWorld: true,
    pages: true,
    target: (input: { tab_id?: number; url?: string }, context: { tabId?: number }) => ({ tabId: input.tab_id ?? context.tabId, ...(input.url !== undefined ? { url: input.url } : {}) }),
    describe: cardWords('navigate'),
  },
  async execute(input, context: Context) {
    if (input.url !== undefined && input.action !== undefined) throw new Error('Give either url or action, not both.');
    if (input.url === undefined && input.action === undefined) throw new Error('Give url (an http(s) address) or action (back, forward or reload).');
    // `prepare` parsed the address (the gate judged that href); a canonical href parses to itself,
    // and a direct call that skipped `prepare` is checked here all the same.
    const url = input.url !== undefined ? navigableUrl(input.url) : undefined;
    const tab = await begin(input.tab_id, context);
    const tabId = tab.id!;
    const watch = watchLoads(tabId, tabUrl(tab));
    try {
      if (url) {
        await browser.tabs.update(tabId, { url });
        await nextLoad(watch, tabId, 10_000, context, `The tab did not start loading ${url}. Try again.`);
        return navigatedResult(tabId, context, 'The tab now shows');
      }
      const none = input.action === 'back' ? 'There is no earlier page in this tab\'s history to go back to.' : 'There is no later page in this tab\'s history to go forward to.';
      try {
        if (input.action === 'reload') await browser.tabs.reload(tabId);
        else await historyStep(tabId, input.action === 'back' ? -1 : 1);
      } catch (error) {
        if (input.action !== 'reload' && /history|cannot find|no (previous|next)/i.test((error as Error)?.message ?? '')) throw new TabError(none, 'failed');
        throw new TabError(`Could not ${input.action === 'reload' ? 'reload' : `go ${input.action}`} in tab ${tabId}: ${(error as Error)?.message ?? error}`, 'failed');
      }
      await nextLoad(watch, tabId, input.action === 'reload' ? 10_000 : HISTORY_START_MS, context, input.action === 'reload' ? 'The tab did not start reloading. Try again.' : none);
      return navigatedResult(tabId, context, input.action === 'reload' ? 'Reloaded' : `Went ${input.action} to`);
    } finally {
      watch.stop();
    }
  },
});

export const waitFor = defineTool<In<'wait_for'>, ActionResult, PageActionsService>({
  name: 'wait_for',
  description:
    'Wait until a condition holds on the page, for at most timeout_ms; returns what changed, or fails at the timeout.',
  inputSchema: schemas.wait_for,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...READS },
  async execute(input, context: Context) {
    const timeoutMs = input.timeout_ms ?? 10_000;
    const conditions = [input.text, input.text_gone, input.ref, input.navigation || undefined].filter((c) => c !== undefined).length;
    if (!conditions) throw new Error('Say what to wait for: text, text_gone, ref, or navigation: true.');
    if (input.navigation && conditions > 1) throw new Error('Wait for navigation alone, or for text, text_gone or ref: not both in one call.');
    const tab = await begin(input.tab_id, context);
    const tabId = tab.id!;
    if (input.navigation) {
      const watch = watchLoads(tabId, tabUrl(tab));
      try {
        await nextLoad(watch, tabId, timeoutMs, context, `No new page loaded in tab ${tabId} within ${timeoutMs} ms.`);
        return await navigatedResult(tabId, context, 'The page navigated to');
      } finally {
        watch.stop();
      }
    }
    return runAction(
      tab,
      { op: 'wait', timeoutMs, ...(input.text !== undefined ? { text: input.text } : {}), ...(input.text_gone !== undefined ? { textGone: input.text_gone } : {}), ...(input.ref ? { ref: input.ref } : {}) },
      context,
      'The wait',
      false,
    );
  },
});

export const screenshot = defineTool<In<'screenshot'>, OutputWithAttachments, PageActionsService>({
  name: 'screenshot',
  description:
    'Attach a JPEG of the visible part of a tab (the front tab of its window) with the sites it shows; for text, read_page is cheaper.',
  inputSchema: schemas.screenshot,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...READS },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    const tabId = tab.id!;
    if (!tab.active || tab.windowId === undefined) {
      throw new TabError(`Tab ${tabId} is not the tab shown in its window, and the browser captures only the shown tab. Ask the user to bring it to the front, then try again.`, 'failed');
    }
    let rect: RectReply | undefined;
    if (input.ref) {
      const reply = await context.service.callPage<RectReply>(tabId, { op: 'rect', ref: input.ref }, { signal: context.signal });
      if (!reply.ok) throw refusal('The screenshot', tabId, reply);
      rect = reply;
    }
    const png = await captureVisible(tab);
    // The tab shown may have changed while the picture was taken: then it is not this tab's.
    const now = await getTab(tabId);
    if (!now.active || now.windowId !== tab.windowId) throw new TabError(`Tab ${tabId} was moved out of view while the screenshot was taken. Try again.`, 'failed');
    const image = await encodeFrame(png, rect);
    // click_at and hover_at take points in this picture's pixels (`shots.ts`).
    if (!rect) rememberShot(tabId, image);
    // Everything the picture shows is read: the page's site and every framed site in view.
    const origins = await originsInView(tabId, tabUrl(now));
    return withAttachments(
      {
        tab_id: tabId,
        url: tabUrl(now),
        title: pageTitle(tabId, now.title ?? ''),
        width: image.width,
        height: image.height,
        origins,
        note: `A ${image.width}×${image.height} JPEG of ${input.ref ? 'the element' : 'the visible part of the tab'} is attached.`,
      },
      [{ type: 'image', mediaType: 'image/jpeg', data: image.data }],
    );
  },
});

/** read_page and the actions. */
export const actionTools: ToolDefinition[] = [readPage, click, fill, selectOption, pressKey, hover, scroll, navigate, waitFor, screenshot];

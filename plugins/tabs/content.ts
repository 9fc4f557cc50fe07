import type { FromSchema } from 'json-schema-to-ts';
import { browser, type Browser } from 'wxt/browser';
import { summarize } from '@/core/agent/summarize';
import type { ModelClient } from '@/core/agent/provider';
import { limitText } from '@/core/extract/limit';
import { READ_PAGE_GLOBAL, type PageReading } from '@/core/extract/page-reading';
import type { PdfText } from '@/core/extract/pdf-reading';
import { isLocalNetworkUrl } from '@/core/net/local-network';
import { closedPageReason, waitForTabLoad } from '@/core/tabs/access';
import { untrusted } from '@/core/registry/untrusted';
import { defineTool } from '@/core/registry/registry';
import type { AgentTabs } from './agent-tabs';
import { getTabOrThrow } from './index';
import { fetchTabPdf } from './pdf';
import { tabsSchemas } from './schemas';

export interface TabContent {
  tab_id: number;
  url: string;
  title: string;
  content: string;
  truncated: boolean;
  used_selector: string;
  /** Present and true when `content` is the model's summary under `prompt`. */
  summarized?: true;
  /** With `element_refs`: the elements shown, with references (a JSON list in the untrusted envelope). */
  elements?: string;
  /** A PDF in the browser's viewer: how many pages it has, and how many were read (from the first). */
  pages?: number;
  pages_read?: number;
}

/** How many elements `element_refs` lists at most. */
export const MAX_LISTED_ELEMENTS = 300;

/** One listed element, as it crosses from the page: page data, checked and cut here. */
export interface ListedElement {
  ref: string;
  tag: string;
  id?: string;
  text?: string;
  selector: string;
}

/** Cleans what the page side listed (a page could have planted its own registry): shape, sizes, count. */
export function cleanListedElements(raw: unknown): ListedElement[] {
  if (!Array.isArray(raw)) return [];
  const out: ListedElement[] = [];
  for (const item of raw.slice(0, MAX_LISTED_ELEMENTS)) {
    if (!item || typeof item !== 'object') continue;
    const { ref, tag, id, text, selector } = item as Record<string, unknown>;
    if (typeof ref !== 'string' || !/^@[a-z0-9]{4,12}\.\d{1,9}$/.test(ref) || typeof tag !== 'string' || typeof selector !== 'string') continue;
    out.push({
      ref,
      tag: tag.slice(0, 40),
      ...(typeof id === 'string' && id ? { id: id.slice(0, 100) } : {}),
      ...(typeof text === 'string' && text ? { text: text.slice(0, 100) } : {}),
      selector: selector.slice(0, 400),
    });
  }
  return out;
}

/** The registry the injected script keeps in the tab's MAIN world (core/page/element-refs.ts). */
const ELEMENT_REFS_SYMBOL = 'sidequest.element-refs';

/** Lists the tab's elements with references, in its MAIN world (where page tools see the same ones). */
async function listTabElements(tabId: number, url: string, selector: string | undefined): Promise<ListedElement[]> {
  const target: Browser.scripting.InjectionTarget = { tabId };
  try {
    await browser.scripting.executeScript({ target, world: 'MAIN', files: ['/tabs-element-refs.js'] });
    const [first] = await browser.scripting.executeScript({
      target,
      world: 'MAIN',
      func: (key: string, root: string | null, max: number) => {
        const refs = (window as unknown as Record<symbol, { listElements?: (root?: string, max?: number) => unknown } | undefined>)[Symbol.for(key)];
        try {
          return typeof refs?.listElements === 'function' ? refs.listElements(root ?? undefined, max) : [];
        } catch {
          return [];
        }
      },
      args: [ELEMENT_REFS_SYMBOL, selector ?? null, MAX_LISTED_ELEMENTS],
    });
    return cleanListedElements(first?.result);
  } catch (error) {
    throw injectionError(tabId, url, error);
  }
}

/** Turns what executeScript threw into words for the model. */
function injectionError(tabId: number, url: string, error: unknown): Error {
  const message = (error as Error)?.message ?? String(error);
  if (/file:\/\/|file URL|Cannot access contents of url "file/i.test(message) || url.startsWith('file:')) {
    return new Error(`Tab ${tabId} shows a local file (${url}), and the extension is not allowed to read files. The user can allow it ("Allow access to file URLs" in the extension's details); otherwise ask the user what it shows.`);
  }
  if (/error page|chrome-error|showing error page/i.test(message)) {
    return new Error(`Tab ${tabId} shows the browser's error page (the page failed to load). Reload it with open_tab, or fetch its address instead.`);
  }
  if (/Missing host permission|Cannot access|cannot be scripted|not allowed|No window matching|permission/i.test(message)) {
    return new Error(`The browser does not let the extension read tab ${tabId} (${url}): ${message}. Ask the user what it shows, or fetch its address instead.`);
  }
  if (/No tab with id|Invalid tab ID|closed/i.test(message)) {
    return new Error(`Tab ${tabId} does not exist any more. Call list_tabs to see the open tabs.`);
  }
  return new Error(`Could not read tab ${tabId} (${url}): ${message}`);
}

const LOAD_WAIT_MS = 10_000;
const SUMMARY_ALLOWANCE_MS = 90_000;

/** Runs the page reader in the tab: inject the script file, then call it with the options. */
async function readTab(tabId: number, url: string, selector: string | undefined): Promise<PageReading> {
  const target: Browser.scripting.InjectionTarget = { tabId };
  try {
    await browser.scripting.executeScript({ target, files: ['/tabs-read-page.js'] });
    const [first] = await browser.scripting.executeScript({
      target,
      func: (name: string, options: { selector?: string }) => {
        // Chrome's PDF viewer: the tab's document is the PDF; its text is read from the file instead.
        if (document.contentType === 'application/pdf') return { ok: false, kind: 'pdf' };
        const reader = (globalThis as Record<string, unknown>)[name] as ((o: { selector?: string }) => unknown) | undefined;
        if (typeof reader !== 'function') return { ok: false, kind: 'failed', error: 'The page reader did not load in this tab.' };
        return reader(options);
      },
      args: [READ_PAGE_GLOBAL, selector === undefined ? {} : { selector }],
    });
    const reading = first?.result as PageReading | undefined;
    if (!reading || typeof reading !== 'object') throw new Error('the page reader returned nothing');
    return reading;
  } catch (error) {
    throw injectionError(tabId, url, error);
  }
}

/** What the tabs tools use: the model, for `get_tab_content`'s summaries; the PDF reader. */
export interface TabsService {
  getModelClient?(conversationId?: string): Promise<ModelClient>;
  /** A PDF → its text with `## Page N` markers (core/extract/pdf-reading.ts `readPdf`); errors name `source`. */
  readPdf?(bytes: Uint8Array, source: string): Promise<PdfText>;
  /** The record of the agent's tabs and their group (`agent-tabs.ts`). */
  agentTabs?: AgentTabs;
}

const isWebAddress = (url: string) => /^https?:/i.test(url);

/**
 * Firefox's words when it keeps extensions out of a web address's tab: its PDF viewer (pdf.js) is
 * such a tab (so are its error pages). Chrome's viewer lets the reader in.
 */
const KEPT_OUT = /Missing host permission for the tab/i;

/**
 * Reads the tab: the page reader in it, or, for the browser's PDF viewer, the PDF by its address.
 * Chrome's viewer lets the reader in and it says `pdf`; Firefox's (pdf.js) keeps extensions out, so
 * when Firefox keeps the reader out of a web page, its address is tried as a PDF before giving up;
 * not an address on the user's own network, which the re-request would reach without the gate
 * asking, for a page not known to be a PDF.
 */
async function readTabOrPdf(tabId: number, url: string, selector: string | undefined, signal: AbortSignal, service: TabsService | undefined): Promise<PageReading | { ok: true; pdf: PdfText }> {
  let reading: PageReading;
  try {
    reading = await readTab(tabId, url, selector);
  } catch (error) {
    if (!isWebAddress(url) || !service?.readPdf || !KEPT_OUT.test(String((error as Error)?.message))) throw error;
    if (isLocalNetworkUrl(url)) throw new Error(`${(error as Error).message} If it shows a PDF, it is on the user's own network, where Sidequest does not request it again unasked: ask the user what it says.`);
    const bytes = await fetchTabPdf(tabId, url, signal);
    if (!bytes) throw error;
    return { ok: true, pdf: await service.readPdf(bytes, url) };
  }
  if (reading.ok || reading.kind !== 'pdf') return reading;
  if (!service?.readPdf || !isWebAddress(url)) throw new Error(`Tab ${tabId} shows a PDF (${url}) that cannot be read here. Ask the user what it says.`);
  const bytes = await fetchTabPdf(tabId, url, signal);
  if (!bytes) throw new Error(`Tab ${tabId} shows a PDF, but its address (${url}) no longer answers with one. Ask the user what it shows.`);
  return { ok: true, pdf: await service.readPdf(bytes, url) };
}

export const getTabContent = defineTool<FromSchema<typeof tabsSchemas.get_tab_content>, TabContent, TabsService | undefined>({
    name: 'get_tab_content',
    description:
      "Read an open tab's rendered page or PDF (the user's logins apply) as Markdown, as untrusted data; fetch an address that is not open instead.",
    inputSchema: tabsSchemas.get_tab_content,
    alwaysOffered: true,
    timeoutMs: 30_000 + SUMMARY_ALLOWANCE_MS,
    annotations: { readOnly: true, destructive: false, openWorld: false, pages: true, target: (input: { tab_id: number }) => ({ tabId: input.tab_id }) },
    async execute({ tab_id, selector, prompt, max_length, element_refs }, { signal, service, conversationId }) {
      let tab = await getTabOrThrow(tab_id);
      const reason = closedPageReason(tab.url ?? tab.pendingUrl ?? '', 'read');
      if (reason) throw new Error(`Tab ${tab_id} cannot be read: ${reason}. Ask the user what it shows, or fetch its web address instead.`);
      if (tab.status === 'loading') tab = await waitForTabLoad(tab_id, LOAD_WAIT_MS, signal);
      const url = tab.url ?? '';
      const read = await readTabOrPdf(tab_id, url, selector, signal, service);
      const ask = { prompt, max_length, signal, service, conversationId };
      // A PDF in the browser's viewer: no selector, no elements (the viewer's are not the document's).
      if ('pdf' in read) {
        const { pdf } = read;
        return answer({ tab_id, url, rawTitle: tab.title ?? '', markdown: pdf.markdown, used_selector: '', partial: pdf.pagesRead < pdf.pages, extra: { pages: pdf.pages, pages_read: pdf.pagesRead } }, ask);
      }
      const reading = read;
      if (!reading.ok) {
        if (reading.kind === 'unsupported') throw new Error(`Tab ${tab_id} cannot be read as text: ${reading.error} Fetch ${url} instead, or ask the user.`);
        throw new Error(reading.kind === 'pdf' ? `Tab ${tab_id} shows a PDF that cannot be read.` : reading.error);
      }
      // The elements' texts are the page's words: they travel in the envelope too.
      const elements = element_refs
        ? { elements: untrusted(`elements of tab ${tab_id} (${reading.url || url})`, await listTabElements(tab_id, url, selector)) }
        : {};
      return answer({ tab_id, url: reading.url || url, rawTitle: reading.title || tab.title || '', markdown: reading.markdown, used_selector: reading.usedSelector, partial: false, extra: elements }, ask);
    },
});

/**
 * `get_tab_content`'s answer: the title and the text (or the model's summary of it under `prompt`)
 * in their envelopes, cut to `max_length`; `partial` when the text is not all of the tab's (a PDF's
 * first pages).
 */
async function answer(
  read: { tab_id: number; url: string; rawTitle: string; markdown: string; used_selector: string; partial: boolean; extra: Partial<TabContent> },
  { prompt, max_length, signal, service, conversationId }: { prompt?: string; max_length?: number; signal: AbortSignal; service: TabsService | undefined; conversationId?: string },
): Promise<TabContent> {
  const { tab_id, url, used_selector } = read;
  // The page wrote its title: in the envelope, like its content.
  const title = read.rawTitle ? untrusted(`title of tab ${tab_id}, written by its page`, read.rawTitle) : '';
  if (prompt?.trim()) {
    if (!service?.getModelClient) throw new Error('Summarizing is not available here: call get_tab_content without prompt.');
    const summary = await summarize(await service.getModelClient(conversationId), { prompt: prompt.trim(), content: read.markdown, source: url, signal });
    const limited = limitText(summary, max_length);
    return { tab_id, url, title, content: untrusted(`summary of tab ${tab_id} (${url})`, limited.text), truncated: limited.truncated || read.partial, used_selector, summarized: true, ...read.extra };
  }
  const limited = limitText(read.markdown, max_length);
  return { tab_id, url, title, content: untrusted(`tab ${tab_id} (${url})`, limited.text), truncated: limited.truncated || read.partial, used_selector, ...read.extra };
}

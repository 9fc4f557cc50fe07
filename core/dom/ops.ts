import { extractPage, type ExtractMethod } from '@/core/extract';
import { parseSearchPage, type SearchPage, type HtmlEngineId } from '@/core/search/parse';

/**
 * Work that needs an HTML parser and a DOM, by name. It runs wherever the background can get a
 * DOM (see `host.ts`): in Firefox's background page itself, in Chrome's offscreen document. Each
 * operation takes and returns plain data, so it can cross a message boundary.
 */
export const domOps = {
  /** Fetched HTML → the page's main content as Markdown (see core/extract). */
  extractHtml({ html, url }: { html: string; url: string }): { title: string; markdown: string; method: ExtractMethod } {
    const parse = () => new DOMParser().parseFromString(html, 'text/html');
    const { title, markdown, method } = extractPage(parse(), { baseUrl: url, reparse: parse });
    return { title, markdown, method };
  },
  /** A search engine's HTML results page → its results, or what kind of page it was instead. */
  parseSearchPage({ engine, html, url }: { engine: HtmlEngineId; html: string; url: string }): SearchPage {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    return parseSearchPage(engine, doc, url);
  },
};

export type DomOps = typeof domOps;
export type DomOpName = keyof DomOps;
export type DomOpInput<K extends DomOpName> = Parameters<DomOps[K]>[0];
export type DomOpOutput<K extends DomOpName> = ReturnType<DomOps[K]>;

/** The message the background sends to the offscreen document. */
export interface DomOpRequest<K extends DomOpName = DomOpName> {
  target: typeof OFFSCREEN_TARGET;
  op: K;
  input: DomOpInput<K>;
}

export type DomOpReply<K extends DomOpName = DomOpName> = { ok: true; value: DomOpOutput<K> } | { ok: false; error: string };

/** Marks messages meant for the offscreen document; everything else it ignores. */
export const OFFSCREEN_TARGET = 'sidequest:offscreen-dom';

/** Runs an operation here (the caller has a DOM) and wraps the outcome as a reply. */
export function runDomOpHere<K extends DomOpName>(op: K, input: DomOpInput<K>): DomOpReply<K> {
  try {
    const fn = domOps[op] as (input: DomOpInput<K>) => DomOpOutput<K>;
    return { ok: true, value: fn(input) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export function isDomOpRequest(message: unknown): message is DomOpRequest {
  const m = message as Partial<DomOpRequest> | null;
  return Boolean(m && m.target === OFFSCREEN_TARGET && typeof m.op === 'string' && m.op in domOps);
}

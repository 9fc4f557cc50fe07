/**
 * What the page-reading script (entrypoints/tabs-read-page.ts, `readPage` of ./page.ts) and the
 * background that injects it share: the answer's shape and the global's name. Kept apart from
 * ./page.ts so the background imports neither Readability nor Turndown with them.
 */

/** What the page-reading script answers; it crosses from the tab to the background as data. */
export type PageReading =
  | { ok: true; url: string; title: string; markdown: string; usedSelector: string }
  | { ok: false; kind: 'selector' | 'unsupported' | 'failed'; error: string }
  /** The tab's document is a PDF (Chrome's viewer lets scripts into its frame, which holds no text). */
  | { ok: false; kind: 'pdf' };

/** The global the injected script defines in the extension's isolated world of the tab. */
export const READ_PAGE_GLOBAL = '__sidequestReadPage';

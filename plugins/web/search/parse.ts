/**
 * What every engine's results page reader shares. Each reader (an engine's `readPage`, in
 * `engines/<id>.ts`) tells apart four pages: results, an honest "no results" page, a block or
 * CAPTCHA page, and a page whose layout it no longer recognises — so an empty list is only ever
 * returned for the second.
 */

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export type SearchPage =
  | { kind: 'results'; results: SearchResult[] }
  | { kind: 'empty' }
  | { kind: 'blocked'; detail: string }
  | { kind: 'unrecognized'; detail: string };

/** An element's text with its white space made single. */
export function text(el: Element | null | undefined): string {
  return (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

export function isWebUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

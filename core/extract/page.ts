import { extractPage } from './extract';
import type { PageReading } from './page-reading';
import { SelectorError } from './selectors';

export { READ_PAGE_GLOBAL, type PageReading } from './page-reading';

/**
 * Reads the document of a tab as it is rendered now (content added by scripts after load
 * included) as Markdown. Runs in the page's isolated world: the page's own scripts cannot see or
 * change it, and the page is not modified.
 */
export function readPage(doc: Document, options: { selector?: string }): PageReading {
  try {
    const type = doc.contentType || 'text/html';
    if (type === 'application/pdf') {
      return { ok: false, kind: 'unsupported', error: 'This tab shows a PDF in the browser\'s PDF viewer, whose text extensions cannot read.' };
    }
    if (/^(image|video|audio)\//.test(type)) {
      return { ok: false, kind: 'unsupported', error: `This tab shows a ${type.split('/')[0]} (${type}), not a document with text.` };
    }
    if (type === 'text/plain' || (!/html|xml/.test(type) && doc.body && !doc.body.children.length)) {
      if (options.selector) return { ok: false, kind: 'selector', error: `This tab shows plain text (${type}); a selector cannot apply to it. Leave selector out.` };
      const text = doc.body?.innerText ?? doc.documentElement.textContent ?? '';
      return { ok: true, url: doc.URL, title: doc.title, markdown: text, usedSelector: 'body' };
    }
    const result = extractPage(doc, { live: true, selector: options.selector });
    return { ok: true, url: doc.URL, title: result.title || doc.title, markdown: result.markdown, usedSelector: result.usedSelector };
  } catch (error) {
    if (error instanceof SelectorError) return { ok: false, kind: 'selector', error: error.message };
    return { ok: false, kind: 'failed', error: `Reading the page failed: ${(error as Error)?.message ?? error}` };
  }
}

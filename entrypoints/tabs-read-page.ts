import { readPage, READ_PAGE_GLOBAL } from '@/core/extract/page';

// Injected into a tab by get_tab_content (browser.scripting.executeScript, isolated world): it
// only defines the reader; the background then calls it with the tool's options.
export default defineUnlistedScript(() => {
  (globalThis as Record<string, unknown>)[READ_PAGE_GLOBAL] = (options: { selector?: string }) => readPage(document, options);
});

import { readPage, READ_PAGE_GLOBAL } from '@/core/extract/page';

// Injected into a tab by the tabs plugin when it reads a tab (browser.scripting.executeScript, isolated world): it
// only defines the reader; the background then calls it with the tool's options.
export default defineUnlistedScript(() => {
  (globalThis as Record<string, unknown>)[READ_PAGE_GLOBAL] = (options: { selector?: string }) => readPage(document, options);
});

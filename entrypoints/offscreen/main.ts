import { browser } from 'wxt/browser';
import { isDomOpRequest, runDomOpHere } from '@/core/dom/ops';
import { serveBlobUrls } from '@/core/workspace/blob-url';

// Chrome's one offscreen document (see core/dom/host.ts) answers two kinds of requests from the
// background: DOM jobs (parse HTML, extract Markdown, read a search results page) and blob URLs
// for workspace files. Messages for anyone else are left alone.
browser.runtime.onMessage.addListener((message: unknown) => {
  if (!isDomOpRequest(message)) return undefined;
  return Promise.resolve(runDomOpHere(message.op, message.input as never));
});
serveBlobUrls();

import { browser } from 'wxt/browser';
import { isDomOpRequest, runDomOpHere } from '@/core/dom/ops';

// Chrome's offscreen document: answers the background's DOM jobs (parse HTML, extract Markdown,
// read a search results page). Messages for anyone else are left alone.
browser.runtime.onMessage.addListener((message: unknown) => {
  if (!isDomOpRequest(message)) return undefined;
  return Promise.resolve(runDomOpHere(message.op, message.input as never));
});

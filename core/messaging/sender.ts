import { browser, type Browser } from 'wxt/browser';

/**
 * True when a message or port comes from the extension's own pages or its background (their
 * address is under the extension's origin), not from a content script. A content script's sender
 * carries the extension's id too, but the address of the web page it runs in: content scripts run
 * inside pages (and in Chrome, a compromised page's process can speak as one), so they never get
 * what only the extension's pages may ask for.
 */
export function isExtensionPage(sender: Browser.runtime.MessageSender | undefined): boolean {
  const origin = browser.runtime.getURL('/');
  return Boolean(sender?.url?.startsWith(origin)) && sender?.id === browser.runtime.id;
}

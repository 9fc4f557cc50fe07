import { browser, type Browser } from 'wxt/browser';

/**
 * The tab the user is looking at: the active tab of the last focused window, or, when that is one
 * of the extension's own pages (the sidebar opened in a tab), the page the user used last before
 * it. A blank tab (`about:blank`, what a browser leaves behind when a page opens another) is never
 * that fallback: there is nothing on it to read or act on. One definition for the approval gate
 * ("the tab you are looking at") and the tools that work on it when given no tab.
 */
export async function userTab(): Promise<Browser.tabs.Tab | undefined> {
  const own = browser.runtime.getURL('/');
  const tabs = await browser.tabs.query({ lastFocusedWindow: true }).catch(() => [] as Browser.tabs.Tab[]);
  const theirs = tabs.filter((t) => t.id !== undefined && !(t.url ?? '').startsWith(own));
  const active = theirs.find((t) => t.active);
  if (active) return active;
  const used = theirs.filter((t) => t.url !== 'about:blank');
  return used.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0))[0];
}

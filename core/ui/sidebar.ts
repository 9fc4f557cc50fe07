import { browser } from 'wxt/browser';

interface ChromeSidePanel {
  open(options: { windowId: number }): Promise<void>;
}
interface FirefoxSidebarAction {
  open(): Promise<void>;
}

/**
 * Opens the sidebar. Both browsers only allow it in direct answer to a click, so call it first
 * in the click handler, before any `await`. Chrome needs the window id: read it beforehand.
 */
export function openSidebar(windowId: number | undefined): Promise<void> {
  const api = browser as unknown as { sidebarAction?: FirefoxSidebarAction };
  if (api.sidebarAction) return api.sidebarAction.open();
  const sidePanel = (globalThis as unknown as { chrome?: { sidePanel?: ChromeSidePanel } }).chrome?.sidePanel;
  if (!sidePanel || windowId === undefined) return Promise.reject(new Error('This browser cannot open the sidebar from here.'));
  return sidePanel.open({ windowId });
}

import { browser } from 'wxt/browser';
import { activeConversationId, sidebarRequest } from '@/core/storage/settings';

/** The manifest's keyboard commands that the background answers (the others are the browser's own). */
export const COMMANDS = { openSidebar: 'open-sidebar', newConversation: 'new-conversation' } as const;

interface ChromeSidePanel {
  open(options: { windowId: number }): Promise<void>;
}

/**
 * Opens the sidebar from a command. A command is a user gesture in both browsers, so the sidebar
 * may open here, but only before anything is awaited.
 */
function openSidebarNow(windowId: number | undefined): Promise<void> {
  const firefox = (browser as unknown as { sidebarAction?: { open(): Promise<void> } }).sidebarAction;
  if (firefox) return firefox.open();
  const sidePanel = (globalThis as unknown as { chrome?: { sidePanel?: ChromeSidePanel } }).chrome?.sidePanel;
  if (!sidePanel || windowId === undefined) return Promise.resolve();
  return sidePanel.open({ windowId });
}

/**
 * Registers the keyboard commands: `open-sidebar` (Chrome; Firefox uses its built-in
 * `_execute_sidebar_action`) and `new-conversation` (opens the sidebar on a new conversation).
 * Call it before the background's first `await`: a woken worker gets the command at once.
 */
export function registerCommands(): void {
  browser.commands?.onCommand.addListener((command, tab) => void handleCommand(command, tab));
}

/**
 * What a command does: opens the sidebar (synchronously, while the gesture lasts) and, for
 * `new-conversation`, asks it for a new conversation. Resolves when the request is stored.
 */
export function handleCommand(command: string, tab?: { windowId?: number }): Promise<void> {
  if (command !== COMMANDS.openSidebar && command !== COMMANDS.newConversation) return Promise.resolve();
  const opening = openSidebarNow(tab?.windowId).catch((error: unknown) => console.warn('[sidequest] The sidebar could not be opened:', error));
  if (command !== COMMANDS.newConversation) return opening;
  // Read by a sidebar that opens now; watched by one that is already open (as the popup does).
  const asking = activeConversationId.setValue(null).then(() => sidebarRequest.setValue({ conversationId: null, at: Date.now() }));
  return Promise.all([opening, asking]).then(() => undefined);
}

/**
 * Shows a conversation in the sidebar (a notification's click): asks the sidebar for it, and
 * opens the sidebar where the browser lets it open now; where it does not (no user gesture), the
 * sidebar's page opens in a tab instead, on that conversation.
 */
export function showConversation(conversationId: string, windowId?: number): Promise<void> {
  const opening = openSidebarNow(windowId).then(
    () => true,
    () => false,
  );
  const asking = activeConversationId.setValue(conversationId).then(() => sidebarRequest.setValue({ conversationId, at: Date.now() }));
  return Promise.all([opening, asking]).then(async ([opened]) => {
    if (!opened || (windowId === undefined && !(browser as unknown as { sidebarAction?: unknown }).sidebarAction)) {
      await browser.tabs.create({ url: browser.runtime.getURL('/sidepanel.html') });
    }
  });
}

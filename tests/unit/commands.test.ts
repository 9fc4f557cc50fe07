import { fakeBrowser } from 'wxt/testing/fake-browser';
import { COMMANDS, handleCommand, showConversation } from '@/core/background/commands';
import { activeConversationId, sidebarRequest } from '@/core/storage/settings';

/**
 * The keyboard commands (Alt+Shift+S, Alt+Shift+E). A browser's own shortcuts cannot be pressed
 * in a headless browser (keys sent to a page never reach the browser's accelerators), so what a
 * command does is checked here, for Chrome's side panel and Firefox's sidebar: the sidebar opens
 * at once (a command is a user gesture only until the first await), and a new conversation is
 * asked for.
 */
describe('keyboard commands', () => {
  const opened: Array<number | 'firefox'> = [];
  const fake = fakeBrowser as unknown as { sidebarAction?: unknown };
  const firefoxSidebar = fake.sidebarAction;

  function asChrome(): void {
    fake.sidebarAction = undefined;
    (globalThis as { chrome?: unknown }).chrome = { sidePanel: { open: async ({ windowId }: { windowId: number }) => void opened.push(windowId) } };
  }
  function asFirefox(): void {
    fake.sidebarAction = { open: async () => void opened.push('firefox') };
  }

  beforeEach(() => {
    opened.length = 0;
  });
  afterEach(() => {
    fake.sidebarAction = firefoxSidebar;
    delete (globalThis as { chrome?: unknown }).chrome;
  });

  it('opens the side panel of the window the command came from, before anything is awaited (Chrome)', async () => {
    asChrome();
    const done = handleCommand(COMMANDS.openSidebar, { windowId: 7 });
    expect(opened).toEqual([7]);
    await done;
    expect(await sidebarRequest.getValue()).toBeNull();
  });

  it('new conversation: opens the sidebar and asks it for a new conversation (Firefox)', async () => {
    asFirefox();
    await activeConversationId.setValue('c1');
    const before = Date.now();
    const done = handleCommand(COMMANDS.newConversation, { windowId: 3 });
    expect(opened).toEqual(['firefox']);
    await done;
    expect(await activeConversationId.getValue()).toBeNull();
    const request = await sidebarRequest.getValue();
    expect(request?.conversationId).toBeNull();
    expect(request!.at).toBeGreaterThanOrEqual(before);
  });

  it('leaves other commands to the browser', async () => {
    asChrome();
    await activeConversationId.setValue('c1');
    await handleCommand('_execute_action', { windowId: 3 });
    expect(opened).toEqual([]);
    expect(await activeConversationId.getValue()).toBe('c1');
  });

  describe('showing a conversation (a notification\'s click)', () => {
    async function tabsOpened(run: () => Promise<void>): Promise<string[]> {
      const urls: string[] = [];
      const create = vi.spyOn(fakeBrowser.tabs, 'create').mockImplementation(async (props) => (urls.push(String(props.url)), { id: 1 } as never));
      await run();
      create.mockRestore();
      return urls;
    }

    it('Firefox: the sidebar opens on it and no tab is made', async () => {
      asFirefox();
      const urls = await tabsOpened(() => showConversation('c9'));
      expect(opened).toEqual(['firefox']);
      expect(urls).toEqual([]);
      expect(await activeConversationId.getValue()).toBe('c9');
      expect((await sidebarRequest.getValue())?.conversationId).toBe('c9');
    });

    it('where the sidebar may not open now (no gesture; Chrome without a window), the sidebar page opens in a tab on it', async () => {
      fake.sidebarAction = { open: async () => Promise.reject(new Error('sidebarAction.open may only be called from a user input handler')) };
      expect(await tabsOpened(() => showConversation('c1'))).toEqual([expect.stringMatching(/\/sidepanel\.html$/)]);
      asChrome();
      expect(await tabsOpened(() => showConversation('c2'))).toEqual([expect.stringMatching(/\/sidepanel\.html$/)]);
      expect((await sidebarRequest.getValue())?.conversationId).toBe('c2');
      // With the window the click came from, Chrome's side panel opens there instead.
      expect(await tabsOpened(() => showConversation('c3', 4))).toEqual([]);
      expect(opened).toEqual([4]);
    });
  });
});

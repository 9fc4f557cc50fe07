import type { FromSchema } from 'json-schema-to-ts';
import { browser, type Browser } from 'wxt/browser';
import { userTab } from '@/core/agent/user-tab';
import type { PluginContext } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import type { ToolDefinition } from '@/core/registry/types';
import { oneLine, untrusted } from '@/core/registry/untrusted';
import { BAR_PORT, type BarButton, type BarState, type OutlineReply, type PageReply, type PageRequest, type PausedTab } from './protocol';
import { pageActionsSchemas } from './schemas';
import type { PageActionsService } from './service';

/** How long `hand_over` waits for the user (the registry stops the call after this). */
export const HAND_OVER_TIMEOUT_MS = 30 * 60_000;
/** At most this many tabs are tracked at once; the oldest goes first (runs that never ended). */
export const MAX_TRACKED_TABS = 64;
/** What an action's result says when it waited while the user had the tab. */
export const USER_HAD_TAB_NOTE =
  'The user took over this tab and pressed Resume before this action ran: the page may have changed. If a reference is refused as stale, call read_page again.';

/** What `beforeAction` found: whether the action waited while the user had the tab. */
export interface BeforeAction {
  userHadTab: boolean;
  /** For the action's result when the user had the tab (`USER_HAD_TAB_NOTE`). */
  note?: string;
}

/** Waits for something only the user can finish, with the tool call's clock stopped (`ToolContext.waitForUser`). */
export type WaitForUser = <T>(work: Promise<T>) => Promise<T>;

/**
 * The user stays in control (the `control` work): the acting bar in the tab (Stop, Take over,
 * Resume), take-over and `hand_over` (the run waits while the user has the tab), the sidebar's
 * "Paused — you have the tab" panel.
 */
export interface ActingControl {
  /**
   * Before every action in a tab: shows the bar ("acting") and, while the user has the tab (Take
   * over, `hand_over`), waits for Resume. Rejects when `signal` aborts. Pass the call's
   * `context.waitForUser`, so the action's clock stops while the user has the tab.
   */
  beforeAction(tabId: number, conversationId: string | undefined, signal: AbortSignal, waitForUser?: WaitForUser): Promise<BeforeAction>;
  /** The page agent answered from a new document (its token changed): the bar is shown there again. */
  pageChanged(tabId: number): void;
  /** `hand_over`: pauses the run in the tab with a reason, waits for Resume, reads the page again. */
  handOver(tabId: number, conversationId: string | undefined, reason: string, signal: AbortSignal, waitForUser?: WaitForUser): Promise<HandOverResult>;
  /** The tab the conversation's run waits on while the user has it, or null. */
  pausedIn(conversationId: string): PausedTab | null;
  /** The sidebar's Resume. */
  resumeConversation(conversationId: string): void;
  /** Whether the user has any tab now (`TabHold`: the gate holds every call that touches it). */
  active(): boolean;
  /** Resolves when the user gives the tab back (Resume, the run's end, the tab closed); undefined when they do not have it. */
  until(tabId: number): Promise<void> | undefined;
  dispose(): void;
}

/** `hand_over`'s answer once the user pressed Resume. */
export interface HandOverResult {
  resumed: true;
  url: string;
  /** The page's title and outline, read again after the user had the tab (page text: enveloped). */
  title: string;
  outline: string;
  note: string;
}

export type CallPage = <T = Record<string, unknown>>(tabId: number, request: PageRequest) => Promise<PageReply<T>>;

/** The browser events the control listens to (a seam for tests). */
export interface ControlBrowser {
  runtimeId: string;
  ownUrl: string;
  tabSite(tabId: number): Promise<{ url: string; title: string } | undefined>;
  onConnect(listener: (port: Browser.runtime.Port) => void): () => void;
  onTabUpdated(listener: (tabId: number, change: { status?: string; url?: string }) => void): () => void;
  onTabRemoved(listener: (tabId: number) => void): () => void;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

/** One tab the agent acts in now. */
interface TabState {
  tabId: number;
  conversationId: string;
  paused?: { reason?: string; site: string; resumed: Deferred };
  /** The bar as the tab's current document shows it (undefined: a new document, none yet). */
  shown?: BarState;
  /** Bar requests go out in order. */
  chain: Promise<unknown>;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function hostOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').host || url || '';
  } catch {
    return url ?? '';
  }
}

const BUTTONS = new Set<BarButton>(['stop', 'take-over', 'resume']);

/** The real browser behind `ControlBrowser`. */
function realBrowser(): ControlBrowser {
  // Where an API is missing (unit tests' fake browser), the control still works without that event.
  const on = <L extends (...args: never[]) => void>(event: { addListener(l: L): void; removeListener(l: L): void }, listener: L) => {
    try {
      event.addListener(listener);
    } catch {
      return () => undefined;
    }
    return () => event.removeListener(listener);
  };
  return {
    runtimeId: browser.runtime.id,
    get ownUrl() {
      try {
        return browser.runtime.getURL('/');
      } catch {
        return 'extension-pages-unknown:';
      }
    },
    tabSite: async (tabId) => {
      const tab = await browser.tabs.get(tabId).catch(() => undefined);
      return tab && { url: tab.url || tab.pendingUrl || '', title: tab.title ?? '' };
    },
    onConnect: (listener) => on(browser.runtime.onConnect, listener),
    onTabUpdated: (listener) => on(browser.tabs.onUpdated, (tabId: number, change: Browser.tabs.OnUpdatedInfo) => listener(tabId, change)),
    onTabRemoved: (listener) => on(browser.tabs.onRemoved, (tabId: number) => listener(tabId)),
  };
}

/**
 * The acting control of the background. Per tab the agent acts in now: its conversation, whether
 * the user has it (paused, and why) and the bar its document shows. Everything is dropped when
 * the run ends, however it ends, and when the tab closes.
 */
export class Control implements ActingControl {
  private readonly tabs = new Map<number, TabState>();
  private readonly disposers: Array<() => void> = [];

  /** How many tabs it tracks (`ctx.retained`): dropped when their run ends or the tab closes. */
  get trackedTabs(): number {
    return this.tabs.size;
  }

  constructor(
    private readonly ctx: Pick<PluginContext, 'broadcast' | 'conversations'> & Partial<Pick<PluginContext, 'handle'>>,
    private readonly callPage: CallPage,
    private readonly env: ControlBrowser,
    /** The agent lets go of a tab: its run ended (Stop too), the user has it, or it closed (trusted input detaches). */
    private readonly released: (tabId: number, runEnded: boolean) => void = () => undefined,
  ) {
    ctx.conversations.onRunEnd((conversationId) => this.runEnded(conversationId));
    ctx.handle?.('getPagePause', ({ conversationId }) => this.pausedIn(conversationId));
    ctx.handle?.('resumePageActions', ({ conversationId }) => this.resumeConversation(conversationId));
    this.disposers.push(
      env.onConnect((port) => this.connected(port)),
      env.onTabUpdated((tabId, change) => this.tabUpdated(tabId, change)),
      env.onTabRemoved((tabId) => this.tabClosed(tabId)),
    );
  }

  async beforeAction(tabId: number, conversationId: string | undefined, signal: AbortSignal, waitForUser: WaitForUser = (work) => work): Promise<BeforeAction> {
    // Outside a conversation (direct registry calls: tests, the benchmark) nobody can stop or take over.
    if (!conversationId) return { userHadTab: false };
    const state = this.enter(tabId, conversationId);
    let userHadTab = false;
    while (state.paused) {
      userHadTab = true;
      await waitForUser(this.untilResumed(state, signal));
    }
    if (signal.aborted) throw new Error('The run was stopped.');
    // After the bar requests already on their way (a Resume's own 'acting').
    await state.chain;
    if (state.shown !== 'acting') await this.show(state, 'acting');
    return userHadTab ? { userHadTab, note: USER_HAD_TAB_NOTE } : { userHadTab };
  }

  pageChanged(tabId: number): void {
    const state = this.tabs.get(tabId);
    if (state) state.shown = undefined;
  }

  /**
   * `hand_over`: the user gets the tab (the bar says why, the sidebar shows the panel); waits for
   * Resume in the bar or the sidebar, then reads the page again for the model.
   */
  async handOver(tabId: number, conversationId: string | undefined, reason: string, signal: AbortSignal, waitForUser: WaitForUser = (work) => work): Promise<HandOverResult> {
    if (!conversationId) throw new Error('hand_over works only in a conversation with the user, who presses Resume when done.');
    const state = this.enter(tabId, conversationId);
    await this.pause(state, reason.trim() || undefined);
    while (state.paused) await waitForUser(this.untilResumed(state, signal));
    if (signal.aborted) throw new Error('The run was stopped.');
    const page = await this.env.tabSite(tabId);
    if (!page) throw new Error(`Tab ${tabId} was closed while the user had it.`);
    const url = page.url;
    const read = await this.callPage<OutlineReply>(tabId, { op: 'outline' }).catch((error: unknown) => ({ ok: false as const, error: String(error instanceof Error ? error.message : error) }));
    const note = 'The user had the tab and pressed Resume. Go on from the page as it is now (the outline below); references from before may be stale.';
    if (!read.ok) {
      return { resumed: true, url, title: untrusted(url, oneLine(page.title, 300)), outline: `The page could not be read (${read.error}): call read_page.`, note };
    }
    const cut = read.truncated ? '\n(The outline was cut: call read_page with a selector or ref for the rest.)' : '';
    return { resumed: true, url: read.url || url, title: untrusted(read.url || url, oneLine(read.title, 300)), outline: untrusted(read.url || url, read.text) + cut, note };
  }

  /** The tab the conversation's run waits on while the user has it, or null. */
  pausedIn(conversationId: string): PausedTab | null {
    for (const state of this.tabs.values()) {
      if (state.conversationId === conversationId && state.paused) return this.pausedView(state);
    }
    return null;
  }

  active(): boolean {
    for (const state of this.tabs.values()) if (state.paused) return true;
    return false;
  }

  until(tabId: number): Promise<void> | undefined {
    return this.tabs.get(tabId)?.paused?.resumed.promise;
  }

  /** Resume from the sidebar: every tab of the conversation the user has goes back to the run. */
  resumeConversation(conversationId: string): void {
    for (const state of [...this.tabs.values()]) if (state.conversationId === conversationId) this.resume(state);
  }

  dispose(): void {
    for (const dispose of this.disposers.splice(0)) dispose();
    for (const state of this.tabs.values()) state.paused?.resumed.resolve();
    this.tabs.clear();
  }

  /** The tab's state for this conversation's run (a tab another run acted in passes to this one, unless the user has it). */
  private enter(tabId: number, conversationId: string): TabState {
    let state = this.tabs.get(tabId);
    if (state && (state.conversationId === conversationId || state.paused)) return state;
    if (state) this.tabs.delete(tabId);
    state = { tabId, conversationId, shown: state?.shown, chain: state?.chain ?? Promise.resolve() };
    this.tabs.set(tabId, state);
    // Bounded: runs whose end was never heard of (direct calls) give way to new ones.
    while (this.tabs.size > MAX_TRACKED_TABS) this.tabs.delete(this.tabs.keys().next().value!);
    return state;
  }

  private untilResumed(state: TabState, signal: AbortSignal): Promise<void> {
    const resumed = state.paused?.resumed.promise ?? Promise.resolve();
    if (signal.aborted) return Promise.reject(new Error('The run was stopped.'));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new Error('The run was stopped while the user had the tab.'));
      signal.addEventListener('abort', onAbort, { once: true });
      void resumed.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  private async pause(state: TabState, reason?: string): Promise<void> {
    this.released(state.tabId, false);
    if (state.paused) state.paused.reason = reason ?? state.paused.reason;
    else state.paused = { reason, site: '', resumed: deferred() };
    const paused = state.paused;
    const page = await this.env.tabSite(state.tabId);
    paused.site = hostOf(page?.url);
    if (this.tabs.get(state.tabId) !== state || state.paused !== paused) return;
    this.announce(state);
    await this.show(state, 'paused');
  }

  private resume(state: TabState): void {
    const paused = state.paused;
    if (!paused) return;
    state.paused = undefined;
    paused.resumed.resolve();
    this.announce(state);
    void this.show(state, 'acting');
  }

  private pausedView(state: TabState): PausedTab | null {
    if (!state.paused) return null;
    const { reason, site } = state.paused;
    return { conversationId: state.conversationId, tabId: state.tabId, site, ...(reason ? { reason } : {}) };
  }

  private announce(state: TabState): void {
    this.ctx.broadcast({ type: 'page-actions-paused', conversationId: state.conversationId, paused: this.pausedView(state) });
  }

  /** Sets the bar of the tab's document (in order; a page that cannot show it is left alone). */
  private show(state: TabState, bar: BarState): Promise<void> {
    const run = state.chain.then(async () => {
      // A bar request for a tab whose run is over (or passed to another) is dropped, except 'off'.
      if (bar !== 'off' && this.tabs.get(state.tabId) !== state) return;
      const reply = await this.callPage(state.tabId, { op: 'bar', state: bar, ...(bar === 'paused' && state.paused?.reason ? { reason: state.paused.reason } : {}) });
      if (reply.ok) state.shown = bar;
    });
    state.chain = run.catch(() => undefined);
    return state.chain as Promise<void>;
  }

  private runEnded(conversationId: string): void {
    for (const state of [...this.tabs.values()]) {
      if (state.conversationId !== conversationId) continue;
      this.tabs.delete(state.tabId);
      this.released(state.tabId, true);
      const wasPaused = Boolean(state.paused);
      state.paused?.resumed.resolve();
      state.paused = undefined;
      if (wasPaused) this.announce(state);
      // Only a document that shows the bar is asked to hide it (no injection into a new page for that).
      if (state.shown && state.shown !== 'off') void this.show(state, 'off');
    }
  }

  private tabClosed(tabId: number): void {
    this.released(tabId, true);
    const state = this.tabs.get(tabId);
    if (!state) return;
    this.tabs.delete(tabId);
    if (state.paused) {
      state.paused.resumed.resolve();
      state.paused = undefined;
      this.announce(state);
    }
  }

  private tabUpdated(tabId: number, change: { status?: string; url?: string }): void {
    const state = this.tabs.get(tabId);
    if (!state) return;
    // A new document has no bar; once it has loaded, it gets the bar in the state it was in.
    if (change.status === 'loading') state.shown = undefined;
    else if (change.status === 'complete' && state.shown === undefined) void this.show(state, state.paused ? 'paused' : 'acting');
  }

  /** A bar port: only from the top frame of a web page in a tab, opened by this extension's page agent. */
  private connected(port: Browser.runtime.Port): void {
    if (port.name !== BAR_PORT) return;
    const sender = port.sender;
    const tabId = sender?.tab?.id;
    const fromOwnPage = Boolean(sender?.url?.startsWith(this.env.ownUrl));
    if (!sender || sender.id !== this.env.runtimeId || sender.frameId !== 0 || typeof tabId !== 'number' || fromOwnPage) {
      port.disconnect();
      return;
    }
    port.onMessage.addListener((message: unknown) => this.pressed(tabId, message));
  }

  /** A bar button, pressed by the user (the page agent sends trusted clicks only). */
  private pressed(tabId: number, message: unknown): void {
    const button = (message as { button?: unknown } | null)?.button;
    if (typeof button !== 'string' || !BUTTONS.has(button as BarButton)) return;
    // Only a tab the agent is acting in now: a press after the run ended does nothing.
    const state = this.tabs.get(tabId);
    if (!state) return;
    if (button === 'stop') {
      if (!this.ctx.conversations.stop(state.conversationId)) this.runEnded(state.conversationId);
    } else if (button === 'take-over') {
      void this.pause(state);
    } else {
      this.resume(state);
    }
  }
}

export function createControl(ctx: PluginContext, callPage: CallPage, env: ControlBrowser = realBrowser(), released?: (tabId: number, runEnded: boolean) => void): Control {
  return new Control(ctx, callPage, env, released);
}

/** The tab a call means: its `tab_id`, the run's bound tab, or the tab the user is looking at. */
async function tabOf(input: { tab_id?: number }, context: { tabId?: number }): Promise<number> {
  const id = input.tab_id ?? context.tabId ?? (await userTab())?.id;
  if (id === undefined) throw new Error('There is no tab to hand over: give tab_id (from list_tabs).');
  return id;
}

/** `hand_over`: the model asks the user to do something in the tab and waits for Resume. */
export const controlTools: ToolDefinition<any, any, PageActionsService>[] = [
  defineTool<FromSchema<typeof pageActionsSchemas.hand_over>, HandOverResult, PageActionsService>({
    name: 'hand_over',
    description:
      'Hand the tab to the user for what only they should do (sign in, a CAPTCHA, a payment, their choice) and wait up to 30 minutes for Resume; returns the page as they left it. Not for questions or what you can do yourself.',
    inputSchema: pageActionsSchemas.hand_over,
    // It does nothing to the page itself: the user does. It waits for a person.
    annotations: {
      readOnly: true,
      destructive: false,
      openWorld: false,
      pages: true,
      interactive: true,
      target: (input: { tab_id?: number }, context) => {
        const tabId = input.tab_id ?? context.tabId;
        return tabId === undefined ? undefined : { tabId };
      },
    },
    timeoutMs: HAND_OVER_TIMEOUT_MS,
    async execute(input, context) {
      const tabId = await tabOf(input, context);
      return context.service.control.handOver(tabId, context.conversationId, input.reason, context.signal, context.waitForUser);
    },
  }),
];

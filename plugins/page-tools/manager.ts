import { browser, type Browser } from 'wxt/browser';
import type { ToolRegistry } from '@/core/registry/registry';
import { oneLine } from '@/core/registry/untrusted';
import { originOf } from '@/core/net/origin';
import { BACKGROUND_LIMITS, capResult, sanitizeList } from './limits';
import { pagePlugin } from './page-plugin';
import { Session, sessionView } from './session';
import type { ConsentDecision, PageTabView, SiteConsent, SitePermission } from './types';
import { PAGE_TOOLS_PORT, REFRESH_MESSAGE, type RefreshRequest, type RelayToBackground, type WireCallResult, type WireToolList } from './wire';

export { capResult } from './limits';
export { FORM_WAIT_MS, modelSchema, withDefaults } from './page-plugin';

type Port = Browser.runtime.Port;

/** Where remembered site decisions live (the background backs it with a WXT storage item). */
export interface SitePermissionStore {
  load(): Promise<Record<string, SitePermission>>;
  save(all: Record<string, SitePermission>): Promise<void>;
}

export interface PageToolsOptions {
  registry: ToolRegistry;
  permissions: SitePermissionStore;
  /** Called whenever what `views()` returns may have changed. */
  onChange?(): void;
  /**
   * The tabs in play in a conversation (the core's rule, `PluginContext.conversations.tabsInPlay`):
   * `list_page_tools` without a tab lists only theirs, as only their tools are offered.
   */
  tabsInPlay(conversationId: string | undefined, boundTab?: number): Promise<ReadonlySet<number>>;
}

/** How long a form that navigated may take to load the page it leads to. */
const NAVIGATION_WAIT_MS = 15_000;

/**
 * The background half of page tools. Each document whose page offers tools opens a port; the
 * manager keeps one session per tab (the newest document wins), turns its groups into one page
 * plugin in the registry — scoped to that tab and origin, with namespaced names — once the user
 * has allowed the site, and removes it when the port closes (navigation, reload, tab closed),
 * when the tab moves to another origin, or when the user says never.
 *
 * The tab and the origin come from the port's `sender`, never from what the page sends.
 */
export class PageToolsManager {
  private readonly sessions = new Map<number, Session>();
  private permissions: Record<string, SitePermission> = {};
  private readonly waiters = new Set<() => void>();

  constructor(private readonly options: PageToolsOptions) {}

  /** How many tabs' sessions, their calls waiting for the page, and refresh waiters it holds (`ctx.retained`). */
  retainedSizes(): { sessions: number; pendingCalls: number; callNames: number; waiters: number } {
    let pendingCalls = 0;
    let callNames = 0;
    for (const s of this.sessions.values()) {
      pendingCalls += s.pending.size;
      callNames += s.callTools.size;
    }
    return { sessions: this.sessions.size, pendingCalls, callNames, waiters: this.waiters.size };
  }

  /** Registers the listeners; call synchronously at start-up (a woken worker gets its event at once). */
  listen(): void {
    browser.runtime.onConnect.addListener((port) => {
      if (port.name === PAGE_TOOLS_PORT) this.accept(port);
    });
    browser.tabs.onRemoved.addListener((tabId) => this.drop(tabId, 'The tab was closed.'));
    browser.tabs.onUpdated.addListener((tabId, info) => {
      const session = this.sessions.get(tabId);
      if (!session) return;
      // A form that navigated: the tab has loaded where it led (the old document's port may
      // linger in the back-forward cache, so this does not wait for its disconnect).
      if (info.status === 'complete' && [...session.status.values()].some((s) => s.status === 'navigating')) {
        void this.afterNavigation(tabId).then((result) => session.resolveNavigating(result));
      }
      if (info.url && originOf(info.url) !== session.origin) {
        this.drop(tabId, 'The tab moved to another site.');
      } else if (info.title && info.title !== session.title) {
        session.title = info.title;
        this.changed();
      }
    });
  }

  /** Loads remembered decisions, then asks open tabs to announce their tools (after a worker restart). */
  async start(): Promise<void> {
    // Pages may have connected before the decisions were read: apply them to those too.
    this.applyPermissions(await this.options.permissions.load());
    const tabs = await browser.tabs.query({ url: ['http://*/*', 'https://*/*'] }).catch(() => []);
    for (const tab of tabs) {
      // No injection here: tabs opened before the install get the bridge when someone asks for them.
      if (tab.id !== undefined) void this.ask(tab.id, 'extension started', false).catch(() => undefined);
    }
  }

  /** Applies decisions changed elsewhere (storage written by another context). */
  applyPermissions(all: Record<string, SitePermission>): void {
    this.permissions = { ...all };
    for (const session of this.sessions.values()) this.sync(session);
    this.changed();
  }

  // ——— What the UI and the model see ———

  views(): PageTabView[] {
    return [...this.sessions.values()]
      .filter((s) => s.list && s.list.groups.some((g) => g.tools.length))
      .map((s) => this.view(s));
  }

  view(session: Session): PageTabView {
    return sessionView(session, this.consentOf(session));
  }

  /** The tabs in play in a conversation (see `PageToolsOptions.tabsInPlay`). */
  tabsInPlay(conversationId: string | undefined, boundTab?: number): Promise<ReadonlySet<number>> {
    return this.options.tabsInPlay(conversationId, boundTab);
  }

  /** The tab the user is looking at (the sidebar opened in a tab skipped), when known. */
  async userTab(): Promise<number | undefined> {
    return this.options.registry.userTab?.().catch(() => undefined);
  }

  listPermissions(): SitePermission[] {
    return Object.values(this.permissions).sort((a, b) => a.origin.localeCompare(b.origin));
  }

  /**
   * Asks a tab for a fresh list (the user's refresh, the agent's list_page_tools) and returns what
   * it offers then, or null when the page offers nothing. Injects the bridge into a tab opened
   * before the extension was installed.
   */
  async refresh(tabId: number, reason = 'refresh'): Promise<PageTabView | null> {
    // The answer comes from the page: cleaned like a list that arrives over the port.
    const list = sanitizeList(await this.ask(tabId, reason));
    if (!list || !list.groups.some((g) => g.tools.length)) return null;
    // The list also arrives over the port, which may be a moment behind this answer.
    const signature = JSON.stringify(list.groups);
    await this.until(() => {
      const s = this.sessions.get(tabId);
      return Boolean(s?.list && JSON.stringify(s.list.groups) === signature);
    }, 2000);
    const session = this.sessions.get(tabId);
    return session ? this.view(session) : null;
  }

  /** Records the user's answer for a site; `once` covers the site's pages open now. */
  async decide(origin: string, decision: ConsentDecision): Promise<void> {
    if (decision === 'once') {
      for (const s of this.sessions.values()) if (s.origin === origin) s.once = true;
    } else {
      this.permissions = { ...this.permissions, [origin]: { origin, decision, at: Date.now() } };
      await this.options.permissions.save(this.permissions);
      if (decision === 'never') for (const s of this.sessions.values()) if (s.origin === origin) s.once = false;
    }
    for (const s of this.sessions.values()) if (s.origin === origin) this.sync(s);
    this.changed();
  }

  /** Forgets the decision for a site: its tools wait for the user's answer again. */
  async revoke(origin: string): Promise<void> {
    const next = { ...this.permissions };
    delete next[origin];
    this.permissions = next;
    await this.options.permissions.save(next);
    for (const s of this.sessions.values()) {
      if (s.origin !== origin) continue;
      s.once = false;
      this.sync(s);
    }
    this.changed();
  }

  /**
   * Delete all data: forgets every site's decision (kept in memory; the core empties the stored
   * copy) and every *Allow once*; the sites' tools wait for the user's answer again.
   */
  forgetAll(): void {
    this.permissions = {};
    for (const s of this.sessions.values()) {
      s.once = false;
      this.sync(s);
    }
    this.changed();
  }

  // ——— Sessions ———

  private accept(port: Port): void {
    const sender = port.sender;
    const tabId = sender?.tab?.id;
    const url = sender?.url ?? sender?.tab?.url ?? '';
    const origin = originOf(url);
    // Our own content scripts, top frame, web pages only.
    if (sender?.id !== browser.runtime.id || tabId === undefined || (sender.frameId ?? 0) !== 0 || !origin) {
      port.disconnect();
      return;
    }
    let session: Session | undefined;
    const current = () => (session && this.sessions.get(tabId) === session ? session : undefined);
    port.onMessage.addListener((raw) => {
      const message = raw as RelayToBackground;
      if (!message || typeof message !== 'object') return;
      if (message.type === 'tools') {
        // Everything the page sent is checked and cleaned here: the MAIN world's own checks run
        // in the page, which can skip them and forge the relay's events.
        const list = sanitizeList(message.list);
        if (!list) return;
        const clean = { type: 'tools' as const, list, title: typeof message.title === 'string' ? oneLine(message.title, 300) : '', url: typeof message.url === 'string' ? message.url.slice(0, 4096) : '' };
        // A new document of the tab (or one whose session was dropped) takes its place.
        if (!current()) {
          session = new Session(tabId, origin, port, url);
          this.replace(tabId, session);
        }
        this.throttle(session!, clean);
      } else if (message.type === 'status' && typeof message.callId === 'string') {
        const s = current();
        if (s?.pending.has(message.callId) && (message.status === 'waiting-user' || message.status === 'navigating')) {
          s.status.set(message.callId, { status: message.status, tool: s.callTools.get(message.callId) ?? '' });
          this.changed();
        }
      } else if (message.type === 'result' && typeof message.callId === 'string') {
        const s = current();
        const resolve = s?.pending.get(message.callId);
        if (s && resolve) {
          s.pending.delete(message.callId);
          resolve(capResult(message.result));
        }
      }
    });
    port.onDisconnect.addListener(() => {
      if (current()) this.drop(tabId, 'The page was closed, reloaded or navigated away before the tool finished.');
    });
  }

  private replace(tabId: number, session: Session): void {
    const old = this.sessions.get(tabId);
    if (old) this.dispose(old, 'The page was replaced by a new one.');
    this.sessions.set(tabId, session);
  }

  private drop(tabId: number, reason: string): void {
    const session = this.sessions.get(tabId);
    if (!session) return;
    this.sessions.delete(tabId);
    this.dispose(session, reason);
    this.changed();
  }

  private dispose(session: Session, reason: string): void {
    clearTimeout(session.queueTimer);
    session.queueTimer = undefined;
    session.disposePlugin?.();
    session.disposePlugin = undefined;
    session.failPending(reason, () => this.afterNavigation(session.tabId));
  }

  /**
   * Where a submitted form led: the tab's address and title once it has loaded (the browser's
   * word, not the page's), for the form tool's result.
   */
  private async afterNavigation(tabId: number): Promise<WireCallResult> {
    const deadline = Date.now() + NAVIGATION_WAIT_MS;
    for (;;) {
      const tab = await browser.tabs.get(tabId).catch(() => undefined);
      if (!tab) return { ok: false, error: 'The form was submitted, then the tab was closed.' };
      if (tab.status === 'complete' || Date.now() > deadline) {
        return { ok: true, json: JSON.stringify({ submitted: true, navigated: true, url: tab.url ?? '', title: tab.title ?? '', ...(tab.status === 'complete' ? {} : { note: 'The new page had not finished loading.' }) }) };
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  /**
   * Applies a list at once, unless one was applied less than `updateIntervalMs` ago: then the
   * newest waits for the end of that window (older ones are dropped unread). A page flooding its
   * port costs the background one list per window per tab.
   */
  private throttle(session: Session, message: Extract<RelayToBackground, { type: 'tools' }>): void {
    const wait = session.lastApplied + BACKGROUND_LIMITS.updateIntervalMs - Date.now();
    if (wait <= 0 && !session.queueTimer) {
      session.lastApplied = Date.now();
      this.update(session, message);
      return;
    }
    session.queued = message;
    session.queueTimer ??= setTimeout(() => {
      session.queueTimer = undefined;
      const next = session.queued;
      session.queued = undefined;
      if (!next || this.sessions.get(session.tabId) !== session) return;
      session.lastApplied = Date.now();
      this.update(session, next);
    }, Math.max(0, wait));
  }

  private update(session: Session, message: Extract<RelayToBackground, { type: 'tools' }>): void {
    const same = session.list && JSON.stringify(session.list.groups) === JSON.stringify(message.list.groups);
    // A page repeating the same list (a loop, a flood) costs no broadcast and no re-render.
    if (same && (session.disposePlugin !== undefined) === this.allowed(session) && message.title === session.title && message.url === session.url) {
      session.updatedAt = Date.now();
      return;
    }
    session.list = message.list;
    session.title = message.title || session.title;
    // The URL may change within the document (a route change), never the origin.
    if (typeof message.url === 'string' && originOf(message.url) === session.origin) session.url = message.url;
    session.updatedAt = Date.now();
    if (!same || !session.disposePlugin) session.remap();
    this.sync(session, !same);
    this.changed();
  }

  private consentOf(session: Session): SiteConsent {
    const remembered = this.permissions[session.origin]?.decision;
    if (remembered) return remembered;
    return session.once ? 'once' : 'pending';
  }

  private allowed(session: Session): boolean {
    const consent = this.consentOf(session);
    return (consent === 'always' || consent === 'once') && session.mapped.size > 0;
  }

  /** Registers the session's plugin when the site is allowed and it has tools; removes it otherwise. */
  private sync(session: Session, force = false): void {
    const consent = this.consentOf(session);
    const allowed = (consent === 'always' || consent === 'once') && session.mapped.size > 0;
    if (!allowed || force) {
      session.disposePlugin?.();
      session.disposePlugin = undefined;
    }
    if (!allowed || session.disposePlugin) return;
    try {
      session.disposePlugin = this.options.registry.register(pagePlugin(session, { isCurrent: (s) => this.sessions.get(s.tabId) === s, changed: () => this.changed() }));
    } catch (error) {
      // A name taken by another plugin: never shadow it. Say so in the tab's problems.
      session.list?.problems.push(oneLine(`Not offered to the agent: ${(error as Error).message}`, BACKGROUND_LIMITS.problemChars));
    }
  }

  /** Sends the tab a refresh request; injects the bridge first when the tab has none. */
  private async ask(tabId: number, reason: string, inject = true): Promise<WireToolList | null> {
    const request: RefreshRequest = { type: REFRESH_MESSAGE, reason };
    try {
      return ((await browser.tabs.sendMessage(tabId, request, { frameId: 0 })) as WireToolList | null) ?? null;
    } catch {
      if (!inject || !(await this.inject(tabId))) return null;
      return ((await browser.tabs.sendMessage(tabId, request, { frameId: 0 }).catch(() => null)) as WireToolList | null) ?? null;
    }
  }

  /** The content scripts are only in pages loaded after install: add them to an older tab. */
  private async inject(tabId: number): Promise<boolean> {
    const tab = await browser.tabs.get(tabId).catch(() => undefined);
    if (!tab?.url || !originOf(tab.url)) return false;
    try {
      await browser.scripting.executeScript({ target: { tabId }, files: ['/content-scripts/page-tools-main.js'], world: 'MAIN' });
      await browser.scripting.executeScript({ target: { tabId }, files: ['/content-scripts/page-tools.js'] });
      return true;
    } catch {
      return false;
    }
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter();
    this.options.onChange?.();
  }

  private until(predicate: () => boolean, timeoutMs: number): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate()) return;
        finish();
      };
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.waiters.add(check);
    });
  }
}


import { browser, type Browser } from 'wxt/browser';
import type { ToolRegistry } from '@/core/registry/registry';
import type { Plugin, ToolAnnotations, ToolDefinition } from '@/core/registry/types';
import { oneLine, untrusted } from '@/core/registry/untrusted';
import { toModelSchema } from '@/core/page/element-schema';
import { BACKGROUND_LIMITS, sanitizeList } from './limits';
import { namespacedName, pageToolDescription, siteOf, wrapPageResult } from './naming';
import type { ConsentDecision, PageTabView, SiteConsent, SitePermission } from './types';
import { originOf } from '@/core/net/origin';
import {
  PAGE_TOOLS_PORT,
  REFRESH_MESSAGE,
  type BackgroundToRelay,
  type RefreshRequest,
  type RelayToBackground,
  type WireCallResult,
  type WireCallStatus,
  type WireTool,
  type WireToolList,
} from './wire';

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

interface Mapped {
  key: string;
  pageName: string;
  group: string;
  schema: Record<string, unknown>;
  frame?: string;
}

/** How long a form tool without `toolautosubmit` waits for the user's own submit. */
export const FORM_WAIT_MS = 5 * 60_000;
/** How long a form that navigated may take to load the page it leads to. */
const NAVIGATION_WAIT_MS = 15_000;

/** One document of one tab that offers tools: lives as long as its relay's port. */
class Session {
  list: WireToolList | undefined;
  title = '';
  url: string;
  once = false;
  updatedAt = Date.now();
  /** When the last list was applied, and the newest one waiting for the rate limit. */
  lastApplied = -Infinity;
  queued: Extract<RelayToBackground, { type: 'tools' }> | undefined;
  queueTimer: ReturnType<typeof setTimeout> | undefined;
  /** Namespaced model name → the page's tool. */
  mapped = new Map<string, Mapped>();
  disposePlugin: (() => void) | undefined;
  readonly pending = new Map<string, (result: WireCallResult) => void>();
  /** Calls whose form is waiting for the user's submit (the tool's page name), or navigating. */
  readonly status = new Map<string, { status: WireCallStatus; tool: string }>();
  readonly callTools = new Map<string, string>();
  private counter = 0;

  constructor(
    readonly tabId: number,
    readonly origin: string,
    readonly port: Port,
    url: string,
  ) {
    this.url = url;
  }

  /** Sends a call to the page and resolves with its result; rejects when `signal` aborts. */
  call(key: string, input: Record<string, unknown>, signal: AbortSignal, tool = ''): Promise<WireCallResult> {
    const callId = String(++this.counter);
    this.callTools.set(callId, tool);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(callId);
        this.forget(callId);
        this.post({ type: 'cancel', callId, reason: 'The agent stopped waiting for this call.' });
        reject(signal.reason ?? new Error('aborted'));
      };
      this.pending.set(callId, (result) => {
        signal.removeEventListener('abort', onAbort);
        this.forget(callId);
        resolve(result);
      });
      signal.addEventListener('abort', onAbort, { once: true });
      if (!this.post({ type: 'call', callId, key, input })) {
        this.pending.delete(callId);
        signal.removeEventListener('abort', onAbort);
        resolve({ ok: false, error: 'The page is no longer reachable (it was closed or navigated away).' });
      }
    });
  }

  post(message: BackgroundToRelay): boolean {
    try {
      this.port.postMessage(message);
      return true;
    } catch {
      return false;
    }
  }

  /** Answers the calls whose form navigated: the tab has loaded the page it led to. */
  resolveNavigating(result: WireCallResult): void {
    for (const [callId, entry] of [...this.status]) {
      if (entry.status !== 'navigating') continue;
      const resolve = this.pending.get(callId);
      this.pending.delete(callId);
      resolve?.(result);
    }
  }

  forget(callId: string): void {
    this.status.delete(callId);
    this.callTools.delete(callId);
  }

  /**
   * Answers every call still waiting: the document is gone. A form that was submitting (the page
   * said it navigates) gets the page it led to instead, from `afterNavigation`.
   */
  failPending(reason: string, afterNavigation?: () => Promise<WireCallResult>): void {
    for (const [callId, resolve] of this.pending) {
      if (this.status.get(callId)?.status === 'navigating' && afterNavigation) void afterNavigation().then(resolve);
      else resolve({ ok: false, error: reason });
    }
    this.pending.clear();
  }
}

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
    const consent = this.consentOf(session);
    const byKey = new Map([...session.mapped.entries()].map(([modelName, m]) => [m.key, modelName]));
    return {
      tabId: session.tabId,
      origin: session.origin,
      site: siteOf(session.origin),
      url: session.url,
      title: session.title,
      consent,
      offered: Boolean(session.disposePlugin),
      discoveryMs: session.list?.discoveryMs ?? 0,
      updatedAt: session.updatedAt,
      problems: session.list?.problems ?? [],
      ...(session.status.size
        ? { waiting: [...session.status.values()].filter((w) => w.status === 'waiting-user').map((w) => ({ tool: w.tool })) }
        : {}),
      groups: (session.list?.groups ?? []).map((g) => ({
        name: g.name,
        description: g.description,
        source: g.source,
        ...(g.frame ? { frame: g.frame } : {}),
        tools: g.tools.map((t) => ({
          name: t.name,
          modelName: byKey.get(t.key) ?? '',
          description: t.description,
          ...(t.title ? { title: t.title } : {}),
          ...(t.annotations?.readOnlyHint ? { readOnly: true } : {}),
          ...(t.form ? { form: true } : {}),
          ...(g.frame ? { frame: g.frame } : {}),
        })),
      })),
    };
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
    if (!same || !session.disposePlugin) this.remap(session);
    this.sync(session, !same);
    this.changed();
  }

  /** Gives every tool of the list its namespaced name, keeping earlier names where it can. */
  private remap(session: Session): void {
    const previous = new Map([...session.mapped.entries()].map(([modelName, m]) => [m.key, modelName]));
    const mapped = new Map<string, Mapped>();
    const taken = new Set<string>();
    const tools: Array<{ tool: WireTool; group: string; frame?: string }> = [];
    for (const group of session.list?.groups ?? []) for (const tool of group.tools) tools.push({ tool, group: group.name, frame: group.frame });
    // Keep the names the model already knows, then name the new ones.
    for (const { tool, group, frame } of tools) {
      const kept = previous.get(tool.key);
      if (kept && !taken.has(kept)) {
        taken.add(kept);
        mapped.set(kept, { key: tool.key, pageName: tool.name, group, schema: tool.inputSchema, frame });
      }
    }
    const named = new Set([...mapped.values()].map((m) => m.key));
    for (const { tool, group, frame } of tools) {
      if (named.has(tool.key)) continue;
      named.add(tool.key);
      const name = namespacedName(session.tabId, tool.name, taken);
      taken.add(name);
      mapped.set(name, { key: tool.key, pageName: tool.name, group, schema: tool.inputSchema, frame });
    }
    session.mapped = mapped;
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
      session.disposePlugin = this.options.registry.register(this.plugin(session));
    } catch (error) {
      // A name taken by another plugin: never shadow it. Say so in the tab's problems.
      session.list?.problems.push(oneLine(`Not offered to the agent: ${(error as Error).message}`, BACKGROUND_LIMITS.problemChars));
    }
  }

  private plugin(session: Session): Plugin {
    const toolByKey = new Map<string, WireTool>();
    for (const group of session.list?.groups ?? []) for (const tool of group.tools) toolByKey.set(tool.key, tool);
    const tools: ToolDefinition[] = [...session.mapped.entries()].map(([modelName, m]) => {
      const wire = toolByKey.get(m.key);
      return {
        name: modelName,
        description: pageToolDescription({
          origin: session.origin,
          tabId: session.tabId,
          group: m.group,
          description: wire?.description ?? '',
          readOnly: wire?.annotations?.readOnlyHint,
          frame: m.frame,
          form: wire?.form,
        }),
        inputSchema: modelSchema(m.schema),
        // A form the user submits themselves may take them a while.
        ...(wire?.form && !wire.form.autosubmit ? { timeoutMs: FORM_WAIT_MS } : {}),
        // The page decides what its tool does, with the user's session on that site: taken as
        // acting until a policy says otherwise. What the page says of it is only a claim.
        annotations: {
          readOnly: false,
          destructive: true,
          openWorld: true,
          pages: true,
          target: () => ({ tabId: session.tabId, url: session.url }),
          claims: pageClaims(wire?.annotations),
        },
        execute: (input: Record<string, unknown>, context) => this.execute(session, modelName, m, input, context.signal, wire?.annotations?.untrustedContentHint === true),
      };
    });
    return {
      id: `page:${session.tabId}`,
      source: 'page',
      name: `${siteOf(session.origin)} (tab ${session.tabId})`,
      description: `Tools offered by the page ${session.url}`,
      scope: { tabId: session.tabId, origin: session.origin },
      tools,
    };
  }

  /**
   * Runs one of the page's tools. Errors name it by its namespaced name (`modelName`, letters,
   * digits, `_` and `-`), never by the name the page chose, which is the page's words.
   */
  private async execute(session: Session, modelName: string, m: Mapped, input: Record<string, unknown>, signal: AbortSignal, untrustedHint = false): Promise<unknown> {
    if (this.sessions.get(session.tabId) !== session) {
      throw new Error(`The page in tab ${session.tabId} changed: its tool ${modelName} is gone. Call list_page_tools to see what it offers now.`);
    }
    // No tab look-up here: the port belongs to one document, whose origin came from `sender`, so a
    // call can only ever run in that document (a tab that moved to another site dropped it).
    let result: WireCallResult;
    try {
      result = await session.call(m.key, withDefaults(input, m.schema), signal, m.pageName);
    } finally {
      // A form that waited for the user is no longer waiting, whatever the outcome.
      this.changed();
    }
    if (!result.ok) {
      // The page wrote the error: it reaches the model inside the envelope, like a result.
      throw new Error(`The page's tool ${modelName} (${siteOf(session.origin)}) failed. What the page said: ${untrusted(`error from page tool "${m.pageName}" of ${session.origin}`, result.error)}`);
    }
    let value: unknown;
    if (result.cut) {
      value = `${result.json}\n[Output cut: it was ${result.cut.totalChars} characters as JSON. Ask the page tool for less, e.g. a narrower path or a smaller limit.]`;
    } else if (result.json !== '') {
      try {
        value = JSON.parse(result.json);
      } catch {
        throw new Error(`The page's tool ${modelName} returned something that is not JSON.`);
      }
    }
    return wrapPageResult(session.origin, m.pageName, value, untrustedHint);
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

/** The origin of an http(s) URL, or '' for anything else. */
/** The hints a page gave about its tool (WebMCP's annotations), kept as claims. */
function pageClaims(annotations: Record<string, boolean> | undefined): ToolAnnotations['claims'] {
  if (!annotations) return undefined;
  const claims: NonNullable<ToolAnnotations['claims']> = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'openWorldHint', 'untrustedContentHint'] as const) {
    if (typeof annotations[key] === 'boolean') claims[key] = annotations[key];
  }
  return Object.keys(claims).length ? claims : undefined;
}


/**
 * The schema the model is sent: always an object of named arguments (`{}` means no arguments),
 * with element parameters (`"x-mcp-type": "HTMLElement"`) offered as a reference or a CSS selector.
 */
export function modelSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...toModelSchema(schema), type: 'object' };
  if (out.properties === undefined || typeof out.properties !== 'object') out.properties = {};
  return out;
}

/** Fills in top-level `default`s the model left out, as the seed's `limit` (default 5) expects. */
export function withDefaults(input: Record<string, unknown>, schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, { default?: unknown }> | undefined;
  if (!properties || typeof properties !== 'object') return input;
  const out = { ...input };
  for (const [key, prop] of Object.entries(properties)) {
    if (out[key] === undefined && prop && typeof prop === 'object' && 'default' in prop) out[key] = prop.default;
  }
  return out;
}

/** A page's call result, checked and capped (its JSON at `resultChars`, its error at `errorChars`). */
export function capResult(value: unknown): WireCallResult {
  const r = value as WireCallResult | null;
  if (r && r.ok === true && typeof r.json === 'string') {
    const total = typeof r.cut?.totalChars === 'number' && Number.isFinite(r.cut.totalChars) ? r.cut.totalChars : r.json.length;
    if (r.json.length > BACKGROUND_LIMITS.resultChars || r.cut) {
      return { ok: true, json: r.json.slice(0, BACKGROUND_LIMITS.resultChars), cut: { totalChars: Math.max(total, r.json.length) } };
    }
    return { ok: true, json: r.json };
  }
  if (r && r.ok === false && typeof (r as { error?: unknown }).error === 'string') {
    const error = (r as { error: string }).error;
    return { ok: false, error: error.length > BACKGROUND_LIMITS.errorChars ? `${error.slice(0, BACKGROUND_LIMITS.errorChars)}…` : error };
  }
  return { ok: false, error: 'The page sent a malformed result.' };
}

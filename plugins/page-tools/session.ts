/**
 * One document of one tab that offers page tools, as the background keeps it: its list, the names
 * the model knows its tools by, and the calls waiting for the page. Lives as long as its relay's
 * port; `PageToolsManager` keeps one per tab.
 */
import type { Browser } from 'wxt/browser';
import { namespacedName, siteOf } from './naming';
import type { PageTabView, SiteConsent } from './types';
import type { BackgroundToRelay, RelayToBackground, WireCallResult, WireCallStatus, WireTool, WireToolList } from './wire';

type Port = Browser.runtime.Port;

/** One page tool as the model knows it: its key in the page, names and schema. */
export interface Mapped {
  key: string;
  pageName: string;
  group: string;
  schema: Record<string, unknown>;
  frame?: string;
}

/** One document of one tab that offers tools: lives as long as its relay's port. */
export class Session {
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
        this.forget(callId);
        signal.removeEventListener('abort', onAbort);
        resolve({ ok: false, error: 'The page is no longer reachable (it was closed or navigated away).' });
      }
    });
  }

  /** Gives every tool of the list its namespaced name, keeping earlier names where it can. */
  remap(): void {
    const previous = new Map([...this.mapped.entries()].map(([modelName, m]) => [m.key, modelName]));
    const mapped = new Map<string, Mapped>();
    const taken = new Set<string>();
    const tools: Array<{ tool: WireTool; group: string; frame?: string }> = [];
    for (const group of this.list?.groups ?? []) for (const tool of group.tools) tools.push({ tool, group: group.name, frame: group.frame });
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
      const name = namespacedName(this.tabId, tool.name, taken);
      taken.add(name);
      mapped.set(name, { key: tool.key, pageName: tool.name, group, schema: tool.inputSchema, frame });
    }
    this.mapped = mapped;
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

/** What the UI and `list_page_tools` see of a session, with the site's consent. */
export function sessionView(session: Session, consent: SiteConsent): PageTabView {
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

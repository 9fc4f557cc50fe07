// A fake tab for the plugin's unit tests: `browser.scripting.executeScript` runs the real injected
// function against a fake page agent installed under the agent's key when the agent file is
// injected, as the browser would in the tab's isolated world.
import { vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { PageActionsService } from './service';
import { createPageCaller } from './service';
import { PAGE_AGENT_KEY, type PageRequest } from './protocol';

export interface FakePage {
  tabId: number;
  /** Every request the agent got (with the token the background sent). */
  requests: PageRequest[];
  /** How many times the agent file was injected. */
  injections: number;
  /** What the agent answers; replace per test. */
  answer: (request: PageRequest) => unknown;
  /** Calls made to `control.beforeAction`, in order with the agent's requests. */
  log: string[];
  service: PageActionsService & { dispose(): void };
  /** Removes the agent (a new document). */
  newDocument(): void;
}

const holder = globalThis as unknown as Record<symbol, unknown>;

export async function fakePage(url = 'https://shop.example/cart', extra: Record<string, unknown> = {}): Promise<FakePage> {
  const tab = await fakeBrowser.tabs.create({ url });
  await fakeBrowser.tabs.update(tab.id!, { status: 'complete', title: 'Cart', ...extra } as never);
  const page: FakePage = {
    tabId: tab.id!,
    requests: [],
    injections: 0,
    log: [],
    answer: (request) => ({ ok: true, token: 'tok1', changed: '', url, title: 'Cart', ...(request.op === 'outline' ? { text: '- button "Buy" [ref=e1]', nodes: 1, truncated: false } : {}) }),
    service: undefined as never,
    newDocument: () => delete holder[Symbol.for(PAGE_AGENT_KEY)],
  };
  delete holder[Symbol.for(PAGE_AGENT_KEY)];
  fakeBrowser.scripting.executeScript = vi.fn(async (injection: { files?: string[]; func?: (...args: unknown[]) => unknown; args?: unknown[] }) => {
    if (injection.files) {
      page.injections++;
      holder[Symbol.for(PAGE_AGENT_KEY)] = {
        handle: async (request: PageRequest) => {
          page.requests.push(request);
          page.log.push(`page:${request.op}`);
          return page.answer(request);
        },
      };
      return [];
    }
    // A structured clone each way, as the browser does.
    const result = await injection.func!(...structuredClone(injection.args ?? []));
    return [{ frameId: 0, result: result === undefined ? undefined : structuredClone(result) }];
  }) as never;
  const caller = createPageCaller();
  page.service = {
    ...caller,
    control: {
      beforeAction: async (tabId) => {
        page.log.push(`before:${tabId}`);
        return { userHadTab: false };
      },
      dispose: () => undefined,
      pageChanged: () => undefined,
      handOver: async () => {
        throw new Error('The fake page has no user to hand over to.');
      },
      pausedIn: () => null,
      resumeConversation: () => undefined,
      active: () => false,
      until: () => undefined,
    },
  };
  return page;
}

/** A tool context for the fake page's service. */
export function contextFor(page: FakePage, signal = new AbortController().signal) {
  return { signal, service: page.service, conversationId: 'c1' };
}

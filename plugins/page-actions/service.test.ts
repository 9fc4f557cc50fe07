// The background side of page-actions: injecting the page agent, document tokens, checking what
// the page side answers (the tabs no extension may script: tests/unit/tab-access.test.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { checkReply, LIMITS } from './replies';
import { createTokenStore } from './service';
import { fakePage } from './test-page';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('callPage', () => {
  it('injects the agent once per document, then sends requests to it', async () => {
    const page = await fakePage();
    expect(await page.service.callPage(page.tabId, { op: 'outline' })).toMatchObject({ ok: true, token: 'tok1', text: '- button "Buy" [ref=e1]' });
    await page.service.callPage(page.tabId, { op: 'hover', ref: 'e1' });
    expect(page.injections).toBe(1);
    const files = vi.mocked(fakeBrowser.scripting.executeScript).mock.calls.filter(([i]) => 'files' in i).map(([i]) => (i as { files: string[] }).files);
    expect(files).toEqual([['/page-actions-agent.js']]);
    // A new document (a navigation) has no agent: injected again.
    page.newDocument();
    await page.service.callPage(page.tabId, { op: 'outline' });
    expect(page.injections).toBe(2);
  });

  it('keeps the last token per tab and sends it with every request that names an element', async () => {
    const page = await fakePage();
    await page.service.callPage(page.tabId, { op: 'outline' });
    expect(page.service.lastToken(page.tabId)).toBe('tok1');
    await page.service.callPage(page.tabId, { op: 'click', ref: 'e1' });
    await page.service.callPage(page.tabId, { op: 'press', key: 'Enter' });
    expect(page.requests.map((r) => r.token)).toEqual([undefined, 'tok1', undefined]);
    // The page reloaded: its replies carry the new token, which is sent from then on.
    page.answer = (r) => ({ ok: true, token: 'tok2', changed: '', url: '', title: '', ...(r.op === 'outline' ? { text: '', nodes: 0, truncated: false } : {}) });
    await page.service.callPage(page.tabId, { op: 'outline' });
    await page.service.callPage(page.tabId, { op: 'fill', ref: 'e3', text: 'x' });
    expect(page.requests.at(-1)!.token).toBe('tok2');
  });

  it('hands a stale refusal back as it is, and does not take a token from a refusal', async () => {
    const page = await fakePage();
    await page.service.callPage(page.tabId, { op: 'outline' });
    page.answer = () => ({ ok: false, error: 'The reference e1 is from an earlier page.', stale: true });
    expect(await page.service.callPage(page.tabId, { op: 'click', ref: 'e1' })).toEqual({ ok: false, error: 'The reference e1 is from an earlier page.', stale: true });
    expect(page.service.lastToken(page.tabId)).toBe('tok1');
  });

  it('forgets a closed tab\'s token', async () => {
    const page = await fakePage();
    await page.service.callPage(page.tabId, { op: 'outline' });
    await fakeBrowser.tabs.onRemoved.trigger(page.tabId, { isWindowClosing: false, windowId: 0 });
    expect(page.service.lastToken(page.tabId)).toBeUndefined();
    vi.spyOn(fakeBrowser.tabs, 'get').mockRejectedValue(new Error('No tab with id'));
    await expect(page.service.callPage(page.tabId, { op: 'outline' })).rejects.toThrow(/does not exist/);
  });

  it('keeps tokens of a bounded number of tabs', () => {
    const store = createTokenStore(3);
    for (let id = 1; id <= 5; id++) store.set(id, `t${id}`);
    expect(store.size).toBe(3);
    expect(store.get(1)).toBeUndefined();
    expect(store.get(5)).toBe('t5');
  });

  it('refuses pages no extension may script, before touching them', async () => {
    for (const url of ['chrome://settings/', 'about:config', 'https://chromewebstore.google.com/detail/x', 'view-source:https://a.example/', 'moz-extension://abc/page.html']) {
      const page = await fakePage(url);
      await expect(page.service.callPage(page.tabId, { op: 'outline' }), url).rejects.toThrow(/cannot read or act in tab/);
      expect(fakeBrowser.scripting.executeScript).not.toHaveBeenCalled();
    }
  });

  it('says when the page does not answer in time', async () => {
    const page = await fakePage();
    page.answer = () => new Promise(() => undefined);
    await expect(page.service.callPage(page.tabId, { op: 'outline' }, { timeoutMs: 50 })).rejects.toThrow(/did not answer within/);
  });

  it('says the page navigated when the document went away during the call', async () => {
    const page = await fakePage();
    await page.service.callPage(page.tabId, { op: 'outline' });
    // The injected function turns a throw into a refusal; a browser that loses the frame rejects instead.
    vi.mocked(fakeBrowser.scripting.executeScript).mockImplementationOnce(async () => {
      await fakeBrowser.tabs.update(page.tabId, { status: 'loading', url: 'https://shop.example/thanks' } as never);
      throw new Error('Frame with ID 0 was removed.');
    });
    await expect(page.service.callPage(page.tabId, { op: 'click', ref: 'e1' })).rejects.toMatchObject({ kind: 'navigated', message: expect.stringMatching(/navigated while the action ran.*Call read_page/) });
  });

  it('words browser refusals for the model', async () => {
    const page = await fakePage();
    vi.mocked(fakeBrowser.scripting.executeScript).mockRejectedValueOnce(new Error('Cannot access contents of the page. Extension manifest must request permission to access the respective host.'));
    await expect(page.service.callPage(page.tabId, { op: 'outline' })).rejects.toThrow(/does not let the extension act in tab/);
  });
});

describe('replies are page data: checked and cut', () => {
  const outline = { op: 'outline' } as const;

  it('refuses what is not a reply', () => {
    for (const raw of [null, undefined, 'ok', 42, [], { ok: 'yes' }, { ok: true }, { ok: true, token: 'BAD TOKEN!', text: '', nodes: 0, truncated: false }, { ok: false }, { ok: false, error: 5 }]) {
      expect(checkReply(outline, raw), JSON.stringify(raw)).toBeNull();
    }
    expect(checkReply(outline, { ok: true, token: 'tok1', text: 7, nodes: 0, truncated: false })).toBeNull();
    expect(checkReply(outline, { ok: true, token: 'tok1', text: '', nodes: '3', truncated: false })).toBeNull();
    expect(checkReply({ op: 'click', ref: 'e1' }, { ok: true, token: 'tok1', changed: ['x'] })).toBeNull();
    expect(checkReply({ op: 'rect', ref: 'e1' }, { ok: true, token: 'tok1', x: 1, y: 2, width: Number.NaN, height: 3, devicePixelRatio: 1 })).toBeNull();
    expect(checkReply({ op: 'rect', ref: 'e1' }, { ok: true, token: 'tok1', x: 1, y: 2, width: 3, height: 3, devicePixelRatio: 1e9 })).toBeNull();
  });

  it('cuts huge strings and drops fields it does not know', () => {
    const huge = 'x'.repeat(1_000_000);
    const reply = checkReply({ op: 'click', ref: 'e1' }, { ok: true, token: 'tok1', changed: huge, title: huge, url: huge, note: huge, extra: huge }) as unknown as Record<string, string>;
    expect(reply.changed!.length).toBe(LIMITS.changed);
    expect(reply.title!.length).toBe(LIMITS.title);
    expect(reply.url!.length).toBe(LIMITS.url);
    expect(reply.note!.length).toBe(LIMITS.note);
    expect(reply).not.toHaveProperty('extra');
    const long = checkReply({ op: 'outline', maxLength: 1000 }, { ok: true, token: 'tok1', text: huge, nodes: 5.7, truncated: true }) as Record<string, unknown>;
    expect((long.text as string).length).toBe(3000);
    expect(long.nodes).toBe(5);
    const refused = checkReply(outline, { ok: false, error: huge, stale: 'yes' }) as Record<string, unknown>;
    expect((refused.error as string).length).toBe(LIMITS.error);
    expect(refused).not.toHaveProperty('stale');
  });

  it('an unusable reply becomes an error, and its token is not kept', async () => {
    const page = await fakePage();
    page.answer = () => ({ ok: true, token: '../../evil', text: 'x', nodes: 1, truncated: false });
    await expect(page.service.callPage(page.tabId, { op: 'outline' })).rejects.toThrow(/answer that cannot be used/);
    expect(page.service.lastToken(page.tabId)).toBeUndefined();
  });
});

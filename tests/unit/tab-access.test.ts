// core/tabs/access.ts: the pages no extension may read or script, one rule for every plugin that
// works in tabs (tabs, page-actions, scripting), and waiting for a tab's load.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { closedPageReason, TabLoadError, waitForTabLoad } from '@/core/tabs/access';

afterEach(() => {
  vi.useRealTimers();
  fakeBrowser.reset();
});

describe('pages no extension may read or script', () => {
  it.each([
    ['chrome://settings/', /page of the browser itself \(chrome:\), which no extension may read/],
    ['about:config', /page of the browser itself/],
    ['about:blank', /page of the browser itself/],
    ['edge://flags', /page of the browser itself/],
    ['chrome-extension://abcdefghijklmnopabcdefghijklmnop/options.html', /page of a browser extension/],
    ['moz-extension://0f1e2d3c-0000-4000-8000-000000000000/sidepanel.html', /page of a browser extension/],
    ['view-source:https://example.com/', /view-source/],
    ['https://chromewebstore.google.com/detail/some-extension/abc', /Chrome Web Store/],
    ['https://chrome.google.com/webstore/detail/abc', /Chrome Web Store/],
    ['https://microsoftedge.microsoft.com/addons/detail/x', /Edge Add-ons/],
    ['https://addons.mozilla.org/en-US/firefox/addon/ublock-origin/', /Firefox Add-ons/],
    ['data:text/html,<p>x</p>', /data:/],
    ['javascript:void(0)', /javascript:/],
    ['not a url', /not a web address/],
    ['', /not known/],
  ])('%s', (url, reason) => {
    expect(closedPageReason(url, 'read')).toMatch(reason);
  });

  it('says what the tool would have done', () => {
    expect(closedPageReason('about:blank', 'act on')).toMatch(/which no extension may act on$/);
    expect(closedPageReason('about:blank', 'script')).toMatch(/which no extension may script$/);
  });

  it('web pages and local files may be tried; Firefox\'s own domains only in Firefox', () => {
    for (const url of ['https://example.com/article', 'http://127.0.0.1:8080/page.html', 'https://chrome.google.com/search', 'file:///home/user/notes.html']) {
      expect(closedPageReason(url, 'read')).toBeNull();
    }
    expect(closedPageReason('https://support.mozilla.org/', 'act on', false)).toBeNull();
    expect(closedPageReason('https://support.mozilla.org/', 'act on', true)).toMatch(/Firefox does not let extensions act on pages on support\.mozilla\.org/);
  });
});

describe('waiting for a tab to load', () => {
  it('a tab already loaded answers at once; a new tab still on about:blank waits for its load', async () => {
    const done = await fakeBrowser.tabs.create({ url: 'https://example.com/' });
    await fakeBrowser.tabs.update(done.id!, { status: 'complete' } as never);
    await expect(waitForTabLoad(done.id!, 5_000)).resolves.toMatchObject({ id: done.id });
    const blank = await fakeBrowser.tabs.create({ url: 'about:blank' });
    await fakeBrowser.tabs.update(blank.id!, { status: 'complete' } as never);
    let settled = false;
    const waiting = waitForTabLoad(blank.id!, 5_000).then((t) => ((settled = true), t));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    await fakeBrowser.tabs.onUpdated.trigger(blank.id!, { status: 'complete' }, { ...blank, url: 'https://example.org/', status: 'complete' });
    await expect(waiting).resolves.toMatchObject({ url: 'https://example.org/' });
  });

  it('a tab closed, or a stopped call, rejects with what happened; past the cap, the tab as it is', async () => {
    const tab = await fakeBrowser.tabs.create({ url: 'https://slow.example/' });
    await fakeBrowser.tabs.update(tab.id!, { status: 'loading' } as never);
    const closing = waitForTabLoad(tab.id!, 5_000);
    await fakeBrowser.tabs.onRemoved.trigger(tab.id!, { windowId: 0, isWindowClosing: false });
    await expect(closing).rejects.toMatchObject({ kind: 'closed', message: `Tab ${tab.id} was closed while its page was loading.` });
    const stop = new AbortController();
    const stopped = waitForTabLoad(tab.id!, 5_000, stop.signal);
    stop.abort();
    await expect(stopped).rejects.toBeInstanceOf(TabLoadError);
    await expect(waitForTabLoad(tab.id!, 30)).resolves.toMatchObject({ id: tab.id, status: 'loading' });
  });
});

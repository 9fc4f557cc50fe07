import { describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { unwrapUntrusted } from '@/core/registry/untrusted';
import { checkOpenableUrl, listTabs, openTab, type TabInfo } from '@/plugins/tabs';

const ctx = { signal: new AbortController().signal, service: undefined };
/** The tabs list_tabs found (its JSON list, inside the envelope). */
const listed = async (input: Parameters<typeof listTabs.execute>[0]): Promise<TabInfo[]> => JSON.parse(unwrapUntrusted(await listTabs.execute(input, ctx))!.content);

describe('tabs plugin', () => {
  it('list_tabs filters by a URL regular expression, case-insensitively', async () => {
    await fakeBrowser.tabs.create({ url: 'https://news.example.com/a', title: 'Morning News' } as never);
    await fakeBrowser.tabs.create({ url: 'https://shop.test/cart', title: 'Your cart' } as never);
    const all = await listed({});
    expect(all.map((t) => t.url)).toEqual(expect.arrayContaining(['https://news.example.com/a', 'https://shop.test/cart']));
    const news = await listed({ url_pattern: 'EXAMPLE\\.com' });
    expect(news.map((t) => t.url)).toEqual(['https://news.example.com/a']);
    expect(news[0]).toMatchObject({ tab_id: expect.any(Number), window_id: expect.any(Number), active: expect.any(Boolean) });
  });

  it('list_tabs explains a bad regular expression', async () => {
    await expect(listTabs.execute({ url_pattern: '([' }, ctx)).rejects.toThrow(/url_pattern cannot be used: it is not a pattern the engine can take \(missing closing \]/);
  });

  it('open_tab only opens web pages', () => {
    expect(checkOpenableUrl('https://example.com')).toBe('https://example.com/');
    expect(checkOpenableUrl('about:blank')).toBe('about:blank');
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'chrome://settings', 'data:text/html,x']) {
      expect(() => checkOpenableUrl(url), url).toThrow(/only opens http/);
    }
    expect(() => checkOpenableUrl('example.com')).toThrow(/not a full address/);
  });

  it('open_tab opens a tab without waiting when asked not to', async () => {
    const tab = await openTab.execute({ url: 'https://example.com/x', wait_until_loaded: false, active: false }, ctx);
    expect(tab).toMatchObject({ url: 'https://example.com/x', tab_id: expect.any(Number) });
  });
});

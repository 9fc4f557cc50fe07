// list_tabs takes regular expressions from the model: none may stall the background.
import { describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import { unwrapUntrusted } from '@/core/registry/untrusted';
import { listTabs, MAX_PATTERN_LENGTH, riskyPattern } from '@/plugins/tabs';

const ctx = { signal: new AbortController().signal, service: undefined };
/** The tabs list_tabs found (its JSON list, inside the envelope). */
const listed = async (input: Parameters<typeof listTabs.execute>[0]) => JSON.parse(unwrapUntrusted(await listTabs.execute(input, ctx))!.content);

describe('list_tabs patterns cannot backtrack catastrophically', () => {
  it.each(['(a+)+$', '(a*)*b', '(a|a)*$', '(.*a){20}', '([a-z]+)*$', '((ab)+)+', '(x+x+)+y', '(a)\\1', '(?<n>a)\\k<n>'])('refuses %s with a reason', (pattern) => {
    expect(riskyPattern(pattern)).not.toBeNull();
  });

  it.each(['example\\.com', '^https://github\\.com/.+/pull/\\d+', '(news|blog)\\.example', '[(]a+[)]+', '\\(a+\\)+', '.*docs.*', 'a{2,5}b'])('accepts %s', (pattern) => {
    expect(riskyPattern(pattern)).toBeNull();
  });

  it('refuses long, nested and many-repeat patterns with clear errors, and stays fast on hostile titles', async () => {
    await expect(listTabs.execute({ url_pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1) }, ctx)).rejects.toThrow(/at most 200 characters/);
    await expect(listTabs.execute({ title_pattern: '(a+)+$' }, ctx)).rejects.toThrow(/title_pattern was refused because it repeats a group that itself repeats/);
    await expect(listTabs.execute({ url_pattern: 'a.*b.*c.*d' }, ctx)).rejects.toThrow(/3 unbounded repeats/);
    // The worst that remains (two unbounded repeats, unanchored, failing) on huge titles and URLs.
    for (let i = 0; i < 20; i++) await fakeBrowser.tabs.create({ url: `https://example.com/${'1'.repeat(50_000)}`, title: 'a'.repeat(100_000) } as never);
    const t0 = performance.now();
    expect(await listed({ title_pattern: 'a*a*x', url_pattern: '\\d+\\d+x' })).toEqual([]);
    expect(await listed({ title_pattern: '.*.*.*x.*' })).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
});

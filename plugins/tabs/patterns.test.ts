// list_tabs takes regular expressions from the model and matches them against titles that pages
// set themselves: they run on the linear-time engine, the background keeps answering meanwhile,
// and what the engine cannot take is refused in words the model can act on.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'wxt/browser';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { unwrapUntrusted } from '@/core/registry/untrusted';
import { listTabs, MATCH_CHARS, MAX_PATTERN_LENGTH, type TabInfo } from '@/plugins/tabs';

const ctx = () => ({ signal: new AbortController().signal, service: undefined });

/**
 * Titles this long (and a "!") keep a backtracking RegExp busy for seconds on these patterns
 * (`^(a+)+$`: about six on the CI machine, doubling with each letter): a broken fix fails in
 * seconds. Longer titles come after, once the short ones have passed.
 */
const HOSTILE = 25;

/**
 * The open tabs, as `tabs.query` gives them. (The fake browser keeps no titles: tabs made with
 * `tabs.create` would all have an empty one, and a test of hostile titles would match nothing.)
 */
function openTabs(tabs: Array<{ url: string; title: string }>) {
  const list = tabs.map((t, i) => ({ id: i + 1, windowId: 1, index: i, active: i === 0, audible: false, status: 'complete', highlighted: false, incognito: false, pinned: false, ...t }));
  vi.spyOn(fakeBrowser.tabs, 'query').mockResolvedValue(list as Browser.tabs.Tab[]);
}

/** Tabs whose pages set titles of `titleChars` characters (a page may). */
function hostileTabs(count: number, letters: number, letter = 'a') {
  openTabs(Array.from({ length: count }, (_, i) => ({ url: `https://evil.example/${i}/${'1'.repeat(5000)}`, title: `${letter.repeat(letters)}!` })));
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `run` while a timer ticks every 10 ms; returns the longest gap between ticks. */
async function longestStall<T>(run: () => Promise<T> | T): Promise<{ value: T; ms: number; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 10);
  const start = performance.now();
  try {
    const value = await run();
    return { value, ms: performance.now() - start, stall: Math.max(stall, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

/** The tabs list_tabs lists (out of its untrusted envelope). */
async function listed(input: Record<string, string>, context = ctx()): Promise<TabInfo[]> {
  return JSON.parse(unwrapUntrusted(await listTabs.execute(input, context))!.content) as TabInfo[];
}

describe('list_tabs patterns run on the linear-time engine', () => {
  it('keeps its meaning: a case-insensitive search anywhere in the URL or title', async () => {
    openTabs([
      { url: 'https://github.com/o/r/pull/12', title: 'Fix the parser · Pull Request #12' },
      { url: 'https://github.com/o/r/issues/3', title: 'Crash on start · Issue #3' },
      { url: 'https://news.example/today', title: 'Morning News' },
    ]);
    const urls = async (input: Record<string, string>) => (await listed(input)).map((t) => t.url);
    expect(await urls({ url_pattern: 'GITHUB\\.com/.+/pull/\\d+' })).toEqual(['https://github.com/o/r/pull/12']);
    expect(await urls({ url_pattern: '^https://news\\.' })).toEqual(['https://news.example/today']);
    expect(await urls({ title_pattern: 'pull request|issue' })).toEqual(['https://github.com/o/r/pull/12', 'https://github.com/o/r/issues/3']);
    expect(await urls({ title_pattern: '^morning' })).toEqual(['https://news.example/today']);
    expect(await urls({ url_pattern: 'github', title_pattern: '(?:crash)' })).toEqual(['https://github.com/o/r/issues/3']);
    expect(await urls({ title_pattern: '#\\d{2}$' })).toEqual(['https://github.com/o/r/pull/12']);
  });

  it('the issue\'s pattern against a page-set title is refused at once, saying what is allowed', async () => {
    // 150 letters: a RegExp takes seconds on this pattern (minutes on 2 048).
    hostileTabs(1, 150);
    const start = performance.now();
    const refused = listTabs.execute({ title_pattern: '.{0,999}.{0,999}.{0,999}!' }, ctx());
    await expect(refused).rejects.toThrow(/^title_pattern cannot be used: it is too large to match quickly \(about 6004 instructions once its repeats are expanded, at most 500;/);
    await expect(refused).rejects.toThrow(/Patterns run on a linear-time engine \(RE2 syntax\)/);
    const ms = performance.now() - start;
    console.log(`[redos] list_tabs: .{0,999}.{0,999}.{0,999}! refused in ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(500);
  });

  it.each([
    ['(a)\\1', /title_pattern cannot be used: it uses a backreference "\\1"/],
    ['(?<w>a)\\k<w>', /title_pattern cannot be used: it uses a backreference "\\k<"/],
    ['foo(?=bar)', /title_pattern cannot be used: it uses lookahead "\(\?="/],
    ['(?<!x)y', /title_pattern cannot be used: it uses negative lookbehind "\(\?<!"/],
  ])('refuses %s with a clear error', async (pattern, error) => {
    await expect(listTabs.execute({ title_pattern: pattern }, ctx())).rejects.toThrow(error);
    await expect(listTabs.execute({ title_pattern: pattern }, ctx())).rejects.toThrow(/Not supported: backreferences/);
  });

  it('refuses a pattern over 200 characters', async () => {
    await expect(listTabs.execute({ url_pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1) }, ctx())).rejects.toThrow(/url_pattern is 201 characters long; give a pattern of at most 200 characters/);
  });

  it('the backtracking classics run in linear time on hostile titles, which the old checks refused or let run for minutes', async () => {
    const matches: Record<string, boolean> = { '^(a+)+$': false, '(a|b|ab)*c': false, '(a|a)*$': true, '(.*a){20}x': false, 'a*a*a*a*a*x': false, '.{0,99}.{0,99}!': true };
    // Then within the characters matched, so the "!" that makes them fail is seen.
    for (const letters of [HOSTILE, MATCH_CHARS - 1]) {
      hostileTabs(20, letters);
      for (const [pattern, matched] of Object.entries(matches)) {
        const { value, ms, stall } = await longestStall(() => listed({ title_pattern: pattern, url_pattern: '(\\d+)+x|evil' }));
        console.log(`[redos] list_tabs: ${pattern} on 20 titles of ${letters + 1} characters: ${ms.toFixed(1)} ms (the event loop waited at most ${stall.toFixed(0)} ms)`);
        expect(stall, pattern).toBeLessThan(1000);
        expect(value.length, pattern).toBe(matched ? 20 : 0);
      }
    }
  });

  it('the largest patterns taken, on many long titles, leave the event loop a turn every few milliseconds', async () => {
    hostileTabs(30, 100_000, 'b');
    // About 490 instructions, no literal to look for first, case folded: the engine's slowest path.
    const { value, ms, stall } = await longestStall(() => listed({ title_pattern: '.{0,120}.{0,120}!' }));
    console.log(`[redos] list_tabs: a 490-instruction pattern on 30 titles (${MATCH_CHARS} characters matched of each): ${ms.toFixed(0)} ms in all, the event loop waited at most ${stall.toFixed(0)} ms`);
    expect(value).toEqual([]);
    // Two matches between turns at most (~50 ms each on an idle machine): well under the 1 s budget.
    expect(stall).toBeLessThan(1000);
  });

  it('stops when the call is stopped', async () => {
    hostileTabs(30, 100_000, 'b');
    const stop = new AbortController();
    const running = listTabs.execute({ title_pattern: '.{0,120}.{0,120}!' }, { signal: stop.signal, service: undefined });
    setTimeout(() => stop.abort(new Error('stopped')), 20);
    await expect(running).rejects.toThrow(/stopped/);
  });
});

// The build-time patch of Readability: it applies to the pinned version, and changes nothing
// Readability returns (it skips serializing the article for debug messages nobody reads, and
// routes the page copy kept for retries through two hooks whose defaults do what the source did).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { Readability } from '@mozilla/readability';
import { patchReadability } from '@/build/readability-fast';
import { corpusPage, corpusPages, parseHtml } from './helpers/dom';

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve('@mozilla/readability/Readability.js'), 'utf8');

/** Loads a Readability constructor from source text, as a CommonJS module. */
function load(code: string): new (doc: Document) => { parse(): { title: string; content: string; textContent: string } | null } {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', code)(module, module.exports);
  return module.exports as never;
}

describe('readability-fast', () => {
  test('the four debug serializations are guarded, the page copy goes through the hooks, nothing else changes', () => {
    const patched = patchReadability(source);
    expect(patched.match(/this\._debug && this\.log\(/g)).toHaveLength(4);
    expect(patched).toContain('var pageCacheHtml = this._snapshotPage(page);');
    expect(patched).toContain('this._restorePage(page, pageCacheHtml);');
    expect(patched).not.toContain('page.innerHTML = pageCacheHtml;');
    const hooks = /\n {2}_snapshotPage\(page\) \{\n {4}return page\.innerHTML;\n {2}\},\n {2}_restorePage\(page, snapshot\) \{\n {4}page\.innerHTML = snapshot;\n {2}\},/;
    expect(patched).toMatch(hooks);
    const undone = patched
      .replace(/this\._debug && /g, '')
      .replace(hooks, '')
      .replace('var pageCacheHtml = this._snapshotPage(page);', 'var pageCacheHtml = page.innerHTML;')
      .replace('this._restorePage(page, pageCacheHtml);', 'page.innerHTML = pageCacheHtml;');
    expect(undone).toBe(source);
  });

  test('a source without those lines fails loudly', () => {
    expect(() => patchReadability('function Readability() {}')).toThrow(/expected 4 debug serializations/);
    const withoutSnapshot = source.replace('var pageCacheHtml = page.innerHTML;', 'var pageCacheHtml = page.outerHTML;');
    expect(() => patchReadability(withoutSnapshot)).toThrow(/expected "var pageCacheHtml = page.innerHTML;" once/);
  });

  test('the extension and the tests run the patched source', () => {
    expect(typeof (Readability.prototype as unknown as { _snapshotPage?: unknown })._snapshotPage).toBe('function');
  });

  test('patched and original Readability return the same article', () => {
    const Original = load(source);
    const Patched = load(patchReadability(source));
    // aclu and firefox-nightly-blog need retries (the first pass finds too little text): the hooks'
    // defaults restore the page. The project's own pages always, these where the shared corpus is.
    for (const name of corpusPages(['nytimes-1', 'medium-1', 'wikipedia-3', 'aclu', 'firefox-nightly-blog'])) {
      const html = readFileSync(path.join(corpusPage(name), 'source.html'), 'utf8');
      const a = new Original(parseHtml(html)).parse();
      const b = new Patched(parseHtml(html)).parse();
      expect(b).toEqual(a);
    }
  });
});

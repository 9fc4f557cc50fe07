// The build-time patch of Readability: it applies to the pinned version, and changes nothing
// Readability returns (only skips serializing the article for debug messages nobody reads).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { patchReadability } from '@/build/readability-fast';
import { CORPUS, hasCorpus, parseHtml } from './helpers/dom';

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve('@mozilla/readability/Readability.js'), 'utf8');

/** Loads a Readability constructor from source text, as a CommonJS module. */
function load(code: string): new (doc: Document) => { parse(): { title: string; content: string; textContent: string } | null } {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', code)(module, module.exports);
  return module.exports as never;
}

describe('readability-fast', () => {
  test('the four debug serializations are guarded, nothing else changes', () => {
    const patched = patchReadability(source);
    expect(patched.match(/this\._debug && this\.log\(/g)).toHaveLength(4);
    expect(patched.replace(/this\._debug && /g, '')).toBe(source);
  });

  test('a source without those lines fails loudly', () => {
    expect(() => patchReadability('function Readability() {}')).toThrow(/expected 4 debug serializations/);
  });

  test.skipIf(!hasCorpus)('patched and original Readability return the same article', () => {
    const Original = load(source);
    const Patched = load(patchReadability(source));
    for (const name of ['nytimes-1', 'medium-1', 'wikipedia-3']) {
      const html = readFileSync(path.join(CORPUS, name, 'source.html'), 'utf8');
      const a = new Original(parseHtml(html)).parse();
      const b = new Patched(parseHtml(html)).parse();
      expect(b).toEqual(a);
    }
  });
});

/**
 * A Vite plugin that removes two hidden costs from `@mozilla/readability`, leaving what stock
 * `Readability` returns unchanged:
 *
 * 1. Four debug messages are built with `"…" + articleContent.innerHTML` whether or not debugging
 *    is on, so every parse serializes the whole article four times for nothing (the `log` they
 *    are passed to is empty unless `debug: true`). Each of those lines becomes
 *    `this._debug && this.log(…)`: identical output, and the same messages when debugging.
 * 2. `_grabArticle` keeps a copy of the page for its retries as `page.innerHTML` (the whole body
 *    serialized on every parse) and restores it with `page.innerHTML = …` (the body parsed again)
 *    for each retry. Both go through two prototype methods, `_snapshotPage(page)` and
 *    `_restorePage(page, snapshot)`, whose defaults do exactly that; a subclass can keep the
 *    copy another way (core/extract's `MarkdownReadability` clones the nodes: from the same cost
 *    to half of it to take, a third to a seventh of it to restore, in Chromium).
 *
 * Measured in bench/extract. The build fails if the source no longer has the expected lines (a
 * new Readability version): look at the new source, then update or drop this patch.
 */
import type { Plugin } from 'vite';

const FILE = /[\\/]@mozilla[\\/]readability[\\/]Readability\.js$/;
const DEBUG_SERIALIZATION = /this\.log\(("[^"\n]*" \+ articleContent\.innerHTML)\);/g;
const EXPECTED = 4;
const SNAPSHOT = 'var pageCacheHtml = page.innerHTML;';
const RESTORE = 'page.innerHTML = pageCacheHtml;';
const PROTOTYPE = 'Readability.prototype = {';
/** The stock behaviour of the two hooks, added at the top of the prototype. */
const HOOKS = `${PROTOTYPE}
  _snapshotPage(page) {
    return page.innerHTML;
  },
  _restorePage(page, snapshot) {
    page.innerHTML = snapshot;
  },`;

function replaceOnce(code: string, find: string, replacement: string): string {
  const at = code.indexOf(find);
  if (at < 0 || code.indexOf(find, at + find.length) >= 0) {
    throw new Error(`readability-fast: expected "${find}" once in Readability.js. Check the new version's source and update build/readability-fast.ts.`);
  }
  return code.slice(0, at) + replacement + code.slice(at + find.length);
}

/** Returns the patched source; throws if the expected lines are not all there. */
export function patchReadability(code: string): string {
  let count = 0;
  let patched = code.replace(DEBUG_SERIALIZATION, (_line, message: string) => {
    count++;
    return `this._debug && this.log(${message});`;
  });
  if (count !== EXPECTED) {
    throw new Error(`readability-fast: expected ${EXPECTED} debug serializations in Readability.js, found ${count}. Check the new version's source and update build/readability-fast.ts.`);
  }
  patched = replaceOnce(patched, SNAPSHOT, 'var pageCacheHtml = this._snapshotPage(page);');
  patched = replaceOnce(patched, RESTORE, 'this._restorePage(page, pageCacheHtml);');
  return replaceOnce(patched, PROTOTYPE, HOOKS);
}

export function readabilityFast(): Plugin {
  return {
    name: 'sidequest:readability-fast',
    enforce: 'pre',
    transform(code, id) {
      if (!FILE.test(id.split('?')[0]!)) return undefined;
      return { code: patchReadability(code), map: null };
    },
  };
}

/**
 * A Vite plugin that removes a hidden cost from `@mozilla/readability`: four debug messages are
 * built with `"…" + articleContent.innerHTML` whether or not debugging is on, so every parse
 * serializes the whole article four times for nothing (the `log` they are passed to is empty
 * unless `debug: true`). The patch makes each of those lines `this._debug && this.log(…)`:
 * identical output, and the same messages when debugging. Measured in bench/extract.
 *
 * The build fails if the source no longer has the four lines (a new Readability version): look
 * at the new source, then update or drop this patch.
 */
import type { Plugin } from 'vite';

const FILE = /[\\/]@mozilla[\\/]readability[\\/]Readability\.js$/;
const DEBUG_SERIALIZATION = /this\.log\(("[^"\n]*" \+ articleContent\.innerHTML)\);/g;
const EXPECTED = 4;

/** Returns the patched source; throws if the expected lines are not all there. */
export function patchReadability(code: string): string {
  let count = 0;
  const patched = code.replace(DEBUG_SERIALIZATION, (_line, message: string) => {
    count++;
    return `this._debug && this.log(${message});`;
  });
  if (count !== EXPECTED) {
    throw new Error(`readability-fast: expected ${EXPECTED} debug serializations in Readability.js, found ${count}. Check the new version's source and update build/readability-fast.ts.`);
  }
  return patched;
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

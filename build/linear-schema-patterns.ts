/**
 * A Vite plugin that makes `@cfworker/json-schema` (the one validator, interpreted, no eval) run
 * the patterns of a schema on the linear-time engine instead of the browser's backtracking
 * `RegExp`: page tools' and MCP servers' schemas are outside words, and `^(a+)+$` against forty
 * `a`s and a `!` keeps a `RegExp` busy for hours, before the approval gate is even asked.
 *
 * The validator has no hook for its regular expressions, so its two `new RegExp(…, 'u')` (the
 * `pattern` keyword and `patternProperties` keys) become calls of `schemaRegExp` from
 * core/registry/safe-regex.ts, which compiles with `re2js`, caps the program's size and charges
 * each match to the validation's budget. The build fails if the source no longer has exactly
 * those two (a new version of the validator): look at its source, then update this patch. Only
 * the ES module build is patched; loading the CommonJS one fails the build.
 *
 * Unit tests get the same module: vitest.config.ts inlines the package, so Vite transforms it.
 */
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const ESM_VALIDATE = /[\\/]@cfworker[\\/]json-schema[\\/]dist[\\/]esm[\\/]validate\.js$/;
const CJS_VALIDATE = /[\\/]@cfworker[\\/]json-schema[\\/]dist[\\/]commonjs[\\/]validate\.js$/;
const SITES = ["new RegExp(pattern, 'u')", "new RegExp($pattern, 'u')"];
const SAFE_REGEX = fileURLToPath(new URL('../core/registry/safe-regex.ts', import.meta.url));

/** Returns the patched source; throws if the expected lines are not all there. */
export function patchSchemaPatterns(code: string, safeRegexPath: string = SAFE_REGEX): string {
  let patched = code;
  for (const site of SITES) {
    const at = patched.indexOf(site);
    if (at < 0 || patched.indexOf(site, at + site.length) >= 0) {
      throw new Error(`linear-schema-patterns: expected "${site}" once in @cfworker/json-schema's validate.js. Check the new version's source and update build/linear-schema-patterns.ts.`);
    }
    const argument = site.slice('new RegExp('.length, site.indexOf(','));
    patched = patched.slice(0, at) + `__sidequestSchemaRegExp(${argument})` + patched.slice(at + site.length);
  }
  if (/\bRegExp\s*\(/.test(patched)) {
    throw new Error('linear-schema-patterns: @cfworker/json-schema\'s validate.js makes another RegExp. Check the new version\'s source and update build/linear-schema-patterns.ts.');
  }
  return `import { schemaRegExp as __sidequestSchemaRegExp } from ${JSON.stringify(safeRegexPath)};\n${patched}`;
}

export function linearSchemaPatterns(): Plugin {
  return {
    name: 'sidequest:linear-schema-patterns',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0]!;
      if (CJS_VALIDATE.test(file)) {
        throw new Error('linear-schema-patterns: the CommonJS build of @cfworker/json-schema was bundled; only the ES module build runs its patterns on the linear-time engine.');
      }
      if (!ESM_VALIDATE.test(file)) return undefined;
      return { code: patchSchemaPatterns(code), map: null };
    },
  };
}

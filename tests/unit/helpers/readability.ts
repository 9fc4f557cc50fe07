// `@mozilla/readability` for the unit tests, patched as the extension build patches it
// (build/readability-fast.ts). Vitest loads packages from node_modules with Node's own `require`,
// which Vite plugins never see; vitest.config.ts points the package here instead, so the tests
// run the Readability that ships.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { patchReadability } from '../../../build/readability-fast';

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve('@mozilla/readability/Readability.js'), 'utf8');
const module = { exports: {} as unknown };
new Function('module', 'exports', patchReadability(source))(module, module.exports);

export const Readability = module.exports as typeof import('@mozilla/readability').Readability;
export const isProbablyReaderable = require('@mozilla/readability/Readability-readerable.js') as typeof import('@mozilla/readability').isProbablyReaderable;

/**
 * A Vite plugin that ships QuickJS's WebAssembly (the scripting plugin's sandbox) as its own file,
 * `scripting-quickjs.wasm`, instead of inside `scripting-sandbox-worker.js`.
 *
 * WXT builds an unlisted script as a library, and a library build inlines every asset: the
 * Emscripten loader's `new URL("emscripten-module.wasm", import.meta.url)` became a 0.67 MB base64
 * data: URL, which also compresses worse in the zip than the binary (311 KB against 231 KB). This
 * plugin emits the binary beside the worker and points the loader at it, on the extension's own
 * origin (the worker's `location`), where Chrome and Firefox serve it as `application/wasm` for
 * `WebAssembly.instantiateStreaming`. A build without the scripting plugin never imports the
 * loader, so it holds no such file.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'vite';

const LOADER = /[\\/]@jitl[\\/]quickjs-wasmfile-release-sync[\\/]dist[\\/]emscripten-module\.browser\.mjs$/;
const REFERENCE = 'new URL("emscripten-module.wasm",import.meta.url)';
export const QUICKJS_WASM_FILE = 'scripting-quickjs.wasm';

export function quickjsWasmFile(): Plugin {
  return {
    name: 'sidequest:quickjs-wasm-file',
    enforce: 'pre',
    transform(code, id) {
      if (!LOADER.test(id.replace(/\?.*$/, ''))) return null;
      if (!code.includes(REFERENCE)) this.error(`${id}: the loader no longer says ${REFERENCE}; update build/quickjs-wasm-file.ts`);
      const wasm = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
      this.emitFile({ type: 'asset', fileName: QUICKJS_WASM_FILE, source: readFileSync(wasm) });
      return { code: code.replace(REFERENCE, `new URL("/${QUICKJS_WASM_FILE}",globalThis.location.href)`), map: null };
    },
  };
}

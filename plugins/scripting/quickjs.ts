import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';

/**
 * Loads QuickJS in the background, on the first sandbox run (so the background starts no
 * slower). The build inlines the 0.5 MB .wasm into background.js as a data: URL (WXT bundles the
 * background into one file), which the Emscripten loader fetches and compiles. Compiling
 * WebAssembly needs 'wasm-unsafe-eval' in MV3's CSP (wxt.config.ts); Firefox MV2 allows it.
 */
export function loadQuickJS(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(variant);
}

import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';

/**
 * Loads QuickJS in the sandbox worker (`entrypoints/scripting-sandbox-worker.ts`), on its first
 * run. The build ships the 0.5 MB .wasm as its own file, `scripting-quickjs.wasm`
 * (`build/quickjs-wasm-file.ts`), which the Emscripten loader fetches and compiles. Compiling
 * WebAssembly needs 'wasm-unsafe-eval' in MV3's CSP (wxt.config.ts); Firefox MV2 allows it.
 */
export function loadQuickJS(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(variant);
}

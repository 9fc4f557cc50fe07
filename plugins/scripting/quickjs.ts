import variant from '@jitl/quickjs-wasmfile-release-sync';
import wasmPath from '@jitl/quickjs-wasmfile-release-sync/wasm?url';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { browser } from 'wxt/browser';

/**
 * Loads QuickJS in the background: the .wasm file ships with the extension (Vite copies it and
 * gives its path) and is compiled on first use, so the background starts no slower. Compiling
 * WebAssembly needs 'wasm-unsafe-eval' in MV3's CSP (wxt.config.ts); Firefox MV2 allows it.
 */
export async function loadQuickJS(): Promise<QuickJSWASMModule> {
  const url = browser.runtime.getURL(wasmPath as '/');
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${wasmPath} (HTTP ${response.status})`);
  const wasmModule = await WebAssembly.compile(await response.arrayBuffer());
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule }));
}

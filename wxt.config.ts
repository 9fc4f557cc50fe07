import { defineConfig } from 'wxt';
import { readabilityFast } from './build/readability-fast.ts';

/** The add-on id Firefox knows the extension by; fixed so storage and tests find it again. */
export const GECKO_ID = 'sidequest@sidequest.dev';

// See https://wxt.dev/api/config.html
export default defineConfig({
  modules: ['@wxt-dev/module-vue', '@wxt-dev/webextension-polyfill'],
  manifest: ({ browser, manifestVersion }) => ({
    name: 'Sidequest',
    description: 'An AI agent in your sidebar. It works with your tabs and pages, and with the tools web apps offer it.',
    // Chrome: `offscreen` for the one document that does what its service worker cannot: parse
    // fetched HTML (no DOM) and make blob URLs of workspace files.
    permissions: ['storage', 'unlimitedStorage', 'tabs', 'scripting', 'webRequest', ...(browser === 'firefox' ? [] : ['offscreen'])],
    // MV3 forbids compiling WebAssembly unless the CSP allows 'wasm-unsafe-eval'; the sandbox of
    // the scripting plugin is QuickJS compiled to WebAssembly. Firefox MV2's default CSP allows it.
    ...(manifestVersion === 3
      ? { content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self';" } }
      : {}),
    host_permissions: ['<all_urls>'],
    action: { default_title: 'Sidequest' },
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: {
              id: GECKO_ID,
              strict_min_version: '140.0',
              // Page content goes to the model provider the user configures (by default a local Ollama).
              data_collection_permissions: { required: ['websiteContent'] },
            },
          },
        }
      : {}),
  }),
  vite: () => ({
    plugins: [readabilityFast()],
    build: { chunkSizeWarningLimit: 1500 },
  }),
  zip: {
    name: 'sidequest',
    excludeSources: ['.output/**', '.wxt/**', 'tests/artifacts/**', 'bench/results/**', '.e2e-profiles/**'],
  },
});

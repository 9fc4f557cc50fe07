import { fileURLToPath } from 'node:url';
import { defineConfig } from 'wxt';
import { linearSchemaPatterns } from './build/linear-schema-patterns.ts';
import { moduleMarks } from './build/module-marks.ts';
import { moduleReport } from './build/module-report.ts';
import { quickjsWasmFile } from './build/quickjs-wasm-file.ts';
import { browserI18nKeys, languageFiles, narrowMessages, watchLocales, writeMergedLocales } from './build/locales.mjs';
import { noAjvInMcp } from './build/no-ajv-in-mcp.ts';
import { readabilityFast } from './build/readability-fast.ts';
import { zodV3KindsOnly } from './build/zod-v3-kinds.ts';
import { offscreenOnly } from './build/offscreen-only.ts';
import { pdfjsFiles } from './build/pdfjs-files.ts';

/** The add-on id Firefox knows the extension by; fixed so storage and tests find it again. */
export const GECKO_ID = 'sidequest@sidequest.dev';

/**
 * Keyboard commands, listed in Settings → Language & keyboard. Firefox opens its sidebar itself
 * (`_execute_sidebar_action`); Chrome's side panel is opened by the background on `open-sidebar`
 * (a command counts as a user gesture). `new-conversation` opens the sidebar on a new chat.
 */
function commands(browser: string, manifestVersion: number) {
  const action = browser === 'firefox' && manifestVersion === 2 ? '_execute_browser_action' : '_execute_action';
  return {
    ...(browser === 'firefox'
      ? { _execute_sidebar_action: { suggested_key: { default: 'Alt+Shift+S' }, description: '__MSG_commandOpenSidebar__' } }
      : { 'open-sidebar': { suggested_key: { default: 'Alt+Shift+S' }, description: '__MSG_commandOpenSidebar__' } }),
    [action]: { suggested_key: { default: 'Alt+Shift+M' }, description: '__MSG_commandOpenPopup__' },
    'new-conversation': { suggested_key: { default: 'Alt+Shift+E' }, description: '__MSG_commandNewConversation__' },
  };
}

const ROOT = fileURLToPath(new URL('.', import.meta.url));
/**
 * The words of each language, `locales/<lang>.json` and every `plugins/<id>/locales/<lang>.json`
 * merged (build/locales.mjs): `@wxt-dev/i18n` reads them from here, the pages import `#locales`.
 */
const MERGED_LOCALES = fileURLToPath(new URL('.wxt/locales', import.meta.url));
let watchingLocales = false;

// See https://wxt.dev/api/config.html
export default defineConfig({
  modules: ['@wxt-dev/module-vue', '@wxt-dev/webextension-polyfill', '@wxt-dev/i18n/module'],
  i18n: { localesDir: MERGED_LOCALES },
  alias: { '#locales': MERGED_LOCALES },
  hooks: {
    // Before anything reads them: `wxt prepare`, a build, `wxt` serving, a unit-test run.
    ready: () => writeMergedLocales(ROOT, MERGED_LOCALES),
    // Each language's words once: `locales/<lang>.json`, fetched by the pages (only the language
    // they show) and by the background when it writes for the user (core/i18n/load.ts). The
    // browser's `_locales` keep only what the browser reads: the manifest's `__MSG_…__` names and
    // the keys a folder lists in its `locales/browser-i18n.txt` (words a script in a web page reads).
    'build:publicAssets': (wxt, files) => {
      const keep = [...[...JSON.stringify(wxt.config.manifest).matchAll(/__MSG_(\w+)__/g)].map((m) => m[1]!), ...browserI18nKeys(ROOT)];
      for (const file of files) {
        if ('contents' in file && /^_locales[\\/][^\\/]+[\\/]messages\.json$/.test(file.relativeDest)) file.contents = narrowMessages(file.contents, keep);
      }
      files.push(...languageFiles(ROOT));
      // pdf.js and its worker, loaded by URL when a PDF is read (build/pdfjs-files.ts).
      files.push(...pdfjsFiles());
    },
    'build:done': (wxt) => {
      if (wxt.config.command !== 'serve' || watchingLocales) return;
      watchingLocales = true;
      watchLocales(ROOT, MERGED_LOCALES);
    },
  },
  manifest: ({ browser, manifestVersion }) => ({
    // Localized from `locales/<lang>.json` (`@wxt-dev/i18n` writes the browser's `_locales` from
    // the merged words, plugins' included).
    name: '__MSG_extName__',
    description: '__MSG_extDescription__',
    default_locale: 'en',
    commands: commands(browser, manifestVersion),
    // Chrome: `offscreen` for the one document that does what its service worker cannot: parse
    // fetched HTML (no DOM) and make blob URLs of workspace files.
    // identity: OAuth sign-in to MCP servers (launchWebAuthFlow), in both browsers. webRequest:
    // web_fetch observes where a redirect points before it follows it, and which address a
    // response came from (no blocking). dns (Firefox only, Chrome has no such API): a host name is
    // resolved before it is requested, so one that leads into the user's network is caught first.
    // debugger (Chrome only): the page-actions plugin's "Trusted input" setting (off by default)
    // attaches to a tab while the agent acts in it. Chrome refuses it as an optional permission
    // ("Permissions that can not be specified as optional"), so it is a required one.
    permissions: ['storage', 'unlimitedStorage', 'tabs', 'tabGroups', 'scripting', 'webRequest', 'identity', 'alarms', 'notifications', ...(browser === 'firefox' ? ['dns'] : ['offscreen', 'debugger'])],
    // MV3 forbids compiling WebAssembly unless the CSP allows 'wasm-unsafe-eval'; the sandbox of
    // the scripting plugin is QuickJS compiled to WebAssembly. Firefox MV2's default CSP allows it.
    ...(manifestVersion === 3
      ? { content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self';" } }
      : {}),
    host_permissions: ['<all_urls>'],
    action: { default_title: '__MSG_extName__' },
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
  vite: ({ browser }) => ({
    plugins: [readabilityFast(), noAjvInMcp(), zodV3KindsOnly(), offscreenOnly(browser), linearSchemaPatterns(), quickjsWasmFile(), moduleReport(), moduleMarks()],
    build: { chunkSizeWarningLimit: 1500 },
  }),
  zip: {
    name: 'sidequest',
    excludeSources: ['.output/**', '.wxt/**', 'tests/artifacts/**', 'bench/results/**', '.e2e-profiles/**'],
  },
});

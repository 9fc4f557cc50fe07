import { browser } from 'wxt/browser';
import { startRelay, type RelayRuntime } from '@/plugins/page-tools/relay';

/** The isolated-world relay between the page's tools (MAIN world) and the background. */
export default defineContentScript({
  matches: ['http://*/*', 'https://*/*'],
  runAt: 'document_start',
  noScriptStartedPostMessage: true,
  main() {
    startRelay(window, browser.runtime as unknown as RelayRuntime);
  },
});

import { installMainWorld } from '@/plugins/page-actions/page/main-world';

/**
 * The page-actions plugin's MAIN-world part, before the page's own scripts: remembers which
 * elements get click listeners, so the outline gives them references (`page/listener-tracker.ts`).
 * No extension API is reachable from here.
 */
export default defineContentScript({
  matches: ['http://*/*', 'https://*/*'],
  world: 'MAIN',
  allFrames: true,
  runAt: 'document_start',
  main() {
    installMainWorld();
  },
});

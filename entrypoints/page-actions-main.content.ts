import { installMainWorld } from '@/plugins/page-actions/page/main-world';

/**
 * The page-actions plugin's MAIN-world part, before the page's own scripts (`page/main-world.ts`):
 * remembers which elements get click listeners, so the outline gives them references
 * (`page/listener-tracker.ts`); answers the page's dialogs and carries its clipboard events during
 * the agent's actions (`page/dialogs-main.ts`, `page/clipboard-main.ts`; the agent acts in the top
 * frame, so in other frames they stay idle). No extension API is reachable from here.
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

import { installMainWorld } from '@/plugins/page-actions/page/main-world';

// The page-actions plugin's hooks in the page's MAIN world (its dialogs during the agent's
// actions: `page/dialogs-main.ts`). Top frame only, from the start of every document.
export default defineContentScript({
  matches: ['http://*/*', 'https://*/*'],
  world: 'MAIN',
  runAt: 'document_start',
  main() {
    installMainWorld();
  },
});

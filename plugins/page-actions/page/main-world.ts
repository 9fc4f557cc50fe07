import { installClipboardBridge } from './clipboard-main';
import { installDialogHooks } from './dialogs-main';

/**
 * What the page-actions plugin installs in the page's MAIN world at document start
 * (`entrypoints/page-actions-main.content.ts`): only what must see the page's own globals.
 */
export function installMainWorld(): void {
  installDialogHooks();
  installClipboardBridge();
}

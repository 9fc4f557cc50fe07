import { installClipboardBridge } from './clipboard-main';
import { installDialogHooks } from './dialogs-main';
import { installListenerTracker } from './listener-tracker';

/**
 * What the page-actions plugin runs in the page's MAIN world at `document_start`
 * (`entrypoints/page-actions-main.content.ts`): only what must see the page's own globals, each
 * call installing one part. Keep it a list of calls.
 */
export function installMainWorld(): void {
  installListenerTracker();
  installDialogHooks();
  installClipboardBridge();
}

import { installListenerTracker } from './listener-tracker';

/**
 * What the page-actions plugin runs in the page's MAIN world at `document_start`
 * (`entrypoints/page-actions-main.content.ts`): each call installs one tracker. Keep it a list of calls.
 */
export function installMainWorld(): void {
  installListenerTracker();
}

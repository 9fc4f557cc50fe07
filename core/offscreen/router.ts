import { browser, type Browser } from 'wxt/browser';
import { isExtensionPage } from '@/core/messaging/sender';
import { isOffscreenRequest, runJobHere, type OffscreenGroup } from './jobs';

/**
 * Serves the offscreen document's jobs: one listener, one envelope, routed by group and job name.
 * Only the extension's background and pages may ask: a message from anyone else is ignored,
 * content scripts included (their sender has the extension's id, but a web page's address; the
 * jobs would hand them workspace files and the sandbox).
 */
export function serveOffscreenJobs(groups: OffscreenGroup[]): void {
  const byName = new Map(groups.map((g) => [g.name, g]));
  browser.runtime.onMessage.addListener((message: unknown, sender: Browser.runtime.MessageSender) => {
    if (!isOffscreenRequest(message) || !isExtensionPage(sender)) return undefined;
    const group = byName.get(message.group);
    if (!group) return Promise.resolve({ ok: false, error: `The offscreen document has no job group "${message.group}".` });
    return runJobHere(group, message.job, message.input);
  });
}

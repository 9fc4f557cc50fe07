import { browser, type Browser } from 'wxt/browser';
import { isOffscreenRequest, runJobHere, type OffscreenGroup } from './jobs';

/**
 * Serves the offscreen document's jobs: one listener, one envelope, routed by group and job name.
 * Only the extension itself may ask (a message from anyone else is ignored).
 */
export function serveOffscreenJobs(groups: OffscreenGroup[]): void {
  const byName = new Map(groups.map((g) => [g.name, g]));
  browser.runtime.onMessage.addListener((message: unknown, sender: Browser.runtime.MessageSender) => {
    if (!isOffscreenRequest(message) || sender.id !== browser.runtime.id) return undefined;
    const group = byName.get(message.group);
    if (!group) return Promise.resolve({ ok: false, error: `The offscreen document has no job group "${message.group}".` });
    return runJobHere(group, message.job, message.input);
  });
}

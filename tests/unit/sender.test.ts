// The sender boundary in units: who counts as the extension's own page, and the offscreen
// document's router answering only those (the e2e test tests/e2e/sender-boundary.test.mjs tries
// the real contexts in both browsers).
import { describe, expect, test } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { Browser } from 'wxt/browser';
import { isExtensionPage } from '@/core/messaging/sender';
import { defineOffscreenGroup } from '@/core/offscreen/jobs';
import { serveOffscreenJobs } from '@/core/offscreen/router';

const own = (path: string): Browser.runtime.MessageSender => ({ id: fakeBrowser.runtime.id, url: fakeBrowser.runtime.getURL(path as '/') });

describe('the sender boundary', () => {
  test('the extension\'s pages and background are its own; a content script, a page and another extension are not', () => {
    expect(isExtensionPage(own('/sidepanel.html'))).toBe(true);
    expect(isExtensionPage(own('/background.js'))).toBe(true);
    // A content script: the extension's id, a web page's address and tab.
    expect(isExtensionPage({ id: fakeBrowser.runtime.id, url: 'https://evil.example/', tab: { id: 3 } as Browser.tabs.Tab, frameId: 0 })).toBe(false);
    // A page whose address only starts like the extension's origin, another extension, nobody.
    expect(isExtensionPage({ id: fakeBrowser.runtime.id, url: `https://evil.example/?${fakeBrowser.runtime.getURL('/')}` })).toBe(false);
    expect(isExtensionPage({ id: 'another-extension', url: fakeBrowser.runtime.getURL('/sidepanel.html').replace(fakeBrowser.runtime.id, 'another-extension') })).toBe(false);
    expect(isExtensionPage({ id: 'another-extension', url: fakeBrowser.runtime.getURL('/sidepanel.html') })).toBe(false);
    expect(isExtensionPage(undefined)).toBe(false);
    expect(isExtensionPage({})).toBe(false);
  });

  test('the offscreen router does jobs for the extension\'s background and pages only', async () => {
    let ran = 0;
    serveOffscreenJobs([defineOffscreenGroup({ name: 'files', runsHere: () => true, jobs: { read: () => ++ran } })]);
    const request = { target: 'sidequest:offscreen', group: 'files', job: 'read', input: {} };
    const [fromBackground] = await fakeBrowser.runtime.onMessage.trigger(request, own('/background.js'));
    expect(fromBackground).toEqual({ ok: true, value: 1 });
    const [fromContentScript] = await fakeBrowser.runtime.onMessage.trigger(request, { id: fakeBrowser.runtime.id, url: 'https://evil.example/', tab: { id: 3 } as Browser.tabs.Tab });
    expect(fromContentScript).toBeUndefined();
    expect(ran).toBe(1);
  });
});

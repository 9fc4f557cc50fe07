// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { nextTick } from 'vue';
import { announceApprovals } from '@/components/chat/announce-approvals';
import type { PendingApproval } from '@/core/approvals/gate';
import { createAnnouncer } from '@/core/ui/announce';
import { setLocale } from '@/core/ui/i18n';
import { useApprovalsStore } from '@/stores/approvals';
import { useChatStore } from '@/stores/chat';

const ask = (id: string, over: Partial<PendingApproval> = {}): PendingApproval => ({
  id,
  conversationId: 'c1',
  tool: 'web_fetch',
  site: 'https://evil.example',
  arguments: '{}',
  reason: 'outbound',
  sink: 'https://evil.example',
  sources: ['https://mail.example'],
  scope: 'call',
  askedAt: 0,
  expiresAt: 300_000,
  ...over,
});

describe('announceApprovals', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    vi.useRealTimers();
    document.body.innerHTML = '';
  });

  test('a new card of the open conversation is said once through the polite live region; the focus stays put', async () => {
    const approvals = useApprovalsStore();
    const chat = useChatStore();
    chat.activeId = 'c1';
    const say = vi.fn();
    announceApprovals(approvals, chat, { say, dispose: () => undefined });
    approvals.approvals = [ask('a1')];
    await nextTick();
    expect(say).toHaveBeenCalledTimes(1);
    expect(say).toHaveBeenLastCalledWith(
      'Approval needed: Sidequest wants to run web_fetch on evil.example. This sends data to evil.example after reading mail.example. Its buttons are above the message box.',
    );
    // The same card again (the list re-read): not said twice. Another conversation's: not here.
    approvals.approvals = [ask('a1'), ask('b1', { conversationId: 'c2' })];
    await nextTick();
    expect(say).toHaveBeenCalledTimes(1);
    // Opening that conversation says its card.
    chat.activeId = 'c2';
    await nextTick();
    expect(say).toHaveBeenCalledTimes(2);
    // Two at once: one announcement.
    approvals.approvals = [ask('b1', { conversationId: 'c2' }), ask('b2', { conversationId: 'c2', reason: 'destructive', tool: 'close_tab' }), ask('b3', { conversationId: 'c2', reason: 'acting' })];
    await nextTick();
    expect(say).toHaveBeenCalledTimes(3);
    expect(say.mock.lastCall?.[0]).toMatch(/close_tab.*delete or overwrite.*Approval needed/);
  });

  test('through the real live region, in the page language', async () => {
    setLocale('he', document);
    try {
      const approvals = useApprovalsStore();
      const chat = useChatStore();
      chat.activeId = 'c1';
      const box = document.createElement('textarea');
      document.body.append(box);
      box.focus();
      const announcer = createAnnouncer(document);
      announceApprovals(approvals, chat, announcer);
      approvals.approvals = [ask('a1')];
      await nextTick();
      await new Promise((r) => setTimeout(r, 150));
      const region = document.querySelector('[data-announcer]')!;
      expect(region.getAttribute('aria-live')).toBe('polite');
      expect(region.textContent).toContain('נדרש אישור');
      expect(region.textContent).toContain('הפעולה הזאת שולחת מידע אל evil.example אחרי קריאת mail.example.');
      expect(document.activeElement).toBe(box);
      announcer.dispose();
    } finally {
      setLocale('en', document);
    }
  });
});

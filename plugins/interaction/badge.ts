import { browser } from 'wxt/browser';

interface BadgeApi {
  setBadgeText(details: { text: string }): Promise<void>;
  setBadgeBackgroundColor(details: { color: string }): Promise<void>;
  setTitle(details: { title: string }): Promise<void>;
}

/**
 * Shows on the toolbar button that questions wait for the user (a count on the badge, and the
 * button's tooltip says so), so a closed sidebar does not hide them. `action` in MV3,
 * `browserAction` in Firefox MV2.
 */
export async function showWaitingQuestions(count: number): Promise<void> {
  const api = ((browser as unknown as { action?: BadgeApi }).action ?? (browser as unknown as { browserAction?: BadgeApi }).browserAction);
  if (!api) return;
  try {
    await api.setBadgeText({ text: count ? String(count) : '' });
    if (count) await api.setBadgeBackgroundColor({ color: '#5b4fe0' });
    await api.setTitle({ title: count ? `Sidequest — ${count === 1 ? 'a question waits' : `${count} questions wait`} for your answer` : 'Sidequest' });
  } catch (error) {
    console.warn('[sidequest] could not update the toolbar badge', error);
  }
}

import { browser } from 'wxt/browser';

interface BadgeApi {
  setBadgeText(details: { text: string }): Promise<void>;
  setBadgeBackgroundColor(details: { color: string }): Promise<void>;
  setTitle(details: { title: string }): Promise<void>;
}

/**
 * The toolbar button's count of what waits for the user (the approval gate's asks, a plugin's
 * questions…), summed over its sources, so a closed sidebar hides nothing. Each source reports
 * its own count; `action` in MV3, `browserAction` in Firefox MV2.
 */
export class BadgeCounter {
  private readonly counts = new Map<string, number>();
  private shown = -1;

  constructor(private readonly show: (total: number) => Promise<void> = showWaiting) {}

  /** Sets one source's count and updates the badge when the total changed. */
  set(source: string, count: number): void {
    if (count > 0) this.counts.set(source, count);
    else this.counts.delete(source);
    const total = this.total();
    if (total === this.shown) return;
    this.shown = total;
    void this.show(total);
  }

  total(): number {
    let total = 0;
    for (const n of this.counts.values()) total += n;
    return total;
  }
}

async function showWaiting(count: number): Promise<void> {
  const api = (browser as unknown as { action?: BadgeApi }).action ?? (browser as unknown as { browserAction?: BadgeApi }).browserAction;
  if (!api) return;
  try {
    await api.setBadgeText({ text: count ? String(count) : '' });
    if (count) await api.setBadgeBackgroundColor({ color: '#5b4fe0' });
    await api.setTitle({ title: count ? `Sidequest — ${count === 1 ? 'a request waits' : `${count} requests wait`} for your answer` : 'Sidequest' });
  } catch (error) {
    console.warn('[sidequest] could not update the toolbar badge', error);
  }
}

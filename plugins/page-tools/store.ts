import { errorText, t } from '@/core/ui/i18n';
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { browser, type Browser } from 'wxt/browser';
import { sendMessage, type UiEvent } from '@/core/messaging/protocol';
import { subscribe } from '@/core/ui/events';
import './protocol';
import type { ConsentDecision, PageTabView, SitePermission } from './types';

const WEB = /^https?:\/\//i;

/**
 * The tab the sidebar or popup is about: the active tab of its window when it is a web page,
 * else the web tab of that window used last (the sidebar opened as a tab, a browser page in front).
 */
export async function currentWebTab(): Promise<Browser.tabs.Tab | undefined> {
  const [active] = await browser.tabs.query({ active: true, currentWindow: true });
  if (active?.url && WEB.test(active.url)) return active;
  const recent = (tabs: Browser.tabs.Tab[]) =>
    tabs.filter((t) => t.url && WEB.test(t.url)).sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0))[0];
  return recent(await browser.tabs.query({ currentWindow: true })) ?? recent(await browser.tabs.query({}));
}

/**
 * The page tools of the current tab, mirrored from the background, with the user's consent; and
 * the remembered site decisions (Settings → Sites & tools).
 */
export const usePageToolsStore = defineStore('pageTools', () => {
  const tabs = ref<PageTabView[]>([]);
  const currentTab = ref<{ id: number; url: string; title: string } | null>(null);
  const refreshing = ref(false);
  const error = ref('');
  /** Set once a refresh of the current tab found nothing (vs. not asked yet). */
  const checked = ref(false);
  const permissions = ref<SitePermission[]>([]);
  const permissionsError = ref('');

  const current = computed(() => tabs.value.find((t) => t.tabId === currentTab.value?.id) ?? null);

  const cleanups: Array<() => void> = [];

  async function init(): Promise<void> {
    cleanups.push(subscribe(onEvent, () => void load()));
    const follow = () => void findCurrentTab();
    const onUpdated = (_id: number, info: Browser.tabs.OnUpdatedInfo) => {
      if (info.url || info.status === 'complete') follow();
    };
    browser.tabs.onActivated.addListener(follow);
    browser.tabs.onUpdated.addListener(onUpdated);
    browser.tabs.onRemoved.addListener(follow);
    cleanups.push(
      () => browser.tabs.onActivated.removeListener(follow),
      () => browser.tabs.onUpdated.removeListener(onUpdated),
      () => browser.tabs.onRemoved.removeListener(follow),
    );
    await load();
    await findCurrentTab();
  }

  function dispose(): void {
    for (const cleanup of cleanups.splice(0)) cleanup();
  }

  /** Follows the remembered site decisions (the settings page). */
  async function watchPermissions(): Promise<void> {
    const load = async () => {
      try {
        permissions.value = await sendMessage('listSitePermissions');
      } catch (e) {
        permissionsError.value = t('pageTools.sitesLoadError', { message: errorText(e) });
      }
    };
    cleanups.push(subscribe(onEvent, () => void load()));
    await load();
  }

  async function revoke(origin: string): Promise<void> {
    permissionsError.value = '';
    try {
      permissions.value = await sendMessage('revokeSitePermission', { origin });
    } catch (e) {
      permissionsError.value = errorText(e);
    }
  }

  async function load(): Promise<void> {
    tabs.value = await sendMessage('listPageTools');
  }

  async function findCurrentTab(): Promise<void> {
    const tab = await currentWebTab().catch(() => undefined);
    const next = tab?.id !== undefined ? { id: tab.id, url: tab.url ?? '', title: tab.title ?? '' } : null;
    if (next?.id !== currentTab.value?.id) checked.value = false;
    currentTab.value = next;
  }

  /** Asks the current tab's page for a fresh list of its tools. */
  async function refresh(): Promise<void> {
    await findCurrentTab();
    const tab = currentTab.value;
    if (!tab) return;
    refreshing.value = true;
    error.value = '';
    try {
      const view = await sendMessage('refreshPageTools', { tabId: tab.id, reason: 'user refresh' });
      if (view) upsert(view);
      else tabs.value = tabs.value.filter((t) => t.tabId !== tab.id);
      checked.value = true;
    } catch (e) {
      error.value = t('pageTools.askError', { message: errorText(e) });
    } finally {
      refreshing.value = false;
    }
  }

  async function decide(origin: string, decision: ConsentDecision): Promise<void> {
    error.value = '';
    try {
      tabs.value = await sendMessage('decidePageTools', { origin, decision });
    } catch (e) {
      error.value = errorText(e);
    }
  }

  function upsert(view: PageTabView): void {
    tabs.value = [...tabs.value.filter((t) => t.tabId !== view.tabId), view];
  }

  function onEvent(event: UiEvent): void {
    if (event.type === 'page-tools') tabs.value = event.tabs;
    else if (event.type === 'site-permissions') permissions.value = event.permissions;
  }

  return {
    tabs,
    currentTab,
    current,
    refreshing,
    error,
    checked,
    permissions,
    permissionsError,
    init,
    dispose,
    load,
    refresh,
    decide,
    findCurrentTab,
    watchPermissions,
    revoke,
  };
});

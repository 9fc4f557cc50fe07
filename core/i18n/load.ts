import { addCatalog, hasCatalog, type Catalog } from './catalog';
import type { Locale } from './locales';

/**
 * One language's words, loaded when a context first speaks it. The build writes each language's
 * merged words once, as `locales/<lang>.json` in the extension (`wxt.config.ts`,
 * `build/locales.mjs`); a page fetches only the one it shows before it mounts, a switch in
 * Settings fetches the new one, and the background fetches the user's language when it writes
 * for the user (a scheduled run's notification). English is also in the background's own bundle
 * (`./english`): it renders `Said` words in English at any moment, before anything could load.
 */
export type CatalogFetch = (locale: Locale) => Promise<Catalog>;

/** `locales/<lang>.json` of the extension (`zh-CN` is `zh_CN.json`, the merged files' spelling). */
export const fetchCatalog: CatalogFetch = async (locale) => {
  const runtime = (globalThis as { browser?: { runtime?: { getURL?(path: string): string } } }).browser?.runtime;
  const path = `/locales/${locale.replace('-', '_')}.json`;
  const response = await fetch(runtime?.getURL ? runtime.getURL(path) : path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as Catalog;
};

const pending = new Map<Locale, Promise<void>>();

/**
 * Makes `locale`'s words available (`core/i18n/catalog.ts`), fetching them the first time; two
 * calls at once share one fetch, and a failed fetch is tried again on the next call.
 */
export function loadCatalog(locale: Locale, load: CatalogFetch = fetchCatalog): Promise<void> {
  if (hasCatalog(locale)) return Promise.resolve();
  let loading = pending.get(locale);
  if (!loading) {
    loading = load(locale)
      .then((words) => addCatalog(locale, words))
      .finally(() => pending.delete(locale));
    pending.set(locale, loading);
  }
  return loading;
}

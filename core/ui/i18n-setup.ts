import { uiLanguage } from '@/core/storage/settings';
import { hasCatalog } from '@/core/i18n/catalog';
import { fetchCatalog, loadCatalog, type CatalogFetch } from '@/core/i18n/load';
import { localeOf, type Locale } from '@/core/i18n/locales';
import { browserLanguage, setLocale } from './i18n';

let stop: (() => void) | undefined;

/**
 * Reads the language setting, loads that language's words (only that one: `core/i18n/load.ts`),
 * applies it to this page (`lang`, `dir`, every `t()`), and follows its changes while the page
 * lives: a choice in settings loads the new language, then applies it at once in every open page.
 * Resolves once the first language is in place, so a page mounted after it never shows keys.
 */
export async function startI18n(doc: Document = document, load: CatalogFetch = fetchCatalog): Promise<void> {
  let latest = 0;
  const apply = async (choice: string) => {
    const ticket = ++latest;
    const next = await usable(localeOf(choice, browserLanguage()), load);
    // A later choice made while this one loaded wins.
    if (ticket === latest && next) setLocale(next, doc);
  };
  await apply(await uiLanguage.getValue().catch(() => 'auto' as const));
  stop?.();
  stop = uiLanguage.watch((choice) => void apply(choice));
}

/** `locale` once its words are loaded; English if they cannot be; undefined if neither can. */
async function usable(locale: Locale, load: CatalogFetch): Promise<Locale | undefined> {
  for (const candidate of locale === 'en' ? (['en'] as const) : ([locale, 'en'] as const)) {
    try {
      await loadCatalog(candidate, load);
      return candidate;
    } catch (error) {
      console.error(`[i18n] the words of ${candidate} did not load`, error);
    }
  }
  return hasCatalog('en') ? 'en' : undefined;
}

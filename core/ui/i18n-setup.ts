import { uiLanguage } from '@/core/storage/settings';
import { localeOf } from '@/core/i18n/locales';
import { browserLanguage, setLocale } from './i18n';

let stop: (() => void) | undefined;

/**
 * Reads the language setting, applies it to this page (`lang`, `dir`, every `t()`), and follows
 * its changes while the page lives: a choice in settings applies at once in every open page.
 */
export async function startI18n(doc: Document = document): Promise<void> {
  const apply = (choice: string) => setLocale(localeOf(choice, browserLanguage()), doc);
  apply(await uiLanguage.getValue().catch(() => 'auto' as const));
  stop?.();
  stop = uiLanguage.watch(apply);
}

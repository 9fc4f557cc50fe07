/**
 * The languages of Sidequest's interface: pure data, shared by the pages (the runtime in
 * `core/ui/i18n.ts`), the settings and the background (the system prompt names the language).
 */
export const LOCALES = ['en', 'he', 'vi', 'hy', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

/** What the user chose in settings: a locale, or `auto` (the browser's language). */
export type LanguageChoice = Locale | 'auto';

export interface LocaleInfo {
  /** The language's own name, shown in the language menu. */
  native: string;
  /** Its English name, given to the model in the system prompt. */
  english: string;
  dir: 'ltr' | 'rtl';
}

export const LOCALE_INFO: Record<Locale, LocaleInfo> = {
  en: { native: 'English', english: 'English', dir: 'ltr' },
  he: { native: 'עברית', english: 'Hebrew', dir: 'rtl' },
  vi: { native: 'Tiếng Việt', english: 'Vietnamese', dir: 'ltr' },
  hy: { native: 'Հայերեն', english: 'Armenian', dir: 'ltr' },
  'zh-CN': { native: '简体中文', english: 'Simplified Chinese', dir: 'ltr' },
};

/**
 * The supported locale for a BCP 47 tag (the browser's `getUILanguage()`, a setting), English for
 * a language Sidequest does not speak. Any Chinese goes to Simplified Chinese, the one it has;
 * `iw` is Hebrew's old code, still reported by some systems.
 */
export function resolveLocale(tag: string | null | undefined): Locale {
  const lower = (tag ?? '').trim().toLowerCase().replace('_', '-');
  const language = lower.split('-')[0];
  if (language === 'he' || language === 'iw') return 'he';
  if (language === 'vi') return 'vi';
  if (language === 'hy') return 'hy';
  if (language === 'zh') return 'zh-CN';
  return 'en';
}

/** The locale a choice means: `auto` follows the browser's language. */
export function localeOf(choice: string | null | undefined, browserLanguage: string | undefined): Locale {
  if (choice && choice !== 'auto' && (LOCALES as readonly string[]).includes(choice)) return choice as Locale;
  return resolveLocale(browserLanguage);
}

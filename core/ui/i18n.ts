import { readonly, ref } from 'vue';
import {
  english,
  interpolate,
  isSaid,
  known,
  render,
  saidOf,
  source,
  translate,
  translatePlural,
  type MessageKey,
  type Params,
  type PluralKey,
  type Said,
  type SaidParams,
} from '@/core/i18n/catalog';
import { LOCALE_INFO, LOCALES, localeOf, type Locale } from '@/core/i18n/locales';

/**
 * The pages' translations. The same words (`locales/` and each plugin's `locales/`, merged by
 * `build/locales.mjs`) feed `@wxt-dev/i18n`'s module, which writes the browser's `_locales` (the
 * manifest's name and description) and the key types; the pages use this runtime instead of
 * `browser.i18n`, which always follows the browser's language: here the language chosen in
 * settings applies at once, and plurals follow CLDR (`Intl.PluralRules`: Hebrew has `two`,
 * Vietnamese and Chinese only `other`).
 *
 * - `t('chat.send')`, `t('approval.title', { tool })`: `{name}` placeholders.
 * - `tn('dataSettings.exported', count, { file })`: a plural, written in the files as an object
 *   of CLDR categories (`{ "one": "…", "other": "… {count} …" }`); `{count}` is the formatted number.
 * - `formatNumber`, `formatDate`, `formatTime`, `formatRelative`: `Intl` in the page's language.
 *
 * Every function reads the current locale from a Vue ref, so templates and `computed`s follow a
 * change of language without a reload.
 */

export type { MessageKey, Params, PluralKey, Said };

const current = ref<Locale>('en');

/** The page's language (reactive, read-only). */
export const locale = readonly(current);

/** Switches the page's language; `lang` and `dir` of `document` follow when `doc` is given. */
export function setLocale(next: Locale, doc: Document | undefined = globalThis.document): void {
  current.value = next;
  if (doc?.documentElement) {
    doc.documentElement.lang = next;
    doc.documentElement.dir = LOCALE_INFO[next].dir;
  }
}

/** `rtl` for Hebrew, else `ltr`. */
export function dir(): 'ltr' | 'rtl' {
  return LOCALE_INFO[current.value].dir;
}

/** The message in the current language, else in English, else the key itself (never throws). */
export function t(key: MessageKey, params?: SaidParams): string {
  return translate(current.value, key, params);
}

/** The plural message for `count` in the current language (CLDR category, then `other`, then English). */
export function tn(key: PluralKey, count: number, params?: Params): string {
  return translatePlural(current.value, key, count, { count: formatNumber(count), ...params });
}

/**
 * Words the background wrote (`Said`) in the page's language; plain text as it is. `fallback`
 * (the English text stored beside them) is shown for words that name no known message.
 */
export function say(words: Said | string | undefined, fallback = ''): string {
  if (isSaid(words)) return known(current.value, words) ? render(current.value, words) : fallback || words.key;
  return words ?? fallback;
}

/** Items joined as a list in the page's language ("a, b, and c"). */
export function formatList(items: readonly string[]): string {
  return new Intl.ListFormat(current.value, { type: 'conjunction' }).format(items);
}

/**
 * Items as a list in the page's language, cut into the items and the words between them, for a
 * template that marks up each item (`[{item: 'a'}, {text: ', '}, {item: 'b'}…]`).
 */
export function listParts(items: readonly string[]): Array<{ item: string } | { text: string }> {
  return new Intl.ListFormat(current.value, { type: 'conjunction' }).formatToParts(items).map((p) => (p.type === 'element' ? { item: p.value } : { text: p.value }));
}

/** An error for the user: its `Said` words in the page's language, else its message. */
export function errorText(error: unknown): string {
  const words = saidOf(error);
  if (words) return say(words);
  return error instanceof Error ? error.message : String((error as { message?: unknown } | null)?.message ?? error);
}

/**
 * A message cut at its placeholders, for templates that put an element where a placeholder is
 * (`BaseI18n`): `[{text}, {slot: 'tool'}, {text}]`. Placeholders given in `params` are filled in.
 */
export function parts(key: MessageKey, params?: Params): Array<{ text: string } | { slot: string }> {
  const text = source(current.value, key) ?? key;
  const out: Array<{ text: string } | { slot: string }> = [];
  let last = 0;
  for (const match of text.matchAll(/\{([A-Za-z0-9_]+)\}/g)) {
    const name = match[1]!;
    if (params && Object.prototype.hasOwnProperty.call(params, name)) continue;
    if (match.index > last) out.push({ text: interpolate(text.slice(last, match.index), params, current.value) });
    out.push({ slot: name });
    last = match.index + match[0].length;
  }
  if (last < text.length) out.push({ text: interpolate(text.slice(last), params, current.value) });
  return out;
}

/**
 * One number formatter per language and options, made once: building an `Intl.NumberFormat`
 * costs far more than formatting with it, and views format numbers on every render (a tool
 * card's duration, usage). Options come from the code, so the set stays small. Date formatters
 * are made each time: they keep the time zone they were made in, and the user's may change.
 */
const numberFormats = new Map<string, Intl.NumberFormat>();

export function formatNumber(value: number, options?: Intl.NumberFormatOptions): string {
  const key = `${current.value}|${options ? JSON.stringify(options) : ''}`;
  let format = numberFormats.get(key);
  if (!format) {
    if (numberFormats.size >= 64) numberFormats.clear();
    numberFormats.set(key, (format = new Intl.NumberFormat(current.value, options)));
  }
  return format.format(value);
}

export function formatDate(value: number | Date, options: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' }): string {
  return new Intl.DateTimeFormat(current.value, options).format(value);
}

export function formatTime(value: number | Date, options: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' }): string {
  return new Intl.DateTimeFormat(current.value, options).format(value);
}

/** "3 minutes ago", "in 2 days": the largest unit that fits. */
export function formatRelative(value: number | Date, now: number = Date.now()): string {
  const seconds = Math.round((+value - now) / 1000);
  const format = new Intl.RelativeTimeFormat(current.value, { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return format.format(Math.round(seconds / 3600), 'hour');
  return format.format(Math.round(seconds / 86_400), 'day');
}

/** A duration for people: "850 ms", "1.5 s" (SI symbols, the number in the page's format). */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${formatNumber(ms)} ms` : `${formatNumber(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 })} s`;
}

/** The browser's interface language (undefined where there is no extension API, as in tests). */
export function browserLanguage(): string | undefined {
  const api = (globalThis as { browser?: { i18n?: { getUILanguage?(): string } } }).browser;
  try {
    return api?.i18n?.getUILanguage?.() ?? globalThis.navigator?.language;
  } catch {
    return globalThis.navigator?.language;
  }
}

export { english, LOCALES, LOCALE_INFO, localeOf };

import type { GeneratedI18nStructure } from '#i18n';
import type { Locale } from './locales';

/**
 * The translations and the pure functions that read them, for any context (the pages' runtime in
 * `core/ui/i18n.ts` reads the current page language; the background renders `Said` words in
 * English for the model, traces and exports). No Vue, no extension API.
 *
 * It holds only the languages given to it (`addCatalog`): a context loads the one it speaks. The
 * background and Chrome's offscreen document import `./english` (English, statically); a page
 * loads its language before it mounts (`./load`, one chunk per language). A message missing from
 * the language (never, while the checks hold) falls back to English when English is there, else
 * to its key. The words are `#locales/<lang>.json`, the build's merge of the core's
 * `locales/<lang>.json` and each plugin's `plugins/<id>/locales/<lang>.json` (`build/locales.mjs`):
 * a plugin's words are there only while its folder is.
 */

/** One language's words, as `#locales/<lang>.json` nests them. */
export type Catalog = Record<string, unknown>;
const CATALOGS: Partial<Record<Locale, Catalog>> = {};

/** Makes `locale`'s words available to every function here (a second call replaces them). */
export function addCatalog(locale: Locale, words: Catalog): void {
  CATALOGS[locale] = words;
}

/** True once `locale`'s words are here. */
export function hasCatalog(locale: Locale): boolean {
  return CATALOGS[locale] !== undefined;
}

/** The languages whose words are here (what a test checks was loaded). */
export function loadedLocales(): Locale[] {
  return Object.keys(CATALOGS) as Locale[];
}

type Leaf = Extract<keyof GeneratedI18nStructure, string>;
type PluralCategory = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';
/** A key of a plain message (`locales/en.json` or a plugin's `locales/en.json`, dotted). */
export type MessageKey = Exclude<Leaf, `@@${string}` | `${string}.${PluralCategory}`>;
/** A key of a plural message: its object holds one string per CLDR category. */
export type PluralKey = { [K in Leaf]: K extends `${infer Base}.other` ? Base : never }[Leaf];

/**
 * Words for the user that are written where the language is not known (the background): a
 * message key and its values. A value may itself be `Said` (a provider type's name inside a
 * sentence), translated in the same language.
 */
export interface Said {
  key: MessageKey | PluralKey;
  params?: SaidParams;
  /** For a plural message: the number that picks its form (given to it as `{count}`). */
  count?: number;
}
export type SaidParams = { [name: string]: string | number | Said };
export type Params = Record<string, string | number>;

/** Each catalog's keys looked up so far (a view renders the same words on every update). */
const LOOKED_UP = new WeakMap<Catalog, Map<string, unknown>>();

function lookup(catalog: Catalog | undefined, key: string): unknown {
  if (!catalog) return undefined;
  let known = LOOKED_UP.get(catalog);
  if (!known) LOOKED_UP.set(catalog, (known = new Map()));
  if (known.has(key)) return known.get(key);
  let node: unknown = catalog;
  for (const part of key.split('.')) {
    // Own keys only: a key from a file ("constructor.name") must not reach into prototypes.
    if (!node || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part)) {
      node = undefined;
      break;
    }
    node = (node as Record<string, unknown>)[part];
  }
  // Keys come from the code (a bounded set), or from stored `Said` words: keep at most a few thousand.
  if (known.size < 4096) known.set(key, node);
  return node;
}

/** True for a `Said` value (a key and maybe params), as it comes back from storage or a message. */
export function isSaid(value: unknown): value is Said {
  return Boolean(value) && typeof value === 'object' && typeof (value as { key?: unknown }).key === 'string';
}

/** Fills `{name}` placeholders; a `Said` value is translated in `locale` first. */
export function interpolate(text: string, params: SaidParams | undefined, locale: Locale = 'en'): string {
  if (!params) return text;
  return text.replace(/\{([A-Za-z0-9_]+)\}/g, (match, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(params, name)) return match;
    const value = params[name]!;
    return isSaid(value) ? render(locale, value) : String(value);
  });
}

/** The raw message text in `locale`, else in English, else undefined. */
export function source(locale: Locale, key: string): string | undefined {
  const found = lookup(CATALOGS[locale], key);
  if (typeof found === 'string') return found;
  const english = lookup(CATALOGS.en, key);
  return typeof english === 'string' ? english : undefined;
}

/** The message in `locale`, else in English, else the key itself (never throws). */
export function translate(locale: Locale, key: string, params?: SaidParams): string {
  return interpolate(source(locale, key) ?? key, params, locale);
}

/** The plural message for `count` (its CLDR category, then `other`, then English); `{count}` is given formatted. */
export function translatePlural(locale: Locale, key: string, count: number, params: SaidParams): string {
  const category = new Intl.PluralRules(locale).select(count);
  for (const [catalog, cat] of [
    [CATALOGS[locale], category],
    [CATALOGS[locale], 'other'],
    [CATALOGS.en, new Intl.PluralRules('en').select(count)],
    [CATALOGS.en, 'other'],
  ] as const) {
    const text = lookup(catalog, `${key}.${cat}`);
    if (typeof text === 'string') return interpolate(text, params, locale);
  }
  return key;
}

/** `Said` words, built where the language is not known. */
export function said(key: MessageKey, params?: SaidParams): Said {
  return params ? { key, params } : { key };
}

/** `Said` words of a plural message: `count` picks the form in each language. */
export function saidCount(key: PluralKey, count: number, params?: SaidParams): Said {
  return params ? { key, count, params } : { key, count };
}

/** `Said` words in `locale`. */
export function render(locale: Locale, words: Said): string {
  if (typeof words.count !== 'number') return translate(locale, words.key, words.params);
  return translatePlural(locale, words.key, words.count, { count: new Intl.NumberFormat(locale).format(words.count), ...words.params });
}

/** True when `locale` (or English) has the message `words` names: words from a file may name none. */
export function known(locale: Locale, words: Said): boolean {
  return typeof words.count === 'number' ? translatePlural(locale, words.key, words.count, {}) !== words.key : source(locale, words.key) !== undefined;
}

/** `Said` words in English: what the model, traces and exports read. */
export function english(words: Said): string {
  return render('en', words);
}

/**
 * An error whose words are `Said`: its `message` is English (logs, the model), and the pages show
 * `said` in their language. `said` is an own property, so it crosses the extension's messaging
 * (errors are serialized with their own properties).
 */
export class SaidError extends Error {
  override name = 'SaidError';
  readonly said: Said;
  constructor(key: MessageKey, params?: SaidParams) {
    const words = said(key, params);
    super(english(words));
    this.said = words;
  }
}

/** The `Said` words an error carries (`SaidError`, or one deserialized from a message), if any. */
export function saidOf(error: unknown): Said | undefined {
  const words = (error as { said?: unknown } | null | undefined)?.said;
  return isSaid(words) ? words : undefined;
}

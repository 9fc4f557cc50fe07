import { fileURLToPath } from 'node:url';
import { languages, leafKeys, localeSources, mergeLocales, readWords } from '@/build/locales.mjs';
import en from '#locales/en.json';
import he from '#locales/he.json';
import hy from '#locales/hy.json';
import vi from '#locales/vi.json';
import zhCN from '#locales/zh_CN.json';
import { LOCALES, localeOf, resolveLocale, type Locale } from '@/core/i18n/locales';
import { hardCodedStrings, NOT_YET_CONVERTED, readSource, vueFiles } from './strings';

type Words = Record<string, unknown>;
const CATEGORIES = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);
const root = fileURLToPath(new URL('../../..', import.meta.url));
/** A locale's file name: `zh-CN` is `zh_CN.json` (the browser's `_locales` spelling). */
const fileOf = (locale: Locale) => locale.replace('-', '_');

/** Dotted keys of the leaves; a plural (an object of CLDR categories) is one entry with its categories. */
function flatten(node: Words, prefix = ''): Map<string, string[] | 'text'> {
  const out = new Map<string, string[] | 'text'>();
  for (const [key, value] of Object.entries(node)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, 'text');
    else if (value && typeof value === 'object') {
      const keys = Object.keys(value);
      if (keys.every((k) => CATEGORIES.has(k))) out.set(path, keys.sort());
      else for (const [k, v] of flatten(value as Words, path)) out.set(k, v);
    }
  }
  return out;
}

function texts(node: Words, prefix = ''): Array<[string, string]> {
  return Object.entries(node).flatMap(([key, value]) =>
    typeof value === 'string' ? [[prefix + key, value] as [string, string]] : texts(value as Words, `${prefix}${key}.`),
  );
}

const placeholders = (text: string) => [...text.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]).sort();

// The core's words (`locales/`) and each plugin's (`plugins/<id>/locales/`): each set is whole in
// every language on its own, so a plugin's folder can go without leaving a language short.
const sources = localeSources(root);

describe.each(sources.map((s) => [s.owner, s] as const))('the words of %s', (_owner, source) => {
  const own = readWords(source, 'en') as Words;
  const english = flatten(own);

  it('has a file for every language', () => {
    for (const locale of LOCALES) expect(readWords(source, fileOf(locale)), `${source.owner} ${fileOf(locale)}.json`).toBeDefined();
  });

  it.each(LOCALES)('%s has every key of English, nothing more, and each plural has its CLDR categories', (locale) => {
    const messages = flatten(readWords(source, fileOf(locale)) as Words);
    expect([...messages.keys()].sort()).toEqual([...english.keys()].sort());
    const categories = [...new Intl.PluralRules(locale).resolvedOptions().pluralCategories].sort();
    for (const [key, shape] of english) {
      if (shape === 'text') expect(messages.get(key), key).toBe('text');
      else expect(messages.get(key), `${key} in ${locale}`).toEqual(categories);
    }
  });

  it.each(LOCALES)('%s keeps the placeholders of English and has no "$" (the browser reads it in messages.json)', (locale) => {
    const base = new Map(texts(own).map(([k, v]) => [k.replace(/\.(zero|one|two|few|many|other)$/, ''), placeholders(v)]));
    for (const [key, text] of texts(readWords(source, fileOf(locale)) as Words)) {
      const plain = key.replace(/\.(zero|one|two|few|many|other)$/, '');
      // A plural form may leave {count} out ("כלי אחד": one tool).
      expect(placeholders(text).filter((p) => p !== 'count'), `${locale} ${key}`).toEqual((base.get(plain) ?? []).filter((p) => p !== 'count'));
      expect(text, `${locale} ${key}`).not.toContain('$');
      expect(text.trim(), `${locale} ${key}`).not.toBe('');
    }
  });

  it('names keys so the browser accepts them as message names ([A-Za-z0-9_] once the dots are joined)', () => {
    for (const key of english.keys()) expect(key).toMatch(/^[A-Za-z0-9]+(\.[A-Za-z0-9]+)*$/);
  });
});

describe('the merged catalog', () => {
  it('has the five languages, and no key defined twice', () => {
    expect(languages(root)).toEqual(LOCALES.map(fileOf).sort());
    expect(() => mergeLocales(root)).not.toThrow();
  });

  it("is what the runtime reads (#locales): the core's words and every plugin's", () => {
    const merged = mergeLocales(root);
    const read: Record<Locale, Words> = { en, he, hy, vi, 'zh-CN': zhCN };
    for (const locale of LOCALES) expect(read[locale]).toEqual(merged[fileOf(locale)]);
    const keys = new Set(leafKeys(en));
    for (const source of sources) for (const key of leafKeys(readWords(source, 'en')!)) expect(keys.has(key), `${source.owner} ${key}`).toBe(true);
  });
});

describe('no hard-coded strings in components', () => {
  const files = vueFiles(root);

  it('finds none in the converted components', () => {
    const found = files.filter((f) => !NOT_YET_CONVERTED.includes(f)).flatMap((f) => hardCodedStrings(f, readSource(root, f)));
    expect(found.map((h) => `${h.file}:${h.line} ${h.text}`)).toEqual([]);
  });

  it('lists only files that exist and still need converting', () => {
    for (const file of NOT_YET_CONVERTED) {
      expect(files, file).toContain(file);
      expect(hardCodedStrings(file, readSource(root, file)).length, `${file} has no hard-coded strings left: remove it from the list`).toBeGreaterThan(0);
    }
  });

  it('catches text, read attributes, and leaves code and names alone', () => {
    const found = hardCodedStrings(
      'X.vue',
      `<template><div><p>Hello</p><button aria-label="Close" :title="t('x')">{{ t('y') }}</button><code>web_search</code><h1>Sidequest</h1><p>שלום</p><img alt=""></div></template>`,
    );
    expect(found.map((h) => h.text)).toEqual(['Hello', 'aria-label="Close"', 'שלום']);
  });
});

describe('choosing the language', () => {
  it('maps browser languages to the supported ones, English otherwise', () => {
    expect(resolveLocale('he-IL')).toBe('he');
    expect(resolveLocale('iw')).toBe('he');
    expect(resolveLocale('vi')).toBe('vi');
    expect(resolveLocale('hy-AM')).toBe('hy');
    expect(resolveLocale('zh-TW')).toBe('zh-CN');
    expect(resolveLocale('zh_CN')).toBe('zh-CN');
    expect(resolveLocale('fr-FR')).toBe('en');
    expect(resolveLocale(undefined)).toBe('en');
  });

  it('uses the setting unless it is auto', () => {
    expect(localeOf('auto', 'he')).toBe('he');
    expect(localeOf('vi', 'he')).toBe('vi');
    expect(localeOf('xx', 'hy')).toBe('hy');
  });
});

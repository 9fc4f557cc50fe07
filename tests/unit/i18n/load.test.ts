// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserI18nKeys, languageFiles, narrowMessages } from '@/build/locales.mjs';
import en from '#locales/en.json';
import he from '#locales/he.json';
import hy from '#locales/hy.json';
import viWords from '#locales/vi.json';
import zhCN from '#locales/zh_CN.json';
import type { Locale } from '@/core/i18n/locales';

/** The merged words of a locale, as the build writes them (`.wxt/locales/<lang>.json`). */
function words(locale: Locale): Record<string, unknown> {
  return structuredClone({ en, he, hy, vi: viWords, 'zh-CN': zhCN }[locale]);
}

/**
 * The loader and the page runtime as a fresh page has them: no language loaded yet (the suite's
 * setup gives every test all five; `vi.resetModules` gives these modules their own, empty catalog).
 */
async function freshPage() {
  vi.resetModules();
  const catalog = await import('@/core/i18n/catalog');
  const load = await import('@/core/i18n/load');
  const i18n = await import('@/core/ui/i18n');
  const setup = await import('@/core/ui/i18n-setup');
  const { uiLanguage } = await import('@/core/storage/settings');
  const fetched: Locale[] = [];
  const fetchWords = vi.fn(async (locale: Locale) => {
    fetched.push(locale);
    return words(locale);
  });
  return { ...catalog, ...load, ...i18n, ...setup, uiLanguage, fetched, fetchWords };
}

describe('the words of one language at a time (core/i18n/load.ts)', () => {
  beforeEach(() => {
    document.documentElement.lang = '';
    document.documentElement.dir = '';
  });
  afterEach(() => vi.resetModules());

  it('a page loads only the language it shows, before it shows anything', async () => {
    const page = await freshPage();
    await page.uiLanguage.setValue('he');
    expect(page.loadedLocales()).toEqual([]);
    await page.startI18n(document, page.fetchWords);
    expect(page.fetched).toEqual(['he']);
    expect(page.loadedLocales()).toEqual(['he']);
    expect(page.t('common.save')).toBe('שמירה');
    expect(document.documentElement.lang).toBe('he');
    expect(document.documentElement.dir).toBe('rtl');
  });

  it('a switch in settings loads the new language, then applies it', async () => {
    const page = await freshPage();
    await page.uiLanguage.setValue('he');
    await page.startI18n(document, page.fetchWords);
    await page.uiLanguage.setValue('vi');
    await vi.waitFor(() => expect(page.locale.value).toBe('vi'));
    expect(page.fetched).toEqual(['he', 'vi']);
    expect(page.t('common.save')).toBe('Lưu');
    expect(document.documentElement.dir).toBe('ltr');
    // Back to a language already here: nothing is fetched again.
    await page.uiLanguage.setValue('he');
    await vi.waitFor(() => expect(page.locale.value).toBe('he'));
    expect(page.fetched).toEqual(['he', 'vi']);
  });

  it('the last of two quick choices wins, whichever loads first', async () => {
    const page = await freshPage();
    await page.startI18n(document, page.fetchWords);
    const slow = vi.fn(async (locale: Locale) => {
      if (locale === 'hy') await new Promise((resolve) => setTimeout(resolve, 50));
      return words(locale);
    });
    await page.startI18n(document, slow);
    await page.uiLanguage.setValue('hy');
    await page.uiLanguage.setValue('zh-CN');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(page.locale.value).toBe('zh-CN');
  });

  it('two loads at once share one fetch; a failed one is tried again, and English stands in', async () => {
    const page = await freshPage();
    await Promise.all([page.loadCatalog('vi', page.fetchWords), page.loadCatalog('vi', page.fetchWords)]);
    expect(page.fetchWords).toHaveBeenCalledTimes(1);
    let fail = true;
    const flaky = vi.fn(async (locale: Locale) => {
      if (locale === 'he' && fail) throw new Error('offline');
      return words(locale);
    });
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await page.uiLanguage.setValue('he');
    await page.startI18n(document, flaky);
    expect(page.locale.value).toBe('en');
    expect(page.t('common.save')).toBe('Save');
    expect(error).toHaveBeenCalled();
    fail = false;
    await page.loadCatalog('he', flaky);
    expect(page.hasCatalog('he')).toBe(true);
    error.mockRestore();
  });

  it('the background has English alone, from its own bundle', async () => {
    vi.resetModules();
    const catalog = await import('@/core/i18n/catalog');
    await import('@/core/i18n/english');
    expect(catalog.loadedLocales()).toEqual(['en']);
    expect(catalog.english({ key: 'common.save' })).toBe('Save');
  });
});

describe('the build writes each language once', () => {
  const root = process.cwd();

  it('one locales/<lang>.json per language, the whole merged catalog', () => {
    const files = languageFiles(root);
    expect(files.map((f) => f.relativeDest).sort()).toEqual(['locales/en.json', 'locales/he.json', 'locales/hy.json', 'locales/vi.json', 'locales/zh_CN.json']);
    expect(JSON.parse(files.find((f) => f.relativeDest === 'locales/he.json')!.contents)).toEqual(words('he'));
  });

  it("the browser's messages.json keep only what the browser reads", () => {
    const messages = JSON.stringify({ extName: { message: 'Sidequest' }, chat_send: { message: 'Send' }, pageActions_bar_stop: { message: 'Stop' }, pageActions_barbell: { message: 'x' } });
    expect(JSON.parse(narrowMessages(messages, ['extName', 'pageActions.bar']))).toEqual({ extName: { message: 'Sidequest' }, pageActions_bar_stop: { message: 'Stop' } });
    expect(browserI18nKeys(root)).toContain('pageActions.bar');
  });
});

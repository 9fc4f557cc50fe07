// @vitest-environment happy-dom
import { formatDate, formatDuration, formatNumber, locale, parts, setLocale, t, tn, type MessageKey } from '@/core/ui/i18n';

afterEach(() => setLocale('en', document));

describe('i18n runtime', () => {
  it('translates, fills placeholders, and sets lang and dir on the page', () => {
    expect(t('composer.send')).toBe('Send');
    setLocale('he', document);
    expect(locale.value).toBe('he');
    expect(t('composer.send')).toBe('שליחה');
    expect(t('approval.alwaysAllowHint', { tool: 'web_fetch', site: 'example.com' })).toBe('לאשר תמיד את web_fetch באתר example.com');
    expect(document.documentElement.dir).toBe('rtl');
    expect(document.documentElement.lang).toBe('he');
    setLocale('vi', document);
    expect(document.documentElement.dir).toBe('ltr');
  });

  it('falls back to the key for a missing message, and leaves unknown placeholders', () => {
    expect(t('no.such.key' as MessageKey)).toBe('no.such.key');
    expect(t('settings.loadError')).toBe('The settings could not be loaded: {message}');
  });

  it('picks CLDR plural forms per language', () => {
    expect([1, 2, 5].map((n) => tn('plugins.tools', n))).toEqual(['1 tool', '2 tools', '5 tools']);
    setLocale('he');
    expect([1, 2, 5].map((n) => tn('plugins.tools', n))).toEqual(['כלי אחד', 'שני כלים', '5 כלים']);
    setLocale('hy');
    expect([1, 3].map((n) => tn('plugins.tools', n))).toEqual(['1 գործիք', '3 գործիք']);
    setLocale('vi');
    expect(tn('plugins.tools', 1)).toBe('1 công cụ');
    setLocale('zh-CN');
    expect(tn('dataSettings.exported', 2, { file: 'a.json' })).toBe('已将 2 个对话导出到 a.json。');
  });

  it('formats numbers and dates in the language', () => {
    setLocale('vi');
    expect(formatNumber(1234.5)).toBe('1.234,5');
    expect(formatDuration(1530)).toBe('1,5 s');
    setLocale('en');
    expect(formatDuration(1530)).toBe('1.5 s');
    expect(formatDate(Date.UTC(2026, 0, 15, 12))).toBe('Jan 15, 2026');
  });

  it('cuts a message at the placeholders left for elements', () => {
    expect(parts('approval.title', { who: 'Sidequest' })).toEqual([{ text: 'Sidequest wants to run ' }, { slot: 'tool' }, { text: ' on ' }, { slot: 'site' }]);
  });
});

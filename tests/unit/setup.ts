import 'fake-indexeddb/auto';
import { beforeEach } from 'vitest';
// `wxt/testing/fake-browser`, not `wxt/testing`: that one also loads WXT's Vitest plugin (Vite and
// more), about a second in every test file's process.
import { fakeBrowser } from 'wxt/testing/fake-browser';
import en from '#locales/en.json';
import he from '#locales/he.json';
import hy from '#locales/hy.json';
import vi from '#locales/vi.json';
import zhCN from '#locales/zh_CN.json';
import { addCatalog } from '@/core/i18n/catalog';

// Every language's words, as if each had been loaded: tests render in any of them. The loader
// itself (one language at a time) is tested with a fresh catalog (tests/unit/i18n/load.test.ts).
addCatalog('en', en);
addCatalog('he', he);
addCatalog('hy', hy);
addCatalog('vi', vi);
addCatalog('zh-CN', zhCN);

beforeEach(() => {
  fakeBrowser.reset();
});

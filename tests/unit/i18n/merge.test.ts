import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localeSources, mergeLocales, writeMergedLocales } from '@/build/locales.mjs';

/** A project of only locale files: `{ 'locales/en.json': {...}, 'plugins/x/locales/en.json': {...} }`. */
function project(files: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sidequest-locales-'));
  for (const [file, words] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), JSON.stringify(words));
  }
  return dir;
}

describe('merging the core’s words and the plugins’', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const make = (files: Record<string, unknown>) => {
    const dir = project(files);
    dirs.push(dir);
    return dir;
  };

  it('adds each plugin’s sections, and its leaves under a core section', () => {
    const root = make({
      'locales/en.json': { common: { save: 'Save' }, settings: { section: { general: 'General' } } },
      'locales/he.json': { common: { save: 'שמירה' }, settings: { section: { general: 'כללי' } } },
      'plugins/web/locales/en.json': { search: { engine: 'Search engine' }, settings: { section: { search: 'Search' } } },
      'plugins/web/locales/he.json': { search: { engine: 'מנוע חיפוש' }, settings: { section: { search: 'חיפוש' } } },
      'plugins/tabs/index.ts': {},
    });
    expect(localeSources(root).map((s) => s.owner)).toEqual(['core', 'plugins/web']);
    const merged = mergeLocales(root);
    expect(merged.en).toEqual({ common: { save: 'Save' }, settings: { section: { general: 'General', search: 'Search' } }, search: { engine: 'Search engine' } });
    expect(merged.he!.settings).toEqual({ section: { general: 'כללי', search: 'חיפוש' } });
    writeMergedLocales(root, path.join(root, '.wxt/locales'));
    expect(JSON.parse(readFileSync(path.join(root, '.wxt/locales/en.json'), 'utf8'))).toEqual(merged.en);
  });

  it('refuses a key two files define, naming both', () => {
    const root = make({
      'locales/en.json': { settings: { section: { search: 'Search' } } },
      'plugins/web/locales/en.json': { settings: { section: { search: 'Web search' } } },
    });
    expect(() => mergeLocales(root)).toThrow('"settings.section.search" is defined by both locales/en.json and plugins/web/locales/en.json');
    const plural = make({ 'locales/en.json': { tasks: 'Tasks' }, 'plugins/tasks/locales/en.json': { tasks: { label: 'Tasks' } } });
    expect(() => mergeLocales(plural)).toThrow('"tasks" is defined by both');
  });

  it('refuses a plugin file in a language the core does not have', () => {
    const root = make({ 'locales/en.json': {}, 'plugins/web/locales/fr.json': {} });
    expect(() => mergeLocales(root)).toThrow('plugins/web/locales/fr.json: the core has no such language');
  });
});

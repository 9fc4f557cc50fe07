/**
 * Where the interface's words live, and how they become one catalog per language.
 *
 * The core's words are `locales/<lang>.json`; a plugin's own words are
 * `plugins/<id>/locales/<lang>.json`, in the same nested shape: usually one top-level section of
 * its own (`mcp`, `pageTools`…), and it may add leaves under a core section (its settings
 * section's title, `settings.section.search`). Before each build, `wxt prepare` and unit-test run
 * (the `ready` hook in `wxt.config.ts`), `writeMergedLocales` merges them into
 * `.wxt/locales/<lang>.json`, which feeds both `@wxt-dev/i18n` (the browser's `_locales` and the
 * key types) and the pages' runtime (`core/i18n/catalog.ts` imports `#locales/<lang>.json`).
 * Deleting a plugin's folder takes its words with it. Two files that define the same key, or a
 * plugin file in a language the core does not have, fail the build.
 *
 * Plain JavaScript: `scripts/check-plugins.mjs` (Node, no TypeScript) reads it too.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';

/** @typedef {{ [key: string]: string | Words }} Words */
/** @typedef {{ owner: string, dir: string }} Source */

/** The languages: the core's files, `locales/<lang>.json` (`en`, `he`, `hy`, `vi`, `zh_CN`). */
export function languages(root) {
  return readdirSync(path.join(root, 'locales'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/**
 * Every folder of words: the core's (`locales/`), then each plugin's that has one, by folder name.
 * @returns {Source[]}
 */
export function localeSources(root) {
  const out = [{ owner: 'core', dir: path.join(root, 'locales') }];
  const plugins = path.join(root, 'plugins');
  if (!existsSync(plugins)) return out;
  for (const entry of readdirSync(plugins, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(plugins, entry.name, 'locales');
    if (entry.isDirectory() && existsSync(dir)) out.push({ owner: `plugins/${entry.name}`, dir });
  }
  return out;
}

/**
 * One source's words in `lang` (undefined when it has no such file).
 * @param {Source} source
 * @returns {Words | undefined}
 */
export function readWords(source, lang) {
  const file = path.join(source.dir, `${lang}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

/**
 * The dotted keys of every text in `words` (a plural's forms each: `tasks.done.one`).
 * @param {Words} words
 * @returns {string[]}
 */
export function leafKeys(words, prefix = '') {
  return Object.entries(words).flatMap(([key, value]) => (typeof value === 'string' ? [prefix + key] : leafKeys(value, `${prefix}${key}.`)));
}

/**
 * Adds `words` into `target`; a key both define is an error that names both files.
 * @param {Words} target
 * @param {Words} words
 * @param {Map<string, string>} owners which file gave each key so far
 */
function mergeInto(target, words, file, owners, prefix = '') {
  for (const [key, value] of Object.entries(words)) {
    const dotted = prefix + key;
    const have = target[key];
    if (have === undefined) {
      target[key] = typeof value === 'string' ? value : mergeInto({}, value, file, owners, `${dotted}.`);
      owners.set(dotted, file);
    } else if (typeof have === 'object' && typeof value === 'object') {
      mergeInto(have, value, file, owners, `${dotted}.`);
    } else {
      throw new Error(`[locales] "${dotted}" is defined by both ${owners.get(dotted) ?? 'another file'} and ${file}`);
    }
  }
  return target;
}

/**
 * The whole catalog of each language: the core's words, then each plugin's.
 * @returns {Record<string, Words>}
 */
export function mergeLocales(root) {
  const langs = languages(root);
  const sources = localeSources(root);
  for (const source of sources) {
    for (const file of readdirSync(source.dir).filter((f) => f.endsWith('.json'))) {
      if (!langs.includes(file.slice(0, -'.json'.length))) throw new Error(`[locales] ${source.owner}/locales/${file}: the core has no such language (locales/${file})`);
    }
  }
  /** @type {Record<string, Words>} */
  const out = {};
  for (const lang of langs) {
    const owners = new Map();
    out[lang] = {};
    for (const source of sources) {
      const words = readWords(source, lang);
      if (words) mergeInto(out[lang], words, path.relative(root, path.join(source.dir, `${lang}.json`)), owners);
    }
  }
  return out;
}

/** Writes `<outDir>/<lang>.json` for each language (a file whose text is unchanged is left alone). */
export function writeMergedLocales(root, outDir) {
  mkdirSync(outDir, { recursive: true });
  for (const [lang, words] of Object.entries(mergeLocales(root))) {
    const file = path.join(outDir, `${lang}.json`);
    const text = `${JSON.stringify(words, null, 2)}\n`;
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  }
}

/** While `wxt` serves: merges again when a source file changes (the i18n module then reloads). */
export function watchLocales(root, outDir) {
  const watchers = localeSources(root).map((source) =>
    watch(source.dir, () => {
      try {
        writeMergedLocales(root, outDir);
      } catch (error) {
        console.error(error);
      }
    }),
  );
  return () => watchers.forEach((w) => w.close());
}

/**
 * The keys a folder of words lets the browser's own i18n API serve (`browser.i18n.getMessage`,
 * read by a script in a web page, which cannot reach the extension's files), from its
 * `browser-i18n.txt`: one dotted key or section per line, `#` starts a comment. The pages and the
 * background never use that API (`core/i18n/`).
 * @returns {string[]}
 */
export function browserI18nKeys(root) {
  return localeSources(root).flatMap((source) => {
    const file = path.join(source.dir, 'browser-i18n.txt');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
  });
}

/**
 * A browser's `messages.json` text narrowed to the messages `keep` names (dotted keys or sections,
 * as `browserI18nKeys` and the manifest's `__MSG_name__` give them): the words exist once in the
 * extension, in `locales/<lang>.json` (`languageFiles`), and `_locales` holds only what the
 * browser itself reads.
 * @param {string} text the `messages.json` @wxt-dev/i18n wrote
 * @param {string[]} keep
 */
export function narrowMessages(text, keep) {
  const names = keep.map((k) => k.replaceAll('.', '_'));
  const messages = JSON.parse(text);
  const kept = Object.fromEntries(Object.entries(messages).filter(([name]) => name.startsWith('@@') || names.some((n) => name === n || name.startsWith(`${n}_`))));
  return JSON.stringify(kept);
}

/**
 * The words of each language as the extension reads them at run time (`locales/<lang>.json` in
 * the build output, fetched by `core/i18n/load.ts`): the merged catalog, without spaces.
 * @returns {Array<{ relativeDest: string, contents: string }>}
 */
export function languageFiles(root) {
  return Object.entries(mergeLocales(root)).map(([lang, words]) => ({ relativeDest: `locales/${lang}.json`, contents: JSON.stringify(words) }));
}

// Proves that every built-in plugin is one folder: for each folder in plugins/, a copy of the
// project without that folder, without its line in each plugin list (plugins/index.ts, ui.ts,
// offscreen.ts) and without its thin entrypoints (entrypoints/<folder>-*, <folder>.*) must
// type-check and build, and the build must hold nothing of it: none of its tools' descriptions,
// none of its words (no message named by a key of its plugins/<id>/locales/ in the browser's
// _locales, none of its longer texts in any built file).
// Also checks that no file outside plugins/ (and outside tests and docs) names a built-in tool,
// that nothing in core/ imports from plugins/, components/ or stores/, and where each message key
// the code names (a quoted 'section.key') is defined: a plugin's code uses its own words or the
// core's, never another plugin's; the core's code uses only the core's words; and a key of
// locales/ that only one plugin's code uses belongs in that plugin's locales/.
//
//   node scripts/check-plugins.mjs            every plugin
//   node scripts/check-plugins.mjs tabs web   only these
//
// The copies are checked a few at a time (SIDEQUEST_CHECK_JOBS, default: the machine's cores, at
// least 2 and at most 4): a type check is one process on one core, and a build waits on the disk
// part of the time.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { languages, leafKeys, localeSources, readWords } from '../build/locales.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LISTS = ['plugins/index.ts', 'plugins/ui.ts', 'plugins/offscreen.ts'];
/** Folders that hold the core and its pages: they must never name a plugin's tool. */
const CORE_DIRS = ['core', 'components', 'stores', 'entrypoints', 'build', 'assets', 'locales'];

const folders = readdirSync(path.join(ROOT, 'plugins')).filter((f) => statSync(path.join(ROOT, 'plugins', f)).isDirectory());
const only = process.argv.slice(2);
const failures = [];

function files(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(full));
    else if (/\.(ts|vue|mjs|js|json)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/**
 * The tools a plugin folder defines (`name: '…'` followed by its description and inputSchema, in
 * its non-test files), each with the start of its description (up to a `${…}`): text of ours alone, which the
 * build must not hold once the plugin is gone (a tool's name may also appear in a dependency, as
 * `web_search` does in Anthropic's SDK).
 */
function pluginTools(folder) {
  const tools = new Map();
  for (const file of files(path.join(ROOT, 'plugins', folder))) {
    if (file.endsWith('.test.ts')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/name: '([a-z][a-z0-9_]*)',\s*\n\s*description:\s*(?:\n\s*)?['"`]([^'"`\\$]{12,})[\s\S]{0,4000}?inputSchema:/g)) {
      tools.set(m[1], m[2].slice(0, 60));
    }
  }
  return tools;
}

function toolNames(folder) {
  return [...pluginTools(folder).keys()];
}

/** Tool names that are also HTML elements or ARIA roles (see below). */
const PAGE_WORDS = new Set(['dialog']);

// 1. The core names no tool and imports no plugin.
const allTools = folders.flatMap((f) => toolNames(f).map((name) => ({ name, folder: f })));
for (const dir of CORE_DIRS) {
  if (!existsSync(path.join(ROOT, dir))) continue;
  for (const file of files(path.join(ROOT, dir))) {
    const rel = path.relative(ROOT, file);
    const text = readFileSync(file, 'utf8');
    for (const { name, folder } of allTools) {
      // A one-word name ("agent") is an ordinary word: only its quoted use counts. One that is also
      // the page's vocabulary (`dialog`: an element and an ARIA role) is not counted in the core,
      // which names elements and roles (`role="dialog"`, the tags Markdown drops).
      if (PAGE_WORDS.has(name)) continue;
      const pattern = name.includes('_') ? new RegExp(`\\b${name}\\b`) : new RegExp(`['"\`]${name}['"\`]`);
      if (pattern.test(text)) failures.push(`${rel} names the tool ${name} of plugins/${folder}`);
    }
    if (dir === 'core' && /from '@\/(plugins|components|stores)\//.test(text)) failures.push(`${rel} (core) imports from plugins/, components/ or stores/`);
    if (dir !== 'entrypoints' && /from '@\/plugins\//.test(text)) failures.push(`${rel} imports a plugin (only plugin lists and thin entrypoints may)`);
  }
}
console.log(`core: ${failures.length ? failures.length + ' problem(s)' : 'names no built-in tool and imports no plugin'}`);

// 2. Each message key the code names is defined where its code can count on it.
const LANGS = languages(ROOT);
const SOURCES = localeSources(ROOT);
const PLURAL = /\.(zero|one|two|few|many|other)$/;
/** Each message key (a plural once, without its forms) → the sources that define it ('core', 'plugins/<id>'). */
const definedBy = new Map();
for (const source of SOURCES) {
  for (const key of leafKeys(readWords(source, 'en') ?? {})) {
    for (const k of new Set([key, key.replace(PLURAL, '')])) definedBy.set(k, [...(definedBy.get(k) ?? []), source.owner]);
  }
}
/** Which part of the project a file is: 'core', or 'plugins/<id>'. */
const ownerOf = (rel) => (/^plugins\/[^/]+\//.test(rel) ? rel.split('/').slice(0, 2).join('/') : 'core');
/** Message key → the parts whose (non-test) code names it. */
const usedBy = new Map();
const before = failures.length;
for (const dir of ['core', 'components', 'stores', 'entrypoints', 'plugins']) {
  for (const file of files(path.join(ROOT, dir))) {
    const rel = path.relative(ROOT, file);
    if (/\.test\.ts$|\.json$/.test(rel)) continue;
    const owner = ownerOf(rel);
    for (const m of readFileSync(file, 'utf8').matchAll(/['"`]([A-Za-z0-9]+(?:\.[A-Za-z0-9]+)+)['"`]/g)) {
      const owners = definedBy.get(m[1]);
      if (!owners) continue;
      usedBy.set(m[1], new Set([...(usedBy.get(m[1]) ?? []), owner]));
      if (!owners.includes('core') && !owners.includes(owner)) failures.push(`${rel} uses the word ${m[1]} of ${owners.join(', ')}: ${owner === 'core' ? 'the core' : owner} must not count on it`);
    }
  }
}
for (const [key, owners] of definedBy) {
  const users = [...(usedBy.get(key) ?? [])];
  if (owners.includes('core') && users.length === 1 && users[0] !== 'core') failures.push(`locales/: ${key} is used only by ${users[0]}: move it to ${users[0]}/locales/`);
}
console.log(`words: ${failures.length > before ? failures.length - before + ' problem(s)' : `${definedBy.size} keys in ${SOURCES.length} folders, each used where it is defined`}`);

/**
 * What of a plugin's words a build without it must not hold: the message names of its keys in
 * `_locales` (`mcp.title` → `mcp_title`), and its longer texts (20+ characters, in every
 * language) that no other folder's words contain, written plainly (no quote, backslash, `$` or
 * line break, which a bundler may escape).
 */
function pluginWords(folder) {
  const source = SOURCES.find((s) => s.owner === `plugins/${folder}`);
  if (!source) return { names: [], texts: [] };
  const names = leafKeys(readWords(source, 'en') ?? {}).map((k) => k.replaceAll('.', '_'));
  const texts = [];
  for (const lang of LANGS) {
    const others = SOURCES.filter((s) => s !== source).map((s) => JSON.stringify(readWords(s, lang) ?? {})).join('\n');
    const own = readWords(source, lang) ?? {};
    for (const key of leafKeys(own)) {
      const text = key.split('.').reduce((node, part) => node[part], own);
      if (text.length >= 20 && !/[`"'\\$\n\u2066-\u2069]/.test(text) && !others.includes(text)) texts.push(text);
    }
  }
  return { names, texts };
}

/** What a build in `dir` (chrome-mv3, firefox-mv2) still holds of plugins/<folder>: its tools' descriptions, its words. */
function leftovers(dir, folder) {
  const left = [];
  const descriptions = pluginTools(folder);
  const words = pluginWords(folder);
  for (const out of ['.output/chrome-mv3', '.output/firefox-mv2']) {
    for (const lang of LANGS) {
      const file = path.join(dir, out, '_locales', lang, 'messages.json');
      if (!existsSync(file)) continue;
      const messages = JSON.parse(readFileSync(file, 'utf8'));
      const names = words.names.filter((n) => Object.prototype.hasOwnProperty.call(messages, n));
      if (names.length) left.push(`its messages ${names.slice(0, 3).join(', ')}${names.length > 3 ? '…' : ''} in ${path.relative(dir, file)}`);
    }
    for (const file of files(path.join(dir, out))) {
      const text = readFileSync(file, 'utf8');
      for (const [name, description] of descriptions) {
        if (text.includes(description)) left.push(`${name} (its description) in ${path.relative(dir, file)}`);
      }
      const found = words.texts.find((t) => text.includes(t));
      if (found) left.push(`its words "${found.slice(0, 40)}…" in ${path.relative(dir, file)}`);
    }
  }
  return left;
}

// 3. Each plugin removed leaves a project that type-checks and builds, with nothing of it.
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  // A worktree's node_modules may be a symlink git does not ignore: the copy links its own.
  .filter((f) => f && f !== 'node_modules' && existsSync(path.join(ROOT, f)));

/** Runs a command of the project's own (node_modules/.bin, not through npx) in `cwd`; rejects with its output. */
function run(cwd, cmd, args) {
  return new Promise((resolve, reject) => {
    execFile(path.join(ROOT, 'node_modules/.bin', cmd), args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stdout, stderr }));
      else resolve(stdout);
    });
  });
}

/** The copies being checked: removed if the check is stopped (CI stops it when it ends early). */
const copies = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** A copy of the project without plugins/<folder>: type-checks, builds, and holds nothing of it (else a failure). */
async function checkWithout(folder) {
  const started = Date.now();
  const tools = toolNames(folder);
  const dir = mkdtempSync(path.join(tmpdir(), `sidequest-without-${folder}-`));
  copies.add(dir);
  try {
    for (const file of tracked) {
      if (file.startsWith(`plugins/${folder}/`)) continue;
      const base = path.basename(file);
      if (file.startsWith('entrypoints/') && (base.startsWith(`${folder}-`) || base.startsWith(`${folder}.`))) continue;
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      cpSync(path.join(ROOT, file), path.join(dir, file));
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    for (const list of LISTS) {
      const file = path.join(dir, list);
      if (!existsSync(file)) continue;
      const lines = readFileSync(file, 'utf8').split('\n');
      const removed = new Set();
      const kept = lines.filter((line) => {
        const m = /^import \{([^}]*)\} from '\.\/([^/']+)[^']*';$/.exec(line);
        if (m && m[2] === folder) {
          for (const id of m[1].split(',')) removed.add(id.trim());
          return false;
        }
        return true;
      });
      const out = kept.filter((line) => !removed.has(line.trim().replace(/,$/, '')));
      writeFileSync(file, out.join('\n'));
    }
    // The Chrome build first: it writes .wxt/ (the generated types) as `wxt prepare` would, so the
    // type check that follows needs no prepare of its own.
    const step = async (what, cmd, args) => {
      try {
        await run(dir, cmd, args);
        return true;
      } catch (error) {
        failures.push(`without plugins/${folder}: ${what} fails\n${(error.stdout || '') + (error.stderr || '')}`.slice(0, 4000));
        return false;
      }
    };
    if (!(await step('the Chrome build', 'wxt', ['build']))) return;
    if (!(await step('the type check', 'vue-tsc', ['--noEmit']))) return;
    if (!(await step('the Firefox build', 'wxt', ['build', '-b', 'firefox']))) return;
    const left = leftovers(dir, folder);
    if (left.length) {
      failures.push(`without plugins/${folder}: the build still holds ${[...new Set(left)].join(', ')}`);
      return;
    }
    console.log(`without plugins/${folder} (${tools.join(', ') || 'no tools'}; ${pluginWords(folder).names.length} messages): type-checks, builds, nothing left (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    copies.delete(dir);
  }
}

const queue = folders.filter((folder) => !only.length || only.includes(folder));
const jobs = Math.max(1, Number(process.env.SIDEQUEST_CHECK_JOBS) || Math.min(4, Math.max(2, availableParallelism())));
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let folder = queue.shift(); folder !== undefined; folder = queue.shift()) await checkWithout(folder);
  }),
);

if (failures.length) {
  console.error(`\n${failures.length} problem(s):\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
console.log('every plugin is one folder');

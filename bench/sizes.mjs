// Sizes of a fresh production build: what each extension page loads before it can show anything,
// the words of one language, the zips and what is biggest in them, the background bundle, and
// the bundle analyzer's report (the biggest modules of the sidebar's first load and of the
// background). Run by `node bench/run.mjs sizes` or `node bench/sizes.mjs`; prints tables, writes
// nothing to the repo.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { table as printTable } from './print.mjs';

const KB = 1024;
const kb = (n) => `${(n / KB).toFixed(1)} KB`;
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

/** The entries of a zip file from its central directory: name, size, compressed size. */
export function zipEntries(file) {
  const buf = readFileSync(file);
  let end = buf.length - 22;
  while (end >= 0 && buf.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error(`${file}: no end of central directory`);
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const out = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry`);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const skip = buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    out.push({ name: buf.toString('utf8', at + 46, at + 46 + nameLength), size, compressed });
    at += 46 + nameLength + skip;
  }
  return out;
}

/** What `page`.html loads before it shows anything: its module script and the chunks it preloads (JavaScript only). */
export function initialFiles(out, page) {
  const html = readFileSync(path.join(out, `${page}.html`), 'utf8');
  const scripts = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="([^"]+)"/g)].map((m) => m[1]);
  return [...new Set(scripts)].map((src) => src.replace(/^\//, ''));
}

/**
 * What the background evaluates: `background.js` and, for a module background, every chunk it
 * imports statically (transitively). A classic background is the one file.
 */
export function backgroundFiles(out, entry = 'background.js') {
  const files = [entry];
  for (let i = 0; i < files.length; i++) {
    const code = readFileSync(path.join(out, files[i]), 'utf8');
    for (const m of code.matchAll(/\b(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g)) {
      const file = path.posix.join(path.posix.dirname(files[i]), m[1]);
      if (!files.includes(file)) files.push(file);
    }
  }
  return files;
}

/** The report of build/module-report.ts: bytes per module in each emitted chunk. */
function readReport(file) {
  const chunks = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const { fileName, modules } = JSON.parse(line);
    chunks.set(fileName, modules);
  }
  return chunks;
}

function topModules(chunks, fileNames, count) {
  const totals = new Map();
  for (const name of fileNames) for (const [module, bytes] of Object.entries(chunks.get(name) ?? {})) totals.set(module, (totals.get(module) ?? 0) + bytes);
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, count).map(([module, bytes]) => ({ module, bytes, share: bytes / all }));
}

export function sizes(root, table) {
  console.log('\n## Sizes (fresh production build)\n');
  const report = path.join(tmpdir(), `sidequest-modules-${process.pid}.jsonl`);
  rmSync(report, { force: true });
  // One build for the zip and the analyzer: the report's source maps are dropped, the files are those of a plain build.
  execFileSync('npx', ['wxt', 'zip'], { cwd: root, stdio: 'ignore', env: { ...process.env, SIDEQUEST_MODULE_REPORT: report } });
  const chunks = readReport(report);
  rmSync(report, { force: true });
  const out = path.join(root, '.output/chrome-mv3');
  const zipOf = (browser) => readdirSync(path.join(root, '.output')).find((f) => f.endsWith(`-${browser}.zip`));
  const chromeZip = path.join(root, '.output', zipOf('chrome'));

  const rows = [['what', 'gzipped', 'raw', 'budget']];
  const pages = {};
  for (const page of ['sidepanel', 'popup', 'options']) {
    const files = initialFiles(out, page);
    pages[page] = files;
    const raw = files.reduce((n, f) => n + statSync(path.join(out, f)).size, 0);
    const packed = files.reduce((n, f) => n + gz(path.join(out, f)), 0);
    rows.push([`${page === 'sidepanel' ? 'sidebar' : page} initial JS (${files.length} files)`, kb(packed), kb(raw), page === 'sidepanel' ? '80 KB' : '']);
  }
  // Fetched before the page mounts, beside its JavaScript: the active language's words only.
  for (const lang of ['en', 'hy']) {
    const file = path.join(out, 'locales', `${lang}.json`);
    if (existsSync(file)) rows.push([`+ the words of one language (locales/${lang}.json${lang === 'hy' ? ', the largest' : ''})`, kb(gz(file)), kb(statSync(file).size), '']);
  }
  const background = backgroundFiles(out);
  const backgroundRaw = background.reduce((n, f) => n + statSync(path.join(out, f)).size, 0);
  const backgroundPacked = background.reduce((n, f) => n + gz(path.join(out, f)), 0);
  rows.push([`background (${background.length === 1 ? 'background.js' : `background.js + ${background.length - 1} chunks it imports`})`, kb(backgroundPacked), kb(backgroundRaw), '']);
  rows.push([`Chrome zip (${path.basename(chromeZip)}, ${zipEntries(chromeZip).length} files)`, kb(statSync(chromeZip).size), '', '700 KB']);
  try {
    execFileSync('npx', ['wxt', 'zip', '-b', 'firefox'], { cwd: root, stdio: 'ignore' });
    const firefoxZip = path.join(root, '.output', zipOf('firefox'));
    rows.push([`Firefox zip (${path.basename(firefoxZip)}, ${zipEntries(firefoxZip).length} files)`, kb(statSync(firefoxZip).size), '', '']);
  } catch (error) {
    console.log(`Firefox zip: not built (${error.message.split('\n')[0]})`);
  }
  table(rows);

  console.log("\nThe sidebar's first load, its 10 biggest modules (minified bytes, from the build's source maps: build/module-report.ts):\n");
  table([['module', 'bytes', 'share'], ...topModules(chunks, pages.sidepanel.filter((f) => f.endsWith('.js')), 10).map((m) => [m.module, kb(m.bytes), `${(m.share * 100).toFixed(1)} %`])]);

  console.log("\nChrome's background, its 15 biggest modules (minified bytes, same source):\n");
  table([['module', 'bytes', 'share'], ...topModules(chunks, background, 15).map((m) => [m.module, kb(m.bytes), `${(m.share * 100).toFixed(1)} %`])]);

  console.log('\nThe Chrome zip, its 10 biggest files:\n');
  const entries = zipEntries(chromeZip).sort((a, b) => b.compressed - a.compressed);
  const total = entries.reduce((n, e) => n + e.compressed, 0);
  table([['file', 'in the zip', 'raw', 'share'], ...entries.slice(0, 10).map((e) => [e.name, kb(e.compressed), kb(e.size), `${((e.compressed / total) * 100).toFixed(1)} %`])]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) sizes(fileURLToPath(new URL('..', import.meta.url)), printTable);

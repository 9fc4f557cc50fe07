// Prints how long each stage of a test run took, and each end-to-end test file in each browser:
//
//   node scripts/timings.mjs <dir>
//
// <dir> holds `stages.tsv` (one line per stage: name, milliseconds, ok or FAILED …, and `beside`
// for a stage that ran beside the others, left out of the total; written by
// .ci/run) and `e2e.jsonl` (one line per end-to-end file, from scripts/timings-reporter.mjs).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/timings.mjs <dir>');
  process.exit(2);
}

const clock = (seconds) => {
  if (seconds === undefined || Number.isNaN(seconds)) return '-';
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
const read = (name) => (existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name), 'utf8').split('\n').filter(Boolean) : []);

const stages = read('stages.tsv').map((line) => {
  const [name, ms, status, beside] = line.split('\t');
  return { name, seconds: Number(ms) / 1000, status, beside: beside === 'beside' };
});
const files = read('e2e.jsonl').flatMap((line) => {
  try {
    return [JSON.parse(line)];
  } catch {
    return [];
  }
});

const out = [];
const total = stages.filter((s) => !s.beside).reduce((sum, s) => sum + s.seconds, 0);
out.push(`== time per stage (total ${clock(total)})`);
for (const s of stages) out.push(`${s.name.padEnd(34)} ${clock(s.seconds).padStart(7)}  ${s.status === 'ok' ? '' : s.status}`.trimEnd());

if (files.length) {
  const browsers = [...new Set(files.flatMap((f) => Object.keys(f.browsers)))].sort((a, b) => (a === 'other') - (b === 'other') || a.localeCompare(b));
  const width = Math.max(34, ...files.map((f) => path.basename(f.file).length + 2));
  out.push('');
  out.push(`== end-to-end, per file (m:ss; "start-up" is the file's own, outside any browser's tests)`);
  out.push(`${'file'.padEnd(width)} ${browsers.map((b) => b.padStart(9)).join(' ')} ${'start-up'.padStart(9)} ${'total'.padStart(7)}`);
  const sums = Object.fromEntries(browsers.map((b) => [b, 0]));
  let startup = 0;
  let all = 0;
  for (const f of [...files].sort((a, b) => b.ms - a.ms)) {
    const own = f.ms - Object.values(f.browsers).reduce((a, b) => a + b, 0);
    for (const b of browsers) sums[b] += f.browsers[b] ?? 0;
    startup += Math.max(0, own);
    all += f.ms;
    const cells = browsers.map((b) => (f.browsers[b] === undefined ? '-' : clock(f.browsers[b] / 1000)).padStart(9));
    out.push(`${`  ${path.basename(f.file)}`.padEnd(width)} ${cells.join(' ')} ${clock(Math.max(0, own) / 1000).padStart(9)} ${clock(f.ms / 1000).padStart(7)}${f.failed ? `  ${f.failed} failed` : ''}`);
  }
  out.push(`${`  (${files.length} files, summed)`.padEnd(width)} ${browsers.map((b) => clock(sums[b] / 1000).padStart(9)).join(' ')} ${clock(startup / 1000).padStart(9)} ${clock(all / 1000).padStart(7)}`);
}
console.log(out.join('\n'));

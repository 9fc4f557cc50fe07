// Runs the end-to-end test files (tests/e2e/*.test.mjs) with node:test, E2E_JOBS files at a time
// (default 2): a file's browsers mostly wait (on their pages, the scripted model, timers), so two
// keep a two-core machine busy. The slowest files start first, so that the last ones to finish are
// short; `node --test` would sort the files by name, hence this script (node:test's `run`, which
// keeps the order given). Files not named in SLOWEST follow in name order.
//
//   node scripts/e2e.mjs                    every file
//   node scripts/e2e.mjs tabs chat          only these (tests/e2e/<name>.test.mjs)
//
// The spec reporter prints each file's tests as the file ends. With SIDEQUEST_TIMINGS_DIR set
// (.ci/run sets it), each file's time in each browser is also written to e2e.jsonl there
// (scripts/timings-reporter.mjs). E2E_BROWSERS picks the browsers (tests/e2e/harness.mjs).
import { createWriteStream, readdirSync } from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import timingsReporter from './timings-reporter.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIR = path.join(ROOT, 'tests/e2e');

/** The slowest files, slowest first, as CI's table of times showed them (both browsers together). */
const SLOWEST = [
  'memory',
  'skills',
  'providers',
  'approval-card',
  'i18n-a11y',
  'page-tools',
  'builtin-plugins',
  'chat',
  'vision',
  'page-actions',
  'envelope',
  'page-tools-spec',
  'mcp',
  'page-actions-pages',
  'data',
  'web',
];

const all = readdirSync(DIR)
  .filter((f) => f.endsWith('.test.mjs'))
  .sort();
const wanted = process.argv.slice(2).map((a) => path.basename(a).replace(/\.test\.mjs$/, ''));
const unknown = wanted.filter((name) => !all.includes(`${name}.test.mjs`));
if (unknown.length) {
  console.error(`scripts/e2e.mjs: no tests/e2e/${unknown[0]}.test.mjs`);
  process.exit(2);
}
const names = [...SLOWEST.map((n) => `${n}.test.mjs`).filter((f) => all.includes(f)), ...all.filter((f) => !SLOWEST.includes(f.replace(/\.test\.mjs$/, '')))];
const files = names.filter((f) => !wanted.length || wanted.includes(f.replace(/\.test\.mjs$/, ''))).map((f) => path.join(DIR, f));
const jobs = Math.max(1, Number(process.env.E2E_JOBS) || 2);

console.log(`== end-to-end tests (${process.env.E2E_BROWSERS || 'Chromium + Firefox'}), ${files.length} files, ${jobs} at a time`);
const stream = run({ files, concurrency: jobs });
stream.on('test:fail', (data) => {
  if (!data.todo) process.exitCode = 1;
});
stream.compose(new spec()).pipe(process.stdout);
if (process.env.SIDEQUEST_TIMINGS_DIR) {
  stream.compose(timingsReporter).pipe(createWriteStream(path.join(process.env.SIDEQUEST_TIMINGS_DIR, 'e2e.jsonl')));
}

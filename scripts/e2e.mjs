// Runs the end-to-end test files (tests/e2e/*.test.mjs) with node:test, E2E_JOBS files at a time
// (default 3): a file's browsers mostly wait (on their pages, the scripted model, timers; a file
// used about a third of a core), so three keep a two-core machine busy (eight short files took
// 14-16% less time than two at a time, on a machine busy with other work). The longest files start first (longest-processing-time order, from
// the times CI last printed), so that the last ones to finish are short and the two jobs end
// together; `node --test` would sort the files by name, hence this script (node:test's `run`, which
// keeps the order given). A file not in SECONDS counts as a middling one (NEW_FILE_SECONDS).
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

/**
 * Each file's time in CI's last table (seconds, both browsers together, m:ss in the table; refresh
 * it from that table when the order changes much).
 */
const SECONDS = {
  memory: 287,
  providers: 232,
  skills: 212,
  'approval-card': 189,
  'i18n-a11y': 154,
  'page-actions-outline': 152,
  'page-tools': 149,
  'gate-acting': 143,
  'builtin-plugins': 141,
  chat: 130,
  mcp: 124,
  vision: 120,
  'page-actions': 115,
  'page-actions-forms': 113,
  data: 109,
  'page-tools-spec': 103,
  redos: 85,
  web: 82,
  envelope: 82,
  'page-actions-pointer': 81,
  'page-actions-pages': 81,
  outbound: 76,
  plans: 74,
  'settings-import': 70,
  'page-tools-mcpb': 69,
  'local-address': 66,
  approvals: 63,
  'page-actions-control': 63,
  security: 57,
  'memory-user': 52,
  'page-tools-offer': 51,
  tabs: 49,
  'sender-boundary': 48,
  'page-actions-basic': 45,
  'loop-guard': 44,
  'lean-prompt': 39,
  'tab-group': 38,
  'web-cookies': 36,
  pdf: 35,
  'page-actions-trusted': 35,
  'page-actions-world': 24,
};
/** A file new since that table: about a minute (the rule for a new file is under 25 s per browser). */
const NEW_FILE_SECONDS = 60;

const all = readdirSync(DIR)
  .filter((f) => f.endsWith('.test.mjs'))
  .sort();
const wanted = process.argv.slice(2).map((a) => path.basename(a).replace(/\.test\.mjs$/, ''));
const unknown = wanted.filter((name) => !all.includes(`${name}.test.mjs`));
if (unknown.length) {
  console.error(`scripts/e2e.mjs: no tests/e2e/${unknown[0]}.test.mjs`);
  process.exit(2);
}
const seconds = (f) => SECONDS[f.replace(/\.test\.mjs$/, '')] ?? NEW_FILE_SECONDS;
// Longest first; the same time in name order.
const names = [...all].sort((a, b) => seconds(b) - seconds(a));
const files = names.filter((f) => !wanted.length || wanted.includes(f.replace(/\.test\.mjs$/, ''))).map((f) => path.join(DIR, f));
const jobs = Math.max(1, Number(process.env.E2E_JOBS) || 3);

console.log(`== end-to-end tests (${process.env.E2E_BROWSERS || 'Chromium + Firefox'}), ${files.length} files, ${jobs} at a time`);
const stream = run({ files, concurrency: jobs });
stream.on('test:fail', (data) => {
  if (!data.todo) process.exitCode = 1;
});
stream.compose(new spec()).pipe(process.stdout);
if (process.env.SIDEQUEST_TIMINGS_DIR) {
  stream.compose(timingsReporter).pipe(createWriteStream(path.join(process.env.SIDEQUEST_TIMINGS_DIR, 'e2e.jsonl')));
}

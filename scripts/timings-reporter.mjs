// A node:test reporter that records how long each end-to-end test file took in each browser, one
// JSON line per file, written when the run ends (files that run side by side report their tests
// after their own end, in the order they were given):
//
//   {"file":"tests/e2e/tabs.test.mjs","ms":31200,"browsers":{"chromium":9100,"firefox":19800},"failed":0}
//
// `ms` is the file's whole run (its process: start-up, imports, every suite); `browsers` sums its
// top-level suites by the browser their name holds ("… in chromium"); what is left is the file's
// own start-up and what runs outside a browser's suite. Used by scripts/e2e.mjs when
// SIDEQUEST_TIMINGS_DIR is set, beside the spec reporter: `scripts/timings.mjs` prints the table.
import path from 'node:path';

const BROWSER = /\b(chromium|firefox)\b/i;

export default async function* timingsReporter(source) {
  /** file → { started, ms, browsers, failed } */
  const files = new Map();
  const entry = (file) => {
    let e = files.get(file);
    if (!e) files.set(file, (e = { started: Date.now(), ms: undefined, browsers: {}, failed: 0 }));
    return e;
  };
  const line = (file, e) => `${JSON.stringify({ file: path.relative(process.cwd(), file), ms: Math.round(e.ms ?? Date.now() - e.started), browsers: e.browsers, failed: e.failed || (e.fileFailed ? 1 : 0) })}\n`;
  for await (const event of source) {
    const data = event.data;
    if (!data?.file) continue;
    const e = entry(data.file);
    if (data.name === data.file) {
      // The file's own test: its process, from start to end.
      if (event.type !== 'test:complete') continue;
      e.ms = data.details?.duration_ms;
      // (A file that failed with no test failing: it could not load, or its process failed.)
      if (data.details?.passed === false) e.fileFailed = true;
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // Count the tests (and hooks) that failed themselves, not the suites around them.
    if (event.type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') e.failed++;
    if (data.nesting !== 0) continue;
    const browser = BROWSER.exec(data.name)?.[1]?.toLowerCase() ?? 'other';
    e.browsers[browser] = Math.round((e.browsers[browser] ?? 0) + (data.details?.duration_ms ?? 0));
  }
  // (A file that never ended, in a run cut short: the time from its first event.)
  for (const [file, e] of files) yield line(file, e);
}

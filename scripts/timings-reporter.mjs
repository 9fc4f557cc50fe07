// A node:test reporter that records how long each end-to-end test file took in each browser, one
// JSON line per file as it ends (so a run cut short still has the files that finished):
//
//   {"file":"tests/e2e/tabs.test.mjs","ms":31200,"browsers":{"chromium":9100,"firefox":19800},"failed":0}
//
// `ms` is the file's whole run (its process: start-up, imports, every suite); `browsers` sums its
// top-level suites by the browser their name ends with ("… in chromium"); what is left is the
// file's own start-up and what runs outside a browser's suite. Used by scripts/test.sh when
// SIDEQUEST_TIMINGS_DIR is set, beside the spec reporter: `scripts/timings.mjs` prints the table.
import path from 'node:path';

const BROWSER = /\b(chromium|firefox)\b/i;

export default async function* timingsReporter(source) {
  /** file → { started, browsers, failed } */
  const files = new Map();
  const entry = (file) => {
    let e = files.get(file);
    if (!e) files.set(file, (e = { started: Date.now(), browsers: {}, failed: 0, done: false }));
    return e;
  };
  const line = (file, e, ms) => {
    e.done = true;
    return `${JSON.stringify({ file: path.relative(process.cwd(), file), ms: Math.round(ms), browsers: e.browsers, failed: e.failed })}\n`;
  };
  for await (const event of source) {
    const data = event.data;
    if (!data?.file) continue;
    if (event.type === 'test:enqueue' || event.type === 'test:dequeue' || event.type === 'test:start') {
      entry(data.file);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const e = entry(data.file);
    const ms = data.details?.duration_ms ?? 0;
    // Count the tests (and hooks, files) that failed themselves, not the suites around them.
    if (event.type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') e.failed++;
    // Node 20 reports each file as a test of its own, named by its path, when its process ends.
    if (data.name === data.file) {
      yield line(data.file, e, ms);
      continue;
    }
    if (data.nesting !== 0) continue;
    const browser = BROWSER.exec(data.name)?.[1]?.toLowerCase() ?? 'other';
    e.browsers[browser] = Math.round((e.browsers[browser] ?? 0) + ms);
  }
  // Newer Node reports no test for the file itself: the time from its first event to the end.
  for (const [file, e] of files) if (!e.done) yield line(file, e, Date.now() - e.started);
}

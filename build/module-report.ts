/**
 * The bundle analyzer behind `node bench/run.mjs sizes`: which source modules the bytes of each
 * emitted chunk come from. Active only when `SIDEQUEST_MODULE_REPORT` names a file; a normal build
 * is untouched.
 *
 * Exact, not estimated: the build makes a source map for each chunk (`hidden`, so no
 * `sourceMappingURL` comment is added), and every byte of the chunk's final, minified code is
 * given to the source its mapping segment names (bytes before a line's first segment, the bundler's
 * own glue, go to `(glue)`). The maps are then dropped from the output, so the files written are
 * those of a build without the report. Each chunk's lines are appended to the report as JSON
 * (`{ build, fileName, bytes, modules: { [source]: bytes } }`); WXT runs one Vite build per group
 * of entrypoints, and all of them append to the same file.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...CHARS].map((c, i) => [c, i]));

/** Decodes one line of a source map's `mappings`: each segment's generated column and source index. */
function decodeLine(line: string, state: { source: number }): Array<{ column: number; source: number }> {
  const out: Array<{ column: number; source: number }> = [];
  let column = 0;
  for (const segment of line.split(',')) {
    if (!segment) continue;
    const fields: number[] = [];
    let value = 0;
    let shift = 0;
    for (const char of segment) {
      const digit = DIGIT.get(char)!;
      value += (digit & 31) << shift;
      if (digit & 32) {
        shift += 5;
      } else {
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
    }
    column += fields[0]!;
    if (fields.length > 1) state.source += fields[1]!;
    out.push({ column, source: fields.length > 1 ? state.source : -1 });
  }
  return out;
}

/** Bytes of `code` (UTF-8) per source of `map`; columns in a map count UTF-16 units. */
export function attribute(code: string, map: { sources: string[]; mappings: string }): Record<string, number> {
  const totals: Record<string, number> = {};
  const add = (name: string, text: string) => {
    if (text) totals[name] = (totals[name] ?? 0) + Buffer.byteLength(text);
  };
  const lines = code.split('\n');
  const mapped = map.mappings.split(';');
  const state = { source: 0 };
  for (const [i, line] of lines.entries()) {
    const segments = i < mapped.length ? decodeLine(mapped[i]!, state) : [];
    let start = 0;
    let owner = '(glue)';
    for (const segment of segments) {
      add(owner, line.slice(start, segment.column));
      start = segment.column;
      owner = segment.source >= 0 ? (map.sources[segment.source] ?? '(glue)') : '(glue)';
    }
    add(owner, line.slice(start) + (i < lines.length - 1 ? '\n' : ''));
  }
  return totals;
}

/** A readable module name: the package for `node_modules`, else the path from the project. */
export function label(source: string, root: string): string {
  const clean = source.replace(/^\0/, '').replace(/\?.*$/, '');
  const inModules = clean.lastIndexOf('node_modules/');
  if (inModules >= 0) return clean.slice(inModules + 'node_modules/'.length);
  const abs = path.resolve(root, clean);
  return abs.startsWith(root) ? path.relative(root, abs) : clean;
}

export function moduleReport(reportFile: string | undefined = process.env.SIDEQUEST_MODULE_REPORT): Plugin {
  let root = process.cwd();
  let outDir = '';
  return {
    name: 'sidequest:module-report',
    apply: () => Boolean(reportFile),
    config: () => ({ build: { sourcemap: 'hidden' } }),
    configResolved(config) {
      root = config.root;
      outDir = config.build.outDir;
    },
    generateBundle: {
      // After Vite's own passes (its preload helper rewrites chunks in this hook).
      order: 'post',
      handler(_options, bundle) {
      for (const [fileName, item] of Object.entries(bundle)) {
        if (item.type !== 'chunk' || !item.map) continue;
        const dir = path.dirname(path.resolve(outDir, fileName));
        const modules: Record<string, number> = {};
        for (const [source, bytes] of Object.entries(attribute(item.code, item.map))) {
          const name = source === '(glue)' ? source : label(path.resolve(dir, source), root);
          modules[name] = (modules[name] ?? 0) + bytes;
        }
        appendFileSync(reportFile!, `${JSON.stringify({ fileName, bytes: Buffer.byteLength(item.code), modules })}\n`);
      }
      for (const [fileName, item] of Object.entries(bundle)) if (item.type === 'asset' && fileName.endsWith('.map')) delete bundle[fileName];
      },
    },
  };
}

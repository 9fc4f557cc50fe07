// Finds import circles in a folder (core/ by default): files that reach themselves through their
// imports. Every import counts, `import type` and `import('…')` types included, since a circle of
// types makes a folder read in two directions just as one of values does; so does
// `import.meta.glob`. Imports are read and resolved with the TypeScript compiler (the project's
// tsconfig.json, so `@/…` resolves as the build resolves it); nothing is type-checked.
// A circle is a strongly connected component of the import graph: each is listed with its files
// and one shortest way round.
//
//   node scripts/import-circles.mjs [folder]    exits 1 when it finds a circle
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** The module names a file imports: static imports and re-exports (types too), `import()` calls and types, `import.meta.glob` patterns. */
function importsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = [];
  const globs = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      names.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      names.push(node.moduleReference.expression.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      names.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) names.push(node.arguments[0].text);
      // import.meta.glob('./*-client.ts'): every file the pattern matches.
      else if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'glob' && ts.isMetaProperty(callee.expression)) globs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { names, globs };
}

/** Files a relative `import.meta.glob` pattern matches (`*` within one folder, as our patterns use it). */
function globFiles(file, pattern) {
  const full = path.resolve(path.dirname(file), pattern);
  const dir = path.dirname(full);
  const re = new RegExp(`^${path.basename(full).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  try {
    return readdirSync(dir).filter((name) => re.test(name)).map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

function compilerOptions() {
  const configPath = path.join(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, undefined, configPath).options;
}

/** The import graph of the files under `dir`: each file (relative to the project) → the files under `dir` it imports. */
export function importGraph(dir = 'core') {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const cache = ts.createModuleResolutionCache(ROOT, (name) => name, options);
  const files = sourceFiles(path.resolve(ROOT, dir));
  const inside = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const { names, globs } = importsOf(file);
    const targets = new Set();
    for (const name of names) {
      const resolved = ts.resolveModuleName(name, file, options, host, cache).resolvedModule?.resolvedFileName;
      if (resolved && inside.has(path.resolve(resolved))) targets.add(path.resolve(resolved));
    }
    for (const pattern of globs) for (const match of globFiles(file, pattern)) if (inside.has(match)) targets.add(match);
    graph.set(path.relative(ROOT, file), [...targets].map((t) => path.relative(ROOT, t)).sort());
  }
  return graph;
}

/** The strongly connected components of a graph with more than one file, or one file that imports itself (Tarjan). */
function components(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const strongConnect = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strongConnect(v);
  return found;
}

/** The shortest way from `start` back to itself within `members` (breadth first). */
function shortestRound(graph, start, members) {
  const from = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const way = [start];
        for (let u = v; u !== start; u = from.get(u)) way.splice(1, 0, u);
        return [...way, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/**
 * The import circles under `dir`, largest first: each with its files and one shortest way round
 * (from its first file).
 */
export function importCircles(dir = 'core') {
  const graph = importGraph(dir);
  return components(graph)
    .sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]))
    .map((files) => ({ files, example: shortestRound(graph, files[0], new Set(files)) }));
}

/** A circle in words, for the check's output. */
export function describeCircle({ files, example }) {
  return `a circle of ${files.length} file(s):\n  ${files.join('\n  ')}\n  for example: ${example.join(' → ')}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? 'core';
  const circles = importCircles(dir);
  for (const circle of circles) console.log(`${dir}: ${describeCircle(circle)}`);
  console.log(`${dir}: ${circles.length ? `${circles.length} import circle(s)` : 'no import circle'}`);
  process.exitCode = circles.length ? 1 : 0;
}

import { RE2JS } from 're2js';

/**
 * Regular expressions that come from outside (the model, a page, an MCP server) run here, never in
 * the browser's own backtracking `RegExp`: on `re2js`, a pure-JavaScript port of RE2 (no eval, so
 * it runs under both backgrounds' CSP), whose matching takes time linear in the text. Linear with
 * a factor: the compiled program's size (counted repeats like `.{0,999}` expand it), so that size
 * is capped, and so is the work (program size × characters) one schema validation may spend.
 *
 * Used by tools that filter by a pattern the model gives (the tab list's) and by the one validator
 * (`interpreted-validator.ts`), whose `pattern` and `patternProperties` the build routes here
 * (`build/linear-schema-patterns.ts`).
 */
export const SAFE_REGEX_LIMITS = {
  /** Instructions of a compiled pattern: what matching costs per character, at worst. */
  program: 1000,
  /**
   * What the size estimate (made before compiling, `estimateProgramSize`) may say: compiling costs
   * about as much as the program is large, so a pattern far past `program` is refused unbuilt.
   */
  estimate: 4000,
  /** Characters of one pattern in a tool's input schema. */
  schemaPatternChars: 1000,
  /** The estimated program sizes of all the patterns of one schema, added up. */
  schemaEstimate: 20_000,
  /**
   * Work (program size × characters matched) one validation may spend on patterns: 0.1 to 0.4 s
   * at worst (50 to 175 ns a unit measured on the NFA, on a machine from idle to very busy).
   */
  validationWork: 2_000_000,
} as const;

/** What a pattern may use; said in every refusal so the model can write one that works. */
export const PATTERN_SYNTAX =
  'Patterns run on a linear-time engine (RE2 syntax): literals, ., character classes [...], \\d \\w \\s \\b, groups (...) and (?:...), alternation |, repeats * + ? {n,m} (counts up to 1000), anchors ^ $. Not supported: backreferences (\\1, \\k<name>), lookahead and lookbehind ((?=, (?!, (?<=, (?<!).';

/** A pattern the engine cannot take (its syntax, or its size), worded for the model. */
export class PatternError extends Error {
  override name = 'PatternError';
}

/** A compiled pattern: a search anywhere in the text, as `RegExp.prototype.test` does. */
export interface SafeRegex {
  readonly source: string;
  /** Instructions of the compiled program. */
  readonly programSize: number;
  test(text: string): boolean;
}

interface Scan {
  /** An upper bound of the compiled program's size. */
  estimate: number;
  /** Why the engine cannot take it (backreference, lookaround), or null. */
  unsupported: string | null;
}

const REPEAT = /\{(\d+)(?:(,)(\d*))?\}/y;
const LOOKAROUND: Record<string, string> = { '?=': 'lookahead "(?="', '?!': 'negative lookahead "(?!"', '?<=': 'lookbehind "(?<="', '?<!': 'negative lookbehind "(?<!"' };

/**
 * One pass over a pattern's source, before anything is compiled: an upper bound of the program
 * RE2 would make of it (each atom 1, a group its parts plus 2, `* + ?` plus 2, `{n,m}` its atom
 * plus 1 times the larger count), and the syntax RE2 has no linear way to run (backreferences,
 * lookaround), which `re2js`'s JavaScript translation would otherwise mangle (`\k<n>` becomes
 * the text `k<n>`) or report obscurely. Not a parser: what it misreads RE2 refuses later.
 */
export function scanPattern(source: string): Scan {
  interface Frame {
    /** Finished alternatives and the `|` between them. */
    total: number;
    /** The sequence being read. */
    seq: number;
    /** The last atom of the sequence (what a repeat applies to). */
    last: number;
  }
  const stack: Frame[] = [{ total: 0, seq: 0, last: 0 }];
  let top = stack[0]!;
  let unsupported: string | null = null;
  const atom = (size: number) => {
    top.seq += size;
    top.last = size;
  };
  const n = source.length;
  for (let i = 0; i < n; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) unsupported ??= `a backreference "\\${next}${next === 'k' ? '<' : ''}"`;
      i++;
      // \p{…}, \x{…}, \u{…}: the braces belong to the escape, not a repeat.
      if ('pPxu'.includes(next) && source[i + 1] === '{') {
        const close = source.indexOf('}', i + 1);
        if (close > 0) i = close;
      }
      atom(1);
    } else if (c === '[') {
      // A class is one instruction whatever it holds; skip to its end.
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < n && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j;
      atom(1);
    } else if (c === '(') {
      for (const [opener, name] of Object.entries(LOOKAROUND)) if (source.startsWith(opener, i + 1)) unsupported ??= name;
      top = { total: 0, seq: 0, last: 0 };
      stack.push(top);
    } else if (c === ')' && stack.length > 1) {
      const group = stack.pop()!;
      top = stack[stack.length - 1]!;
      atom(group.total + group.seq + 2);
    } else if (c === '|') {
      top.total += top.seq + 1;
      top.seq = 0;
      top.last = 0;
    } else if (c === '*' || c === '+' || c === '?') {
      top.seq += 2;
      top.last += 2;
      if (source[i + 1] === '?') i++;
    } else if (c === '{') {
      REPEAT.lastIndex = i;
      const m = REPEAT.exec(source);
      if (!m) {
        atom(1);
        continue;
      }
      const min = Number(m[1]);
      const max = m[2] ? (m[3] ? Number(m[3]) : min + 1) : min;
      const grown = (top.last + 1) * Math.max(min, max, 1) + 2;
      top.seq += grown - top.last;
      top.last = grown;
      i += m[0].length - 1;
      if (source[i + 1] === '?') i++;
    } else {
      atom(1);
    }
  }
  let estimate = 0;
  while (stack.length) {
    const frame = stack.pop()!;
    estimate += frame.total + frame.seq + 2;
  }
  return { estimate: estimate + 1, unsupported };
}

/** Why a pattern cannot run here (worded for the model, without the pattern), or null. */
export function patternProblem(source: string, maxChars: number = SAFE_REGEX_LIMITS.schemaPatternChars, maxProgram: number = SAFE_REGEX_LIMITS.program): string | null {
  if (source.length > maxChars) return `it is ${source.length} characters long (at most ${maxChars})`;
  const scan = scanPattern(source);
  if (scan.unsupported) return `it uses ${scan.unsupported}, which has no linear-time match`;
  if (scan.estimate > maxProgram * (SAFE_REGEX_LIMITS.estimate / SAFE_REGEX_LIMITS.program)) return tooLarge(scan.estimate, maxProgram);
  return null;
}

function tooLarge(size: number, maxProgram: number): string {
  return `it is too large to match quickly (about ${size} instructions once its repeats are expanded, at most ${maxProgram}; large counted repeats like {0,999} make it so)`;
}

export const SAFE_REGEX_CACHE_SIZE = 256;
/** Compiled patterns (or why not), most recently used last. */
const cache = new Map<string, SafeRegex | PatternError>();

/** How many compiled patterns are kept (`core/retained.ts`; at most `SAFE_REGEX_CACHE_SIZE`). */
export const compiledPatternCount = (): number => cache.size;

/**
 * Compiles a pattern written in JavaScript syntax for the linear-time engine, or throws a
 * `PatternError` saying why it cannot (syntax, size). `ignoreCase` as the `i` flag; `maxChars`
 * and `maxProgram` lower the limits. Compiled patterns are kept (the last 256), failures too.
 */
export function compileSafeRegex(
  source: string,
  { ignoreCase = false, maxChars = SAFE_REGEX_LIMITS.schemaPatternChars, maxProgram = SAFE_REGEX_LIMITS.program }: { ignoreCase?: boolean; maxChars?: number; maxProgram?: number } = {},
): SafeRegex {
  const key = `${ignoreCase ? 'i' : '-'}${maxChars}/${maxProgram}:${source}`;
  let entry = cache.get(key);
  if (entry) {
    cache.delete(key);
  } else {
    entry = build(source, ignoreCase, maxChars, Math.min(maxProgram, SAFE_REGEX_LIMITS.program));
    if (cache.size >= SAFE_REGEX_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, entry);
  if (entry instanceof PatternError) throw entry;
  return entry;
}

function build(source: string, ignoreCase: boolean, maxChars: number, maxProgram: number): SafeRegex | PatternError {
  const problem = patternProblem(source, maxChars, maxProgram);
  if (problem) return new PatternError(problem);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source), ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    // RE2's own words: "error parsing regexp: invalid escape sequence: `\8`".
    const detail = String((error as Error)?.message ?? error).replace(/^error parsing regexp: /, '').slice(0, 200);
    return new PatternError(`it is not a pattern the engine can take (${detail})`);
  }
  const programSize = compiled.programSize();
  if (programSize > maxProgram) return new PatternError(tooLarge(programSize, maxProgram));
  // `find` (it tracks where the match starts) runs the one-pass matcher, the bit-state
  // backtracker or the NFA, never the lazy DFA that `test` tries first: on a pattern whose DFA
  // keeps growing (`[ab]*a[ab]{20}c`) that DFA spends 3 to 10 times as long per character
  // before it gives up, and the budgets here count the worst case.
  return { source, programSize, test: (text) => compiled.matcher(text).find() };
}

/** A pattern as an error names it: quoted, at most 60 characters. */
function quote(source: string): string {
  return JSON.stringify(source.length > 60 ? `${source.slice(0, 60)}…` : source);
}

/** The patterns of a JSON Schema: every `pattern` string and `patternProperties` key. */
export function schemaPatterns(schema: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      // Values, not schemas: a `pattern` inside them is data.
      if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') continue;
      if (key === 'pattern' && typeof value === 'string') found.push(value);
      else if (key === 'patternProperties' && value && typeof value === 'object' && !Array.isArray(value)) found.push(...Object.keys(value));
      if (value && typeof value === 'object') stack.push(value);
    }
  }
  return found;
}

/**
 * Why a tool's input schema cannot be validated here (a pattern the engine cannot take, or
 * patterns too large in all), or null. Checks the syntax and size without compiling (linear in
 * the schema's size), so a page's or a server's tool list costs little to check.
 */
export function schemaPatternProblem(schema: unknown): string | null {
  let total = 0;
  for (const pattern of schemaPatterns(schema)) {
    const problem = patternProblem(pattern);
    if (problem) return `its pattern ${quote(pattern)} cannot be checked: ${problem}`;
    total += scanPattern(pattern).estimate;
    if (total > SAFE_REGEX_LIMITS.schemaEstimate) return `its patterns are too large to check quickly in all (about ${total} instructions, at most ${SAFE_REGEX_LIMITS.schemaEstimate})`;
  }
  return null;
}

/** The work left to the validation under way (`withPatternBudget`), or null outside one. */
let budget: { left: number; exhausted: boolean } | null = null;

/**
 * Runs `run` (a synchronous validation) with `work` to spend on patterns: a test that would take
 * more than what is left is not run and counts as no match, and `exhausted` says so, so the
 * caller refuses the input instead of trusting the result.
 */
export function withPatternBudget<T>(work: number, run: () => T): { result: T; exhausted: boolean } {
  const outer = budget;
  const mine = { left: work, exhausted: false };
  budget = mine;
  try {
    return { result: run(), exhausted: mine.exhausted };
  } finally {
    budget = outer;
  }
}

/**
 * What the validator gets where it would make `new RegExp(pattern, 'u')` (the build swaps one for
 * the other): the pattern on the linear-time engine, charged to the validation's budget. Throws a
 * `PatternError` for a pattern the engine cannot take.
 */
export function schemaRegExp(source: string): { test(text: string): boolean } {
  let re: SafeRegex;
  try {
    re = compileSafeRegex(source);
  } catch (error) {
    if (error instanceof PatternError) throw new PatternError(`the pattern ${quote(source)} in its schema cannot be checked: ${error.message}. ${PATTERN_SYNTAX}`);
    throw error;
  }
  return {
    test(text: string): boolean {
      const cost = re.programSize * Math.max(1, text.length);
      if (!budget) {
        if (cost > SAFE_REGEX_LIMITS.validationWork) throw new PatternError(`a text of ${text.length} characters is too long to check against the pattern ${quote(source)} in time`);
        return re.test(text);
      }
      if (cost > budget.left) {
        budget.exhausted = true;
        budget.left = 0;
        return false;
      }
      budget.left -= cost;
      return re.test(text);
    },
  };
}

import type { ElementLocatorTemplate } from './types';

/**
 * Element references that survive a reload (issue 21). A step's string argument that an earlier
 * result printed in a reference position (`[ref=e7]` in an outline line, or a whole JSON string
 * `"ref": "@tok.3"`) is kept as the line it was printed on with the value cut out, plus the lines
 * around it; at replay the same earlier step's NEW result is searched for that line and the new
 * value is cut from it. Results are page-written text: a line is matched only where a tool, not
 * a page, decides what it looks like (see `resultText`), and nothing is guessed.
 */

/** Where the reference was in the line. */
const CUT = '\u0000';
/** A reference: no spaces, quotes, brackets or backslashes, 1–200 characters. */
// eslint-disable-next-line no-control-regex
const TOKEN = /^[^\s"'[\]\\()\u0000-\u001f]{1,200}$/;
/** Scope of a line of a JSON rendering (not a path: it has braces). */
const JSON_SCOPE = '{}';
/** Context lines kept on each side. */
const CONTEXT = 3;
/** A kept line's length cap. */
const LINE_MAX = 400;
/** Lines `resultText` prints at most. */
const MAX_LINES = 20_000;

/**
 * A result's output as the lines locators are captured from and found in. Strings with line
 * breaks (an outline inside `{outline: "…"}`, or a whole string output) print one line each
 * after their path: `outline| - button "Add" [ref=e7]`; everything else prints as indented JSON,
 * one property a line (`"ref": "@tok.3"`). A page's text can fill a line but never choose its
 * path or escape its JSON quoting. The random id of an untrusted envelope's markers is left out.
 */
export function resultText(output: unknown): string {
  const lines: string[] = [];
  const push = (line: string) => {
    if (lines.length < MAX_LINES) lines.push(line.replace(/<<<UNTRUSTED (BEGIN|END) [0-9a-f]{16}/g, '<<<UNTRUSTED $1'));
  };
  const walk = (value: unknown, indent: string, label: string, path: string, depth: number) => {
    if (lines.length >= MAX_LINES) return;
    if (typeof value === 'string' && (value.includes('\n') || (depth === 0 && label === ''))) {
      if (label) push(`${indent}${label}`);
      for (const line of value.split('\n')) push(`${path}| ${line}`);
      return;
    }
    if (value === null || typeof value !== 'object' || depth > 40) {
      push(`${indent}${label}${JSON.stringify(value) ?? 'null'}`);
      return;
    }
    const array = Array.isArray(value);
    push(`${indent}${label}${array ? '[' : '{'}`);
    const entries: Array<[string, unknown]> = array ? (value as unknown[]).map((v, i) => [String(i), v]) : Object.entries(value);
    for (const [key, item] of entries) {
      const name = key.replace(/[^\w.-]/g, '_');
      walk(item, `${indent} `, array ? '' : `${JSON.stringify(key)}: `, path ? `${path}.${name}` : name, depth + 1);
    }
    push(`${indent}${array ? ']' : '}'}`);
  };
  walk(output, '', '', '', 0);
  return lines.join('\n');
}

interface Line {
  scope: string;
  /** The line without its scope and indent. */
  body: string;
}

function parseLines(text: string): Line[] {
  return text.split('\n').map((raw) => {
    const match = /^([\w.-]*)\| (.*)$/.exec(raw);
    return match ? { scope: match[1]!, body: match[2]!.trim() } : { scope: JSON_SCOPE, body: raw.trim() };
  });
}

const keyOf = (line: Line) => `${line.scope}| ${line.body}`;

/**
 * A context line as compared: scope and body with volatile tokens left out (those mixing letters
 * and digits: references like `e12`, `@tok.3`, which a reload changes).
 */
function normalize(line: string): string {
  return line.replace(/[\w.@:-]+/g, (word) => (/[A-Za-z]/.test(word) && /\d/.test(word) ? '' : word)).slice(0, LINE_MAX);
}

function cutLine(line: string): string {
  return line.length > LINE_MAX ? line.slice(0, LINE_MAX) : line;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An outline line's role and JSON-quoted name (`- button "Add" …`), and where they end. */
function outlineHead(body: string): { role: string; name: string; end: number } | undefined {
  const match = /^- ([a-z][a-z-]*)(?: ("(?:[^"\\]|\\.)*"))?/.exec(body);
  if (!match) return undefined;
  return { role: match[1]!, name: match[2] ?? '', end: match[0].length };
}

/** The body with the reference cut out, when `value` is in a reference position in it. */
function cutReference(line: Line, value: string): string | undefined {
  if (line.scope === JSON_SCOPE) {
    const quoted = JSON.stringify(value);
    const match = new RegExp(`^((?:"(?:[^"\\\\]|\\\\.)*": )?")${escapeRegExp(quoted.slice(1, -1))}(")$`).exec(line.body);
    return match ? `${match[1]}${CUT}${match[2]}` : undefined;
  }
  // `[key=value]`, after the role and quoted name of an outline line: never inside a name.
  const head = outlineHead(line.body);
  const from = head ? head.end : 0;
  const match = new RegExp(`\\[[\\w-]+=${escapeRegExp(value)}\\]`).exec(line.body.slice(from));
  if (!match) return undefined;
  const at = from + match.index + match[0].length - 1 - value.length;
  return `${line.body.slice(0, at)}${CUT}${line.body.slice(at + value.length)}`;
}

/** The reference in `line` where the template has `\u0000`, exactly: the rest of the line equal. */
function exactValue(line: Line, scope: string, pre: string, post: string): string | undefined {
  if (line.scope !== scope || line.body.length <= pre.length + post.length) return undefined;
  if (!line.body.startsWith(pre) || !line.body.endsWith(post)) return undefined;
  const middle = line.body.slice(pre.length, line.body.length - post.length);
  return TOKEN.test(middle) ? middle : undefined;
}

/** The reference in an outline line with the same role and name (states, value and other attributes may differ). */
function tolerantValue(line: Line, scope: string, head: { role: string; name: string }, marker: { left: string; right: string }): string | undefined {
  if (line.scope !== scope) return undefined;
  const other = outlineHead(line.body);
  if (!other || other.role !== head.role || other.name !== head.name) return undefined;
  const rest = line.body.slice(other.end);
  const match = new RegExp(`${escapeRegExp(marker.left)}([^\\s"'[\\]\\\\()]{1,200})${escapeRegExp(marker.right)}`).exec(rest);
  return match ? match[1] : undefined;
}

/** The template's parts: scope, body before and after the cut. */
function splitTemplate(template: string): { scope: string; pre: string; post: string } | undefined {
  const match = /^([^|\n]*)\| ([\s\S]*)$/.exec(template);
  if (!match) return undefined;
  const body = match[2]!;
  const at = body.indexOf(CUT);
  if (at < 0 || body.indexOf(CUT, at + 1) >= 0) return undefined;
  return { scope: match[1]!, pre: body.slice(0, at), post: body.slice(at + 1) };
}

function contextOf(lines: Line[], at: number): { before: string[]; after: string[] } {
  const before: string[] = [];
  const after: string[] = [];
  for (let i = 1; i <= CONTEXT; i++) {
    if (at - i >= 0) before.push(cutLine(keyOf(lines[at - i]!)));
    if (at + i < lines.length) after.push(cutLine(keyOf(lines[at + i]!)));
  }
  return { before, after };
}

/** Context positions, nearest first (before first on a tie). */
const POSITIONS: Array<['before' | 'after', number]> = [];
for (let i = 0; i < CONTEXT; i++) POSITIONS.push(['before', i], ['after', i]);

function sameAt(lines: Line[], at: number, side: 'before' | 'after', n: number, expected: string | undefined): boolean {
  if (expected === undefined) return false;
  const index = side === 'before' ? at - 1 - n : at + 1 + n;
  const line = lines[index];
  return line !== undefined && normalize(keyOf(line)) === normalize(expected);
}

/**
 * The locator of `value` as `text` (an earlier step's `resultText`) printed it, or undefined when
 * the text holds it in no reference position. `step` is that earlier step's index.
 */
export function captureLocator(text: string, value: string, step: number): ElementLocatorTemplate | undefined {
  if (!TOKEN.test(value)) return undefined;
  const lines = parseLines(text);
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    const cut = cutReference(line, value);
    if (cut === undefined) continue;
    const template = `${line.scope}| ${cut}`;
    const [pre, post] = cut.split(CUT) as [string, string];
    // Equal lines (the same template with another reference): which one it is, and what tells it apart.
    const twins: number[] = [];
    let index = 0;
    lines.forEach((other, i) => {
      if (i === at || exactValue(other, line.scope, pre, post) === undefined) return;
      twins.push(i);
      if (i < at) index++;
    });
    const { before, after } = contextOf(lines, at);
    const locator: ElementLocatorTemplate = { $element: { step, line: cutLine(template), before, after, index } };
    if (twins.length) {
      const anchor = POSITIONS.find(([side, n]) => {
        const mine = (side === 'before' ? before : after)[n];
        return mine !== undefined && twins.every((twin) => !sameAt(lines, twin, side, n, mine));
      });
      if (anchor) locator.$element.anchor = anchor;
    }
    return locator;
  }
  return undefined;
}

/** What a locator looks for, in words: `button "Add"`, or its line with `…` for the reference. */
export function describeLocator(locator: ElementLocatorTemplate): string {
  const parts = splitTemplate(locator.$element.line);
  if (!parts) return 'an element';
  const head = outlineHead(parts.pre);
  if (head) return head.name ? `${head.role} ${head.name}` : head.role;
  const key = /^"((?:[^"\\]|\\.)*)": "$/.exec(parts.pre)?.[1];
  const anchor = locator.$element.anchor;
  const beside = anchor ? (anchor[0] === 'before' ? locator.$element.before : locator.$element.after)[anchor[1]] : undefined;
  if (key && beside !== undefined) {
    const text = `"${key}" of the item with ${beside.replace(/^[^|]*\| /, '')}`;
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
  const text = `${parts.pre}…${parts.post}`;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function score(lines: Line[], at: number, locator: ElementLocatorTemplate['$element']): number {
  let total = 0;
  for (const [side, n] of POSITIONS) {
    if (sameAt(lines, at, side, n, (side === 'before' ? locator.before : locator.after)[n])) total += CONTEXT - n;
  }
  return total;
}

/**
 * The reference `locator` points at in `text` (the same step's new `resultText`): the line equal
 * to the template (the reference cut out) first, else one with the same role and accessible name;
 * among several, the one with the context line that told it apart (`anchor`), then the most
 * context lines in place, then `index`. An error names what was looked for; it never guesses
 * from an unrelated line.
 */
export function findLocator(text: string, locator: ElementLocatorTemplate): { value: string } | { error: string } {
  const spec = locator.$element;
  const what = describeLocator(locator);
  const parts = splitTemplate(spec.line);
  if (!parts) return { error: `The element reference of this skill is damaged (${what}).` };
  const lines = parseLines(text);
  const head = parts.scope === JSON_SCOPE ? undefined : outlineHead(parts.pre);
  const left = /[^\s]*$/.exec(parts.pre)![0];
  const right = /^[^\s]*/.exec(parts.post)![0];

  let found: Array<{ at: number; value: string }> = [];
  lines.forEach((line, at) => {
    const value = exactValue(line, parts.scope, parts.pre, parts.post);
    if (value !== undefined) found.push({ at, value });
  });
  if (!found.length && head?.name && left) {
    lines.forEach((line, at) => {
      const value = tolerantValue(line, parts.scope, head, { left, right });
      if (value !== undefined) found.push({ at, value });
    });
  }
  const where = `the result of step ${spec.step + 1}`;
  if (!found.length) return { error: `No ${what} in ${where}: the page changed.` };

  if (spec.anchor) {
    const [side, n] = spec.anchor;
    const expected = (side === 'before' ? spec.before : spec.after)[n];
    found = found.filter(({ at }) => sameAt(lines, at, side, n, expected));
    const near = what.includes(' of the item with ') ? '' : ` ${side === 'before' ? 'after' : 'before'} "${(expected ?? '').replace(/^[^|]*\| /, '')}"`;
    if (!found.length) return { error: `No ${what}${near} in ${where}: the page changed.` };
  }
  // An element without a name is only known by what is around it.
  const named = Boolean(head?.name) || parts.scope === JSON_SCOPE;
  const scored = found.map((f) => ({ ...f, score: score(lines, f.at, spec) }));
  const hasContext = spec.before.length + spec.after.length > 0;
  const candidates = named || !hasContext || spec.anchor ? scored : scored.filter((f) => f.score > 0);
  if (!candidates.length) return { error: `No ${what} in its place in ${where}: the page changed.` };
  if (candidates.length === 1) return { value: candidates[0]!.value };
  const best = Math.max(...candidates.map((f) => f.score));
  const tied = candidates.filter((f) => f.score === best);
  if (tied.length === 1) return { value: tied[0]!.value };
  // Lines alike in every way: the one at the same place among the equal lines.
  const pick = tied.find((f) => f.at === found[spec.index]?.at);
  if (!pick) return { error: `${tied.length} lines like ${what} in ${where}, none clearly the one this skill used.` };
  return { value: pick.value };
}

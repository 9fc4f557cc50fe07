// The `/name a=b c="d e"` line: what is a command, how arguments are read, what the user is told.
import { describe, expect, it } from 'vitest';
import { english } from '@/core/i18n/catalog';
import { formatCommand, parseArgs, splitCommand, type ParsedArgs } from './command';
import type { SkillParam } from './types';

const p = (...names: string[]): SkillParam[] => names.map((name) => ({ name, example: `${name}-example` }));
const words = (r: ParsedArgs) => (r.ok ? `ok ${JSON.stringify(r.args)}` : english(r.error));

describe('splitCommand', () => {
  it.each([
    ['/weekly-report', { name: 'weekly-report', rest: '' }],
    ['/weekly-report date=2026-12-07', { name: 'weekly-report', rest: 'date=2026-12-07' }],
    ['  /Search   red shoes  ', { name: 'search', rest: 'red shoes' }],
    ['/search\nline two', { name: 'search', rest: 'line two' }],
  ])('%j is a command', (text, expected) => {
    expect(splitCommand(text)).toEqual(expected);
  });

  it.each(['hello /search', '/ search', '/usr/bin/env', '/-x', '/', '//x', '/a.b', `/${'a'.repeat(41)}`, '/search_x', '/né'])('%j is no command', (text) => {
    expect(splitCommand(text)).toBeUndefined();
  });
});

describe('parseArgs', () => {
  it('reads named arguments, quoted or not, in any order', () => {
    expect(parseArgs('r', 'b="d e" a=1', p('a', 'b'))).toEqual({ ok: true, args: { a: '1', b: 'd e' } });
    expect(words(parseArgs('r', "a='single q' b=x=y", p('a', 'b')))).toBe('ok {"a":"single q","b":"x=y"}');
    expect(words(parseArgs('r', 'A=1', p('a')))).toBe('ok {"a":"1"}');
  });

  it('escaped quotes and backslashes inside quotes; other backslashes stay', () => {
    const r = parseArgs('r', String.raw`a="say \"hi\" \\ \n" b='it\'s'`, p('a', 'b'));
    expect(r).toEqual({ ok: true, args: { a: String.raw`say "hi" \ \n`, b: "it's" } });
  });

  it('empty values are values; parameters not given are left to their defaults', () => {
    expect(parseArgs('r', 'a= b=""', p('a', 'b', 'c'))).toEqual({ ok: true, args: { a: '', b: '' } });
    expect(parseArgs('r', '', p('a'))).toEqual({ ok: true, args: {} });
    expect(parseArgs('r', '   ', p())).toEqual({ ok: true, args: {} });
  });

  it('a skill with one parameter takes the text alone', () => {
    expect(parseArgs('search', 'red shoes', p('query'))).toEqual({ ok: true, args: { query: 'red shoes' } });
    expect(parseArgs('search', '"red shoes"', p('query'))).toEqual({ ok: true, args: { query: 'red shoes' } });
    expect(parseArgs('search', 'query="red shoes"', p('query'))).toEqual({ ok: true, args: { query: 'red shoes' } });
    // Quotes that do not pair up, or an `=` that names nothing, are part of the text.
    expect(parseArgs('search', 'don\'t "stop', p('query'))).toEqual({ ok: true, args: { query: 'don\'t "stop' } });
    expect(parseArgs('search', '1+1=2', p('query'))).toEqual({ ok: true, args: { query: '1+1=2' } });
    expect(parseArgs('search', '"a" "b"', p('query'))).toEqual({ ok: true, args: { query: '"a" "b"' } });
  });

  it('tells the user what went wrong and what the skill takes', () => {
    expect(words(parseArgs('report', 'date=1 extra words', p('date', 'team')))).toBe(
      '/report takes named arguments (name=value): date, team. “extra words” is not one; put quotes around a value with spaces.',
    );
    expect(words(parseArgs('report', 'colour=red', p('date', 'team')))).toBe('/report has no parameter “colour”. It takes: date, team.');
    expect(words(parseArgs('report', 'date=1 date=2', p('date')))).toBe('/report: “date” is given twice.');
    expect(words(parseArgs('report', 'date="1', p('date', 'team')))).toBe('/report: a quote is not closed in “date="1”. Close it with the same quote mark.');
    expect(words(parseArgs('report', 'Bad-Key=1', p('date', 'team')))).toBe('/report: “Bad-Key” is not a parameter name (lowercase letters, digits and _). It takes: date, team.');
    expect(words(parseArgs('tidy', 'now', p()))).toBe('/tidy takes no arguments, and “now” was given.');
    expect(words(parseArgs('tidy', 'a=1', p()))).toBe('/tidy takes no arguments, and “a” was given.');
    expect(words(parseArgs('search', 'query=a query=b', p('query')))).toBe('/search: “query” is given twice.');
  });

  it('odd input: prototype keys, long and control text', () => {
    expect(words(parseArgs('r', '__proto__=x', p('a', 'b')))).toMatch(/“__proto__” is not a parameter name/);
    expect(words(parseArgs('r', 'constructor=x', p('a', 'b')))).toMatch(/has no parameter “constructor”/);
    expect(words(parseArgs('r', 'toString=x', p('a', 'b')))).toBe("/r has no parameter “toString”. It takes: a, b.");
    // A one-parameter skill reads it as its text.
    expect(parseArgs('r', '__proto__=x', p('a'))).toEqual({ ok: true, args: { a: '__proto__=x' } });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    const long = 'x'.repeat(5000);
    const r = parseArgs('r', `${long} more`, p('a', 'b'));
    expect(r.ok).toBe(false);
    expect(english((r as Extract<ParsedArgs, { ok: false }>).error).length).toBeLessThan(300);
    expect(parseArgs('r', 'a="tab\there\u0000"', p('a'))).toEqual({ ok: true, args: { a: 'tab\there\u0000' } });
    expect(parseArgs('r', 'a="multi\nline"', p('a', 'b'))).toEqual({ ok: true, args: { a: 'multi\nline' } });
  });
});

describe('formatCommand', () => {
  it('writes a line parseArgs reads back the same', () => {
    const args = { a: 'plain', b: 'with space', c: 'say "hi" \\ there', d: '', e: 'x=y', f: "it's" };
    const line = formatCommand('report', args);
    expect(line).toBe(String.raw`/report a=plain b="with space" c="say \"hi\" \\ there" d="" e="x=y" f="it's"`);
    const split = splitCommand(line)!;
    expect(split.name).toBe('report');
    expect(parseArgs('report', split.rest, p('a', 'b', 'c', 'd', 'e', 'f'))).toEqual({ ok: true, args });
  });
});

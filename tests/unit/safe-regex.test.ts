// Regular expressions from outside (the model, pages, MCP servers) run on the linear-time engine
// (core/registry/safe-regex.ts), never in the backtracking RegExp: the wrapper itself, and the
// one validator, whose `pattern`, `patternProperties` and `url` format the build reroutes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { patchSchemaPatterns } from '@/build/linear-schema-patterns';
import { interpretedValidator } from '@/core/registry/interpreted-validator';
import { compileSafeRegex, PatternError, SAFE_REGEX_LIMITS, scanPattern, schemaPatternProblem, schemaPatterns, schemaRegExp, withPatternBudget } from '@/core/registry/safe-regex';
import { RE2JS } from 're2js';

/**
 * `^(a+)+$` on this many `a`s and a `!` takes a backtracking RegExp about six seconds on the CI
 * machine (and doubles with each `a`; forty take hours): a broken fix fails the time checks in
 * seconds instead of hanging the run.
 */
const HOSTILE = 25;
/**
 * What a hostile check may take on the linear-time engine: it takes milliseconds, tens on a busy
 * machine; a backtracking RegExp takes seconds to hours on the same input.
 */
const FAST_MS = 1000;

function time<T>(run: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

describe('the linear-time engine wrapper', () => {
  it('searches anywhere, as RegExp.prototype.test does, on the patterns models and pages write', () => {
    const cases: Array<[string, string[]]> = [
      ['example\\.com', ['https://example.com/a', 'https://example.org/', 'EXAMPLE.COM']],
      ['^https://github\\.com/.+/pull/\\d+', ['https://github.com/o/r/pull/12', 'https://github.com/o/r/issues/1', 'http://github.com/o/r/pull/1']],
      ['(news|blog)\\.example', ['https://blog.example/x', 'https://shop.example/']],
      ['^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$', ['ada@example.com', 'not an address', 'a@b.c']],
      ['^\\d{4}-\\d{2}-\\d{2}$', ['2024-05-01', '2024-5-1', 'x2024-05-01']],
      ['^#[0-9a-fA-F]{6}$', ['#a0B1c2', '#12345', '#1234567']],
      ['^(?:[a-z0-9-]{1,63}\\.)+[a-z]{2,24}$', ['mail.example.com', '-', 'a.b']],
      ['\\bword\\b', ['a word here', 'swordfish']],
      ['^$', ['', 'x']],
      ['(?<year>\\d{4})-(?<month>\\d{2})', ['on 2024-05', 'on 24-05']],
      ['\\u00e9t\\u00e9', ['été', 'ete']],
      ['^[^/]+$', ['abc', 'a/b']],
      ['a{2,3}', ['a', 'aa', 'baaab']],
    ];
    for (const [pattern, texts] of cases) {
      for (const ignoreCase of [false, true]) {
        const safe = compileSafeRegex(pattern, { ignoreCase });
        const native = new RegExp(pattern, ignoreCase ? 'iu' : 'u');
        for (const text of texts) expect(safe.test(text), `${pattern} on ${text}`).toBe(native.test(text));
      }
    }
  });

  it.each([
    ['(a)\\1', /a backreference "\\1"/],
    ['(?<n>a)\\k<n>', /a backreference "\\k<"/],
    ['(?=a)a', /lookahead "\(\?="/],
    ['a(?!b)', /negative lookahead "\(\?!"/],
    ['(?<=a)b', /lookbehind "\(\?<="/],
    ['(?<!a)b', /negative lookbehind "\(\?<!"/],
    ['.{0,999}.{0,999}.{0,999}!', /too large to match quickly \(about 6004 instructions/],
    ['[a-z]{1,1000}[0-9]{1,1000}', /too large to match quickly/],
    ['(a', /not a pattern the engine can take \(missing closing \)/],
    ['a{1001}', /invalid repeat count/],
  ])('refuses %s, saying why', (pattern, why) => {
    expect(() => compileSafeRegex(pattern)).toThrow(PatternError);
    expect(() => compileSafeRegex(pattern)).toThrow(why);
  });

  it('takes the backtracking classics and matches them in linear time on long text', () => {
    // Each about a million units of work (program size × characters), which the budgets allow.
    const cases: Array<[string, string]> = [
      ['^(a+)+$', `${'a'.repeat(100_000)}!`],
      ['(a|a)*$', `${'a'.repeat(100_000)}!`],
      ['(x+x+)+y', 'x'.repeat(100_000)],
      ['^(\\w+\\s?)*$', `${'word '.repeat(15_000)}!`],
      ['(.*a){20}b', 'a'.repeat(10_000)],
    ];
    for (const [pattern, text] of cases) {
      for (const ignoreCase of [false, true]) {
        const { ms } = time(() => compileSafeRegex(pattern, { ignoreCase }).test(text));
        expect(ms, `${pattern} on ${text.length} characters`).toBeLessThan(FAST_MS);
      }
    }
    // The largest program taken, on its slowest path (no literal to look for first, case folded):
    // linear, with a factor of its size. Printed: the machine's load shows in it.
    const largest = compileSafeRegex('.{0,250}.{0,240}!', { ignoreCase: true });
    expect(largest.programSize).toBeLessThanOrEqual(SAFE_REGEX_LIMITS.program);
    const { ms } = time(() => largest.test('a'.repeat(2048)));
    console.log(`[redos] engine: a program of ${largest.programSize} instructions on 2048 characters: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(2000);
    expect(compileSafeRegex('^(a+)+$').test('aaaa')).toBe(true);
    expect(compileSafeRegex('^(a+)+$').test('aaaa!')).toBe(false);
  });

  it('estimates the program\'s size from above before compiling it', () => {
    const patterns = ['abc', '^(a+)+$', '.{0,999}', '.{0,999}.{0,999}.{0,999}!', '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}$', '(a|b){3,7}', '((ab){2}c){3}', '^.{1,256}$', '(?:x{0,30}){0,30}', '(foo|bar|baz){1,20}', '\\p{L}{2,10}', 'x*?y+?', '(\\s*,\\s*\\w+){0,20}', '\\u0041{3}', 'a|b|c|d'];
    for (const pattern of patterns) {
      for (const flags of [0, RE2JS.CASE_INSENSITIVE]) {
        expect(scanPattern(pattern).estimate, pattern).toBeGreaterThanOrEqual(RE2JS.compile(RE2JS.translateRegExp(pattern), flags).programSize());
      }
    }
    // What is refused unbuilt costs nothing to refuse: 25 repeats of {0,999} would take about 0.2 s to compile.
    const { ms } = time(() => expect(() => compileSafeRegex('.{0,999}'.repeat(25), { maxChars: 200 })).toThrow(/too large/));
    expect(ms).toBeLessThan(50);
  });

  it('finds every pattern of a schema, and only those', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: '^a$' },
        list: { type: 'array', items: [{ pattern: '^b$' }, { anyOf: [{ pattern: '^c$' }] }] },
        tags: { type: 'object', patternProperties: { '^d$': { type: 'string' } }, propertyNames: { pattern: '^e$' } },
        literal: { const: { pattern: 'not a schema' }, enum: [{ pattern: 'data' }], default: { pattern: 'x' }, examples: [{ pattern: 'y' }] },
      },
    };
    expect(schemaPatterns(schema).sort()).toEqual(['^a$', '^b$', '^c$', '^d$', '^e$']);
    expect(schemaPatternProblem(schema)).toBeNull();
    expect(schemaPatternProblem({ properties: { a: { anyOf: [{ pattern: '(?=x)' }] } } })).toMatch(/its pattern "\(\?=x\)" cannot be checked: it uses lookahead/);
    expect(schemaPatternProblem({ patternProperties: { '(a)\\1': {} } })).toMatch(/backreference/);
    expect(schemaPatternProblem({ pattern: 'a'.repeat(SAFE_REGEX_LIMITS.schemaPatternChars + 1) })).toMatch(/characters long/);
    // Each small enough, too large together.
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^.{1,${400 + i}}$` }]));
    expect(schemaPatternProblem({ properties: many })).toMatch(/too large to check quickly in all/);
  });

  it('charges each match to the validation\'s budget; past it nothing runs and the caller knows', () => {
    const re = schemaRegExp('^[a-z]+$');
    const { result, exhausted } = withPatternBudget(1000, () => [re.test('abc'), re.test('x'.repeat(10_000))]);
    expect(result).toEqual([true, false]);
    expect(exhausted).toBe(true);
    expect(withPatternBudget(1000, () => re.test('abc'))).toEqual({ result: true, exhausted: false });
    // Outside a validation, one text past the whole budget is refused.
    expect(() => schemaRegExp('^[a-z]{1,400}$').test('x'.repeat(10_000))).toThrow(/too long to check against the pattern/);
  });
});

describe('the validator runs schema patterns on the linear-time engine', () => {
  it(`^(a+)+$ against ${HOSTILE} and 40 "a"s and a "!" is refused at once; a code that fits passes`, () => {
    const validate = interpretedValidator({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } });
    for (const n of [HOSTILE, 40]) {
      const { value, ms } = time(() => validate({ code: `${'a'.repeat(n)}!` }));
      console.log(`[redos] validator: pattern ^(a+)+$ on ${n} a's and "!": ${ms.toFixed(1)} ms`);
      expect(value).toBe('code: String does not match pattern');
      expect(ms).toBeLessThan(FAST_MS);
    }
    expect(validate({ code: 'aaaa' })).toBeNull();
  });

  it('in patternProperties, propertyNames and inside combinators, with the same meaning', () => {
    const validate = interpretedValidator({
      type: 'object',
      properties: {
        labels: { type: 'object', patternProperties: { '^(b+)+$': { type: 'number' } } },
        names: { type: 'object', propertyNames: { pattern: '^(c+)+$' } },
        either: { anyOf: [{ type: 'string', pattern: '^x+$' }, { type: 'string', pattern: '^(d+)+$' }] },
      },
    });
    const hostile = (c: string) => `${c.repeat(HOSTILE)}!`;
    const { value, ms } = time(() => validate({ labels: { [hostile('b')]: 'not checked', bbb: 'x' }, names: { [hostile('c')]: 1 }, either: hostile('d') }));
    expect(ms).toBeLessThan(FAST_MS);
    expect(value).toMatch(/labels\.bbb must be number \(got string\)/);
    expect(value).toMatch(/names\.c+!: String does not match pattern/);
    expect(validate({ labels: { bbb: 1, other: 'x' }, names: { ccc: 1 }, either: 'xx' })).toBeNull();
    expect(validate({ either: 'dddd' })).toBeNull();
  });

  it('a pattern the engine cannot take is an error that says what is allowed, never a silent pass', () => {
    // A backtracking RegExp would say this input matches.
    const validate = interpretedValidator({ type: 'object', properties: { code: { type: 'string', pattern: '^(?=a)a+$' } } });
    const error = validate({ code: 'aaa' });
    expect(error).toMatch(/^the pattern "\^\(\?=a\)a\+\$" in its schema cannot be checked: it uses lookahead/);
    expect(error).toMatch(/Patterns run on a linear-time engine \(RE2 syntax\)/);
  });

  it('text too long to check within the budget is refused, naming where', () => {
    const validate = interpretedValidator({ type: 'object', properties: { note: { type: 'string', pattern: '^[a-z ]{1,400}$' } } });
    const long = 'a'.repeat(Math.ceil(SAFE_REGEX_LIMITS.validationWork / 800) + 1000);
    const { value, ms } = time(() => validate({ note: long }));
    expect(value).toBe('note is too long to check against the schema\'s patterns in time; send shorter text');
    expect(ms).toBeLessThan(FAST_MS);
    expect(validate({ note: 'short words' })).toBeNull();
  });

  it('the url format answers at once where the library\'s RegExp backtracks for seconds', () => {
    const validate = interpretedValidator({ type: 'string', format: 'url' });
    const { value, ms } = time(() => validate(`http://${'a'.repeat(HOSTILE + 3)}!`));
    expect(ms).toBeLessThan(FAST_MS);
    expect(value).toBeNull();
    expect(validate('https://example.com/a?b#c')).toBeNull();
    expect(validate('javascript:alert(1)')).toMatch(/does not match format "url"/);
    expect(validate('http://')).toMatch(/does not match format "url"/);
  });

  it('the build patch replaces exactly the validator\'s two RegExps, and fails loudly on a changed source', () => {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@cfworker/json-schema').replace(/[\\/]commonjs[\\/].*$/, '/esm/validate.js');
    const source = readFileSync(file, 'utf8');
    const patched = patchSchemaPatterns(source, '/x/safe-regex.ts');
    expect(patched.startsWith('import { schemaRegExp as __sidequestSchemaRegExp } from "/x/safe-regex.ts";')).toBe(true);
    expect(patched).toContain('__sidequestSchemaRegExp(pattern)');
    expect(patched).toContain('__sidequestSchemaRegExp($pattern)');
    expect(patched).not.toMatch(/\bRegExp\(/);
    expect(() => patchSchemaPatterns(source.replace("new RegExp($pattern, 'u')", "new RegExp($pattern, 'v')"))).toThrow(/expected "new RegExp\(\$pattern, 'u'\)" once/);
    expect(() => patchSchemaPatterns(`${source}\nconst extra = new RegExp(x);`)).toThrow(/another RegExp/);
  });
});

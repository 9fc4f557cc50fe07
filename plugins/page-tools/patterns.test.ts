// @vitest-environment happy-dom
// A page's tool schemas are its own words, and the validator checks every call against them in
// the background before the approval gate asks: their patterns (a WebMCP tool's `pattern`, a
// declarative form's `pattern` attribute) run on the linear-time engine; a tool whose pattern
// that engine cannot take is dropped from the list, with a note.
import { describe, expect, it } from 'vitest';
import { interpretedValidator } from '@/core/registry/interpreted-validator';
import { synthesizeFormSchema } from './declarative';
import { sanitizeList } from './limits';

/** `^(a+)+$` against this many `a`s and a `!` keeps a backtracking RegExp busy for seconds (40: hours). */
const HOSTILE = 25;
const FAST_MS = 1000;

const tool = (name: string, inputSchema: Record<string, unknown>) => ({ key: name, name, description: 'd', inputSchema });

describe('page tools with patterns', () => {
  it('a tool whose pattern the engine cannot take is dropped with a note; backtracking classics are kept (they run in linear time)', () => {
    const clean = sanitizeList({
      groups: [
        {
          name: 'G',
          description: '',
          tools: [
            tool('nested', { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }),
            tool('lookahead', { type: 'object', properties: { code: { type: 'string', pattern: '^(?=.*\\d).{8,}$' } } }),
            tool('backref', { type: 'object', patternProperties: { '(a)\\1': { type: 'string' } } }),
            tool('huge', { type: 'object', properties: { code: { type: 'string', pattern: '.{0,999}.{0,999}.{0,999}!' } } }),
            tool('data', { type: 'object', properties: { mode: { const: { pattern: '(?=x)' } } } }),
          ],
        },
      ],
      problems: [],
    })!;
    expect(clean.groups[0]!.tools.map((t) => t.name)).toEqual(['nested', 'data']);
    // The notes are made one line, with our quotes and brackets neutralized (oneLine).
    expect(clean.problems).toEqual([
      "Tool 'lookahead' was dropped: its pattern '^(?=.*\\\\d).{8,}$' cannot be checked: it uses lookahead '(?=', which has no linear-time match.",
      "Tool 'backref' was dropped: its pattern '(a)\\\\1' cannot be checked: it uses a backreference '\\1', which has no linear-time match.",
      expect.stringMatching(/^Tool 'huge' was dropped: its pattern '\.\{0,999\}\.\{0,999\}\.\{0,999\}!' cannot be checked: it is too large to match quickly \(about 6004 instructions/),
    ]);
  });

  it(`a WebMCP schema's pattern ^(a+)+$ against ${HOSTILE} and 40 "a"s and a "!" is refused at once`, () => {
    const validate = interpretedValidator({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] });
    for (const n of [HOSTILE, 40]) {
      const start = performance.now();
      expect(validate({ code: `${'a'.repeat(n)}!` })).toBe('code: String does not match pattern');
      expect(performance.now() - start).toBeLessThan(FAST_MS);
    }
  });

  it('a declarative form\'s pattern attribute becomes an anchored schema pattern that runs on the engine', () => {
    document.body.innerHTML = `<form toolname="redeem" tooldescription="Redeems a code.">
      <input name="code" pattern="(a+)+" aria-label="Code">
      <input name="strong" pattern="(?=.*\\d).{8,}" aria-label="Password">
    </form>`;
    const schema = synthesizeFormSchema(document.querySelector('form')!);
    expect(schema.properties).toMatchObject({ code: { type: 'string', pattern: '^(?:(a+)+)$' } });
    // The page's own lookahead: the background drops the tool, saying why.
    const clean = sanitizeList({ groups: [{ name: 'Forms', description: '', tools: [{ ...tool('redeem', schema), form: { autosubmit: false } }] }], problems: [] })!;
    expect(clean.groups[0]!.tools).toEqual([]);
    expect(clean.problems[0]).toBe("Tool 'redeem' was dropped: its pattern '^(?:(?=.*\\\\d).{8,})$' cannot be checked: it uses lookahead '(?=', which has no linear-time match.");
    // Without it, the form's pattern is checked in linear time.
    const kept = { ...schema, properties: { code: (schema.properties as Record<string, unknown>).code } };
    const validate = interpretedValidator(kept);
    const start = performance.now();
    expect(validate({ code: `${'a'.repeat(HOSTILE)}!` })).toBe('code: String does not match pattern');
    expect(validate({ code: 'aaaa' })).toBeNull();
    expect(performance.now() - start).toBeLessThan(FAST_MS);
  });
});

// The skill and export-file checks (schema.ts), with crafted files: wrong types, other formats
// and versions, prototype keys, deep nesting, huge files, references to steps that do not run
// before.
import { describe, expect, it } from 'vitest';
import { parseSkillFile, skillSchema } from './schema';
import { draftFromRun } from './template';
import { outlineFixture, pageRead, acted } from './test-runs';
import type { Skill } from './types';

function skillFromDraft(): Skill {
  const draft = draftFromRun({
    instruction: 'Add the todo "Buy bread"',
    steps: [
      { tool: 'read_page', input: {}, result: pageRead(outlineFixture('todo-1')) },
      { tool: 'fill', input: { ref: 'e1', text: 'Buy bread', submit: true }, result: acted() },
      { tool: 'page7_sync', input: { tab_id: 7 }, result: acted(), origin: 'https://todo.example' },
    ],
    conversationId: 'c1',
    userTabId: 7,
  });
  return {
    id: 's1',
    name: draft.name,
    description: draft.description,
    instruction: draft.instruction,
    params: draft.params,
    steps: draft.steps.map(({ summary: _summary, ...step }) => step),
    createdAt: 1,
    updatedAt: 2,
    fromConversation: 'c1',
    schedule: { when: { kind: 'weekly', day: 1, time: '09:00' }, timeZone: 'Asia/Yerevan', args: { todo: 'Tea' }, grants: [{ tool: 'fill', site: 'https://todo.example' }], since: 0 },
  };
}

const file = (skills: unknown[], extra: Record<string, unknown> = {}) => ({ format: 'sidequest-skills', version: 1, skills, ...extra });
/** A file as it comes from disk: parsed JSON (own `__proto__` keys and all). */
const fromDisk = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
const errorOf = (json: unknown) => {
  const parsed = parseSkillFile(json);
  return 'error' in parsed ? parsed.error : undefined;
};

describe('skillSchema and parseSkillFile', () => {
  it('takes a skill made from a real run, through an export and back', () => {
    const skill = skillFromDraft();
    expect(skillSchema().safeParse(skill).success).toBe(true);
    const parsed = parseSkillFile(fromDisk(file([skill])));
    expect(parsed).toEqual({ skills: [skill] });
  });

  it('says what is wrong with a file that is not one, or is newer', () => {
    expect(errorOf(null)).toBe('This is not a Sidequest skills file.');
    expect(errorOf([1, 2])).toBe('This is not a Sidequest skills file.');
    expect(errorOf({ format: 'sidequest-settings', version: 1 })).toBe('This is not a Sidequest skills file.');
    expect(errorOf(file([], { version: 2 }))).toBe('This file is version 2, newer than this Sidequest reads (1): update Sidequest.');
    expect(errorOf(file([], { version: '1' }))).toBe('This skills file has no version this Sidequest reads.');
    expect(errorOf(file([], { skills: 'all' }))).toBe('This skills file has no list of skills.');
  });

  it('names the skill and the field at fault', () => {
    const good = skillFromDraft();
    expect(errorOf(fromDisk(file([good, good, { ...good, name: 'Weekly Report' }])))).toBe('This skills file cannot be imported: skill 3: name must be lowercase letters, digits and dashes (like weekly-report).');
    expect(errorOf(fromDisk(file([{ ...good, name: 'a'.repeat(41) }])))).toContain('skill 1: name longer than 40 characters');
    expect(errorOf(fromDisk(file([{ ...good, steps: 'many' }])))).toBe('This skills file cannot be imported: skill 1: steps must be array.');
    expect(errorOf(fromDisk(file([{ ...good, params: [{ name: 'Bad Name', example: '' }] }])))).toContain('skill 1: parameter 1: name must be lowercase letters');
    expect(errorOf(fromDisk(file([{ ...good, steps: [] }])))).toContain('skill 1: steps no steps');
    expect(errorOf(fromDisk(file([{ ...good, steps: Array.from({ length: 101 }, () => good.steps[0]) }])))).toContain('more than 100 steps');
    expect(errorOf(fromDisk(file([{ ...good, schedule: { ...good.schedule, when: { kind: 'daily', time: '25:00' } } }])))).toContain('not a time like 09:00');
  });

  it('refuses a reference to a step that has not run before it', () => {
    const good = skillFromDraft();
    const steps = structuredClone(good.steps);
    (steps[1]!.input as any).ref.$element.step = 1;
    expect(errorOf(fromDisk(file([{ ...good, steps }])))).toBe('This skills file cannot be imported: skill 1: step 2: input refers to step 2, which does not run before step 2.');
    (steps[1]!.input as any).ref.$element.step = 1e9;
    expect(errorOf(fromDisk(file([{ ...good, steps }])))).toContain('$element.step must be a step number');
    (steps[1]!.input as any).ref.$element = { step: 0, line: 'no cut', before: [], after: [], index: 0 };
    expect(errorOf(fromDisk(file([{ ...good, steps }])))).toContain('$element.line must be one line with one cut');
    const tab = structuredClone(good.steps);
    tab[2]!.tab = { $tab: { step: 5, path: ['tab_id'] } };
    expect(errorOf(fromDisk(file([{ ...good, steps: tab }])))).toContain('refers to step 6');
    tab[2]!.tab = { $tab: { url: 'javascript:alert(1)' } };
    expect(errorOf(fromDisk(file([{ ...good, steps: tab }])))).toContain('$tab must be');
    const extra = structuredClone(good.steps);
    extra[1]!.input = { ref: { $from: { step: 0, path: ['__proto__', 'polluted'] } } };
    expect(errorOf(fromDisk(file([{ ...good, steps: extra }])))).toContain('$from must be {step, path}');
    extra[1]!.input = { ref: { $element: (good.steps[1]!.input as any).ref.$element, also: 1 } };
    expect(errorOf(fromDisk(file([{ ...good, steps: extra }])))).toContain('no other keys');
  });

  it('refuses prototype keys, and pollutes nothing', () => {
    const good = skillFromDraft();
    const text = JSON.stringify(file([good])).replace('"submit":true', '"submit":true,"__proto__":{"polluted":"yes"}');
    expect(errorOf(JSON.parse(text))).toContain('the key "__proto__" is not allowed');
    const args = JSON.stringify(file([good])).replace('"args":{', '"args":{"__proto__":"x",');
    expect(errorOf(JSON.parse(args))).toContain('an argument named __proto__');
    const top = JSON.parse(JSON.stringify(file([good])).replace('"format"', '"__proto__":{"polluted":"yes"},"format"'));
    expect(errorOf(top)).toContain('it has the key __proto__, which no skill has');
    const inSkill = JSON.parse(JSON.stringify(file([good])).replace('"name":', '"__proto__":{"polluted":"yes"},"name":'));
    expect(errorOf(inSkill)).toContain('it has the key skills[0].__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses deep nesting, long strings, bad placeholders and huge files without falling over', () => {
    const good = skillFromDraft();
    let deep: unknown = 'x';
    for (let i = 0; i < 25; i++) deep = { a: deep };
    const steps = structuredClone(good.steps);
    steps[0]!.input = deep as never;
    expect(errorOf(file([{ ...good, steps }]))).toContain('nested deeper than 20');
    for (let i = 0; i < 100_000; i++) deep = [deep];
    steps[0]!.input = deep as never;
    expect(errorOf(file([{ ...good, steps }]))).toBe('This skills file is not JSON, or is nested too deeply.');
    steps[0]!.input = { text: 'x'.repeat(20_001) };
    expect(errorOf(fromDisk(file([{ ...good, steps }])))).toContain('a text longer than 20000 characters');
    steps[0]!.input = { text: 'a {b' };
    expect(errorOf(fromDisk(file([{ ...good, steps }])))).toContain('opens no parameter');
    steps[0]!.input = { text: 'fine {{b}} {todo}' };
    expect(errorOf(fromDisk(file([{ ...good, steps }])))).toBeUndefined();
    expect(errorOf(file(Array.from({ length: 501 }, () => good)))).toBe('This file has 501 skills; at most 500 can be imported at once.');
    const big = Array.from({ length: 60 }, (_, i) => ({ ...good, id: `s${i}`, instruction: 'y'.repeat(19_000), steps: Array.from({ length: 10 }, () => ({ tool: 't', input: { a: 'z'.repeat(19_000) } })) }));
    expect(errorOf(big.length && file(big))).toContain('larger than 10 million characters');
    const cyclic: Record<string, unknown> = { format: 'sidequest-skills', version: 1, skills: [] };
    (cyclic.skills as unknown[]).push(cyclic);
    expect(errorOf(cyclic)).toBe('This skills file is not JSON, or is nested too deeply.');
  });
});

import { z } from 'zod';
import type { ResultShape, Schedule, Skill, SkillFile, Template } from './types';
import { PARAM_NAME, PARAM_NAME_MAX, isElement, isFrom, isTab, parsePlaceholders, stepsReferenced } from './placeholders';
import { lazy } from '@/core/storage/setting';

/**
 * The checks of a skill as stored (`ctx.storage.collection('skills', { schema: skillSchema })`)
 * and of the export file (`parseSkillFile`): an imported file is someone else's, so every size
 * is capped, every reference must point at an earlier step, and keys that could reach an
 * object's prototype are refused.
 */

/** `/name`: lowercase letters, digits and dashes, ≤ 40 characters. */
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]*$/;
export const MAX_STEPS = 100;
export const MAX_PARAMS = 20;
export const MAX_DEPTH = 20;
export const MAX_STRING = 20_000;
/** One skill as JSON at most (characters). */
export const MAX_SKILL_CHARS = 1_000_000;
/** Skills in one file at most. */
export const MAX_SKILLS = 500;
/** A whole file as JSON at most (characters). */
export const MAX_FILE_CHARS = 10_000_000;

/** Keys no object of a skill may have: they reach the prototype in careless code. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Where the first key that could reach a prototype is (`JSON.parse` keeps `__proto__` as an own key), or undefined. */
function forbiddenKeyPath(value: unknown, path: string, depth: number): string | undefined {
  if (value === null || typeof value !== 'object' || depth > 2 * MAX_DEPTH + 10) return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const at = key.startsWith('[') ? `${path}${key}` : path ? `${path}.${key}` : key;
    if (!Array.isArray(value) && FORBIDDEN_KEYS.has(key)) return at;
    const found = forbiddenKeyPath(child, at, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function badKey(value: Record<string, unknown>): string | undefined {
  return Object.keys(value).find((key) => FORBIDDEN_KEYS.has(key) || key.length > 200);
}

const stepIndex = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < MAX_STEPS;
const isPath = (value: unknown) =>
  Array.isArray(value) && value.length <= MAX_DEPTH && value.every((key) => (typeof key === 'string' && key.length <= 200 && !FORBIDDEN_KEYS.has(key)) || (typeof key === 'number' && Number.isInteger(key) && key >= 0));
const shortStrings = (value: unknown, count: number) => Array.isArray(value) && value.length <= count && value.every((line) => typeof line === 'string' && line.length <= 2_000);

/** Why a `$element`/`$tab`/`$from` object is malformed, or undefined. */
function referenceError(value: Record<string, unknown>): string | undefined {
  if (isElement(value)) {
    const spec = value.$element as unknown as Record<string, unknown>;
    if (!isPlainObject(spec)) return '$element must be an object';
    if (!stepIndex(spec.step)) return '$element.step must be a step number';
    if (typeof spec.line !== 'string' || spec.line.length > 2_000 || spec.line.split('\u0000').length !== 2) return '$element.line must be one line with one cut';
    if (!shortStrings(spec.before, 3) || !shortStrings(spec.after, 3)) return '$element.before and .after must be up to 3 lines each';
    if (typeof spec.index !== 'number' || !Number.isInteger(spec.index) || spec.index < 0 || spec.index > 100_000) return '$element.index must be a whole number';
    if (spec.anchor !== undefined && !(Array.isArray(spec.anchor) && spec.anchor.length === 2 && (spec.anchor[0] === 'before' || spec.anchor[0] === 'after') && [0, 1, 2].includes(spec.anchor[1] as number))) return '$element.anchor must be ["before" or "after", 0–2]';
    const extra = Object.keys(spec).find((key) => !['step', 'line', 'before', 'after', 'index', 'anchor'].includes(key));
    return extra ? `$element has an unknown key "${extra.slice(0, 40)}"` : undefined;
  }
  if (isTab(value)) {
    const where = value.$tab as unknown as Record<string, unknown>;
    if (!isPlainObject(where)) return '$tab must be an object';
    const keys = Object.keys(where).sort().join(',');
    if (keys === 'user' && where.user === true) return undefined;
    if (keys === 'path,step' && stepIndex(where.step) && isPath(where.path)) return undefined;
    if (keys === 'url' && typeof where.url === 'string' && /^https?:\/\/[^/\s]+\//.test(where.url) && where.url.length <= 2_000) return undefined;
    return '$tab must be {user: true}, {step, path} or {url: "https://site/"}';
  }
  if (isFrom(value)) {
    const from = value.$from as unknown as Record<string, unknown>;
    if (isPlainObject(from) && Object.keys(from).sort().join(',') === 'path,step' && stepIndex(from.step) && isPath(from.path)) return undefined;
    return '$from must be {step, path}';
  }
  return undefined;
}

/** Why a value is not a template (depth, sizes, keys, placeholders), or undefined. */
export function templateError(value: unknown, depth = 0, budget = { values: 0 }): string | undefined {
  if (++budget.values > 50_000) return 'too many values';
  if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH}`;
  if (typeof value === 'string') {
    if (value.length > MAX_STRING) return `a text longer than ${MAX_STRING} characters`;
    const pieces = parsePlaceholders(value);
    return 'error' in pieces ? pieces.error : undefined;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'a number that is not finite';
  if (typeof value === 'boolean' || value === null) return undefined;
  if (Array.isArray(value)) {
    if (value.length > 1_000) return 'a list longer than 1000';
    for (const item of value) {
      const error = templateError(item, depth + 1, budget);
      if (error) return error;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return 'not JSON';
  const key = badKey(value);
  if (key !== undefined) return `the key "${key.slice(0, 40)}" is not allowed`;
  if (Object.keys(value).some((k) => k === '$element' || k === '$tab' || k === '$from')) {
    if (Object.keys(value).length !== 1) return 'a $element, $tab or $from object must have no other keys';
    return referenceError(value);
  }
  for (const item of Object.values(value)) {
    const error = templateError(item, depth + 1, budget);
    if (error) return error;
  }
  return undefined;
}

function shapeError(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return 'nested too deeply';
  if (value === 'string' || value === 'number' || value === 'boolean' || value === 'null' || value === 'array') return undefined;
  if (!isPlainObject(value)) return 'not a result shape';
  if (Object.keys(value).length > 500) return 'too many keys';
  const key = badKey(value);
  if (key !== undefined) return `the key "${key.slice(0, 40)}" is not allowed`;
  for (const inner of Object.values(value)) {
    const error = shapeError(inner, depth + 1);
    if (error) return error;
  }
  return undefined;
}

/** The schemas, made when a skill is first read or checked (`lazy`), not at every start of the background. */
const schemas = lazy(() => {
  const templateSchema = z.custom<Template>().superRefine((value, ctx) => {
    const error = templateError(value);
    if (error) ctx.addIssue({ code: 'custom', message: error });
  });
  const shapeSchema = z.custom<ResultShape>().superRefine((value, ctx) => {
    const error = shapeError(value);
    if (error) ctx.addIssue({ code: 'custom', message: error });
  });
  const tabSchema = z.custom<{ $tab: never }>().superRefine((value, ctx) => {
    const error = isPlainObject(value) && isTab(value) ? referenceError(value) : '$tab must be {user: true}, {step, path} or {url}';
    if (error) ctx.addIssue({ code: 'custom', message: error });
  });

  const text = (max: number) => z.string().max(max, `longer than ${max} characters`);
  /** Arguments by name: at most 20, short names, no prototype keys (checked on the value as given). */
  const safeRecord = z.custom<Record<string, string>>().superRefine((value, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (!isPlainObject(value)) return fail('must be arguments by name');
    const keys = Object.keys(value);
    if (keys.length > MAX_PARAMS) return fail(`more than ${MAX_PARAMS} arguments`);
    if (keys.some((key) => FORBIDDEN_KEYS.has(key))) return fail('an argument named __proto__, constructor or prototype');
    if (keys.some((key) => key.length > PARAM_NAME_MAX)) return fail(`an argument name longer than ${PARAM_NAME_MAX} characters`);
    if (Object.values(value).some((item) => typeof item !== 'string' || item.length > MAX_STRING)) return fail(`an argument that is not a text of at most ${MAX_STRING} characters`);
  });
  const time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'not a time like 09:00');

  const scheduleSchema: z.ZodType<Schedule> = z.object({
    when: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('once'), at: z.string().regex(/^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d$/, 'not a date and time like 2026-12-07T09:00') }),
      z.object({ kind: z.literal('daily'), time }),
      z.object({ kind: z.literal('weekly'), day: z.number().int().min(0).max(6), time }),
      z.object({ kind: z.literal('hours'), every: z.number().int().min(1).max(24 * 31) }),
    ]),
    timeZone: text(100),
    args: safeRecord,
    grants: z.array(z.object({ tool: text(200), site: text(2_000), pin: z.string().regex(/^[0-9a-f]{64}$/).optional() })).max(500),
    since: z.number().finite(),
    next: z.number().finite().optional(),
    lastRun: z.number().finite().optional(),
  }) as z.ZodType<Schedule>;

  const stepSchema = z.object({
    tool: text(300).min(1, 'empty'),
    input: templateSchema,
    shape: shapeSchema.optional(),
    tab: tabSchema.optional(),
  });

  const paramSchema = z.object({
    name: z.string().max(PARAM_NAME_MAX).regex(PARAM_NAME, 'must be lowercase letters, digits and _, starting with a letter'),
    example: text(MAX_STRING),
  });

  // A skill as stored and exported.
  const stored = z
    .object({
      id: text(200).min(1, 'empty'),
      name: z.string().max(40, 'longer than 40 characters').regex(SKILL_NAME, 'must be lowercase letters, digits and dashes (like weekly-report)'),
      description: text(2_000),
      instruction: text(MAX_STRING),
      params: z.array(paramSchema).max(MAX_PARAMS, `more than ${MAX_PARAMS} parameters`),
      steps: z.array(stepSchema).min(1, 'no steps').max(MAX_STEPS, `more than ${MAX_STEPS} steps`),
      createdAt: z.number().finite(),
      updatedAt: z.number().finite(),
      fromConversation: text(200).optional(),
      schedule: scheduleSchema.optional(),
    })
    .superRefine((skill, ctx) => {
      const names = new Set<string>();
      skill.params.forEach((param, i) => {
        if (names.has(param.name)) ctx.addIssue({ code: 'custom', path: ['params', i, 'name'], message: `{${param.name}} twice` });
        names.add(param.name);
      });
      skill.steps.forEach((step, i) => {
        const reads = [...stepsReferenced(step.input as Template), ...(step.tab ? stepsReferenced(step.tab as Template) : [])];
        const bad = reads.find((read) => read >= i);
        if (bad !== undefined) ctx.addIssue({ code: 'custom', path: ['steps', i, 'input'], message: `refers to step ${bad + 1}, which does not run before step ${i + 1}` });
      });
      if (JSON.stringify(skill).length > MAX_SKILL_CHARS) ctx.addIssue({ code: 'custom', message: `larger than ${MAX_SKILL_CHARS} characters` });
    }) as unknown as z.ZodType<Skill>;

  // The export file.
  const file = z.object({
    format: z.literal('sidequest-skills'),
    version: z.literal(1),
    skills: z.array(stored).max(MAX_SKILLS, `more than ${MAX_SKILLS} skills`),
  }) as unknown as z.ZodType<SkillFile>;
  return { skill: stored, file };
});

/** A skill as stored and exported. */
export const skillSchema = (): z.ZodType<Skill> => schemas().skill;

/** The export file. */
const skillFileSchema = (): z.ZodType<SkillFile> => schemas().file;

const PLACES: Record<string, string> = { skills: 'skill', steps: 'step', params: 'parameter' };

/** Issue → "skill 3: name must be …", "skill 1: step 2: input refers to step 5 …". */
function describeIssue(issue: z.core.$ZodIssue): string {
  const parts: string[] = [];
  const path = issue.path;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const next = path[i + 1];
    if (typeof key === 'string' && PLACES[key] && typeof next === 'number') {
      parts.push(`${PLACES[key]} ${next + 1}`);
      i++;
    } else parts.push(typeof key === 'number' ? `item ${key + 1}` : String(key).slice(0, 40));
  }
  const message = issue.code === 'invalid_type' ? `must be ${issue.expected}` : issue.message;
  return parts.length ? `${parts.join(': ')} ${message}` : message;
}

/** Reads an export file (parsed JSON): its skills, or an error a person can act on. */
export function parseSkillFile(json: unknown): { skills: Skill[] } | { error: string } {
  if (!isPlainObject(json) || json.format !== 'sidequest-skills') return { error: 'This is not a Sidequest skills file.' };
  if (typeof json.version === 'number' && json.version > 1) return { error: `This file is version ${json.version}, newer than this Sidequest reads (1): update Sidequest.` };
  if (json.version !== 1) return { error: 'This skills file has no version this Sidequest reads.' };
  if (!Array.isArray(json.skills)) return { error: 'This skills file has no list of skills.' };
  if (json.skills.length > MAX_SKILLS) return { error: `This file has ${json.skills.length} skills; at most ${MAX_SKILLS} can be imported at once.` };
  let size: number;
  try {
    size = JSON.stringify(json).length;
  } catch {
    return { error: 'This skills file is not JSON, or is nested too deeply.' };
  }
  if (size > MAX_FILE_CHARS) return { error: `This skills file is larger than ${MAX_FILE_CHARS / 1_000_000} million characters.` };
  const parsed = skillFileSchema().safeParse(json);
  if (!parsed.success) return { error: `This skills file cannot be imported: ${describeIssue(parsed.error.issues[0]!)}.` };
  // Anywhere else in the file too (the file's and a skill's own keys): the schema drops such a key
  // silently, and a crafted file should be refused, not half-read.
  const forbidden = forbiddenKeyPath(json, '', 0);
  if (forbidden) return { error: `This skills file cannot be imported: it has the key ${forbidden}, which no skill has (it could reach an object's prototype).` };
  return { skills: parsed.data.skills };
}

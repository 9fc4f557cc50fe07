import type { DraftLiteral, SkillDraft } from './protocol';
import { removeStep } from './template';

/**
 * The save form's pure helpers around the engine's draft edits (`template.ts`): which steps are
 * kept, the name a literal gets when it becomes a parameter, the checks before Save.
 */

export const SKILL_NAME = /^[a-z0-9][a-z0-9-]*$/;
export const PARAM_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * The draft without the steps the user unticked (by their index in `draft`), removed from the
 * last so the indexes stay right. `removeStep` renumbers the references of later steps; it throws
 * when a kept step needs a removed one's result (its message says which).
 */
export function withoutSteps(draft: SkillDraft, removed: ReadonlySet<number>): SkillDraft {
  let out = draft;
  for (const index of [...removed].sort((a, b) => b - a)) {
    if (index >= 0 && index < draft.steps.length) out = removeStep(out, index);
  }
  return out;
}

/** The literals still in a kept step. */
export function keptLiterals(draft: SkillDraft, removed: ReadonlySet<number>): DraftLiteral[] {
  return draft.literals.filter((l) => !l.steps.length || l.steps.some((s) => !removed.has(s)));
}

/**
 * A parameter name for a literal, to rename at once: `url` for an address, `date`, `time`,
 * `number`, `email`; else its first words in lowercase (`[a-z][a-z0-9_]*`, at most 3 words and
 * 20 characters), else `value`; `_2`, `_3`… when the name is taken.
 */
export function paramNameFor(value: string, taken: readonly string[]): string {
  const text = value.trim();
  let base: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) base = 'url';
  else if (/^\d{4}-\d{2}-\d{2}/.test(text)) base = 'date';
  else if (/^\d{1,2}:\d{2}/.test(text)) base = 'time';
  else if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) base = 'email';
  else if (/^[+-]?\d+([.,]\d+)?$/.test(text)) base = 'number';
  else {
    const words = text
      .normalize('NFKD')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    while (words.length && !/^[a-z]/.test(words[0]!)) words.shift();
    base = words.slice(0, 3).join('_').slice(0, 20).replace(/_+$/, '') || 'value';
  }
  let name = base;
  for (let n = 2; taken.includes(name); n++) name = `${base}_${n}`;
  return name;
}

/** What keeps the form from saving, for the user; '' when it may save. */
export type FormProblem =
  | { kind: 'name' }
  | { kind: 'noSteps' }
  | { kind: 'param'; name: string }
  | { kind: 'paramTaken'; name: string }
  | null;

export function checkDraft(draft: SkillDraft, kept: number): FormProblem {
  if (!SKILL_NAME.test(draft.name)) return { kind: 'name' };
  if (kept === 0) return { kind: 'noSteps' };
  const seen = new Set<string>();
  for (const p of draft.params) {
    if (!PARAM_NAME.test(p.name)) return { kind: 'param', name: p.name };
    if (seen.has(p.name)) return { kind: 'paramTaken', name: p.name };
    seen.add(p.name);
  }
  return null;
}

import type { StoredMessage } from '@/core/storage/db';
import type { ToolResult } from '@/core/registry/types';
import type { DraftLiteral, DraftStep, SkillDraft } from './protocol';
import type { SkillParam, Template, TabTemplate } from './types';
import { captureLocator, describeLocator, resultText } from './locate';
import {
  PARAM_NAME,
  PARAM_NAME_MAX,
  eachValue,
  escapeBraces,
  isElement,
  isFrom,
  isTab,
  literalText,
  mapReferenceSteps,
  mapStrings,
  placeholderNames,
  renamePlaceholder,
  replaceValue,
  stepsReferenced,
} from './placeholders';
import { TAB_KEY, findPath, fromSource, idLike, resultShape, sitePrefix, tabSource } from './sources';

/**
 * A finished run turned into a skill draft (issue 21): the tool calls after the last user
 * message, their arguments made templates (parameters, element locators, tab and result
 * references), and the edits the save form makes (mark a literal as a parameter, rename one,
 * remove a step). Pure: the service reads the messages, the form shows the draft.
 */

/** One tool call of a run with its result. */
export interface RunStepRecord {
  tool: string;
  input: unknown;
  result: ToolResult | undefined;
  /** For a page's tool: the site that offered it (`ToolMessage.origin`). */
  origin?: string;
}

/** A page's tool (`page<tab>_<name>`); kept as `page*_<name>` with its tab as a `TabTemplate`. */
export const PAGE_TOOL = /^page(\d+)_(.+)$/;
/** How a page tool's name is kept in a skill. */
export const pageToolName = (name: string) => `page*_${name}`;

/** The last user message and the tool calls after it (denied ones and those without a result left out). */
export function lastRun(messages: StoredMessage[]): { instruction: string; userMessageId: string; steps: RunStepRecord[] } | undefined {
  const ordered = [...messages].sort((a, b) => a.seq - b.seq);
  let start = -1;
  for (let i = ordered.length - 1; i >= 0; i--) {
    if (ordered[i]!.role === 'user') {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  const user = ordered[start]! as Extract<StoredMessage, { role: 'user' }>;
  const results = new Map<string, Extract<StoredMessage, { role: 'tool' }>>();
  for (const message of ordered.slice(start + 1)) if (message.role === 'tool') results.set(message.toolCallId, message);
  const steps: RunStepRecord[] = [];
  for (const message of ordered.slice(start + 1)) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      if (call.invalid) continue;
      const tool = results.get(call.id);
      if (!tool?.result || (!tool.result.ok && tool.result.code === 'denied')) continue;
      steps.push({ tool: call.name, input: call.input, result: tool.result, ...(tool.origin ? { origin: tool.origin } : {}) });
    }
  }
  return { instruction: user.text, userMessageId: user.id, steps };
}

/** `weekly-report` from "Weekly report for 2026-12-07": the first words, ≤ 40 characters, or "skill". */
export function defaultName(instruction: string): string {
  const words = instruction
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let name = '';
  for (const word of words) {
    const next = name ? `${name}-${word}` : word;
    if (next.length > 40) break;
    name = next;
    if (name.split('-').length >= 5) break;
  }
  return name || 'skill';
}

/** The instruction's first sentence, ≤ 300 characters. */
export function defaultDescription(instruction: string): string {
  const flat = instruction.replace(/\s+/g, ' ').trim();
  const end = /[.!?。！？](\s|$)/.exec(flat);
  const sentence = end ? flat.slice(0, end.index + 1) : flat;
  return sentence.length > 300 ? `${sentence.slice(0, 299)}…` : sentence;
}

const STOP = new Set(['a', 'an', 'the', 'to', 'in', 'on', 'of', 'and', 'or', 'with', 'at', 'by', 'from', 'is', 'into', 'as', 'it', 'that', 'this', 'then', 'my', 'our', 'be', 'me', 'type', 'enter', 'write', 'add', 'put', 'set', 'use', 'click', 'press', 'open', 'go']);
const QUERY = new Set(['for', 'about', 'search', 'find', 'look', 'lookup', 'query', 'named', 'called']);
const DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?$|^\d{1,2}[./]\d{1,2}[./]\d{2,4}$/;

/** A parameter's name from where its value stands in the instruction (or its argument's key). */
function nameFor(instruction: string, value: string, key: string | undefined, taken: Set<string>): string {
  let name = '';
  if (DATE.test(value)) name = 'date';
  else {
    const at = instruction.indexOf(value);
    const before = instruction
      .slice(0, Math.max(0, at))
      .toLowerCase()
      .match(/([a-z][a-z0-9_]*)[^a-z0-9_]*$/);
    const word = before?.[1];
    if (word && QUERY.has(word)) name = 'query';
    else if (word && !STOP.has(word) && word.length <= 20) name = word;
    else if (key && PARAM_NAME.test(key.toLowerCase()) && !['text', 'value', 'input', 'ref', 'url'].includes(key.toLowerCase())) name = key.toLowerCase();
  }
  if (!name || !PARAM_NAME.test(name)) name = 'param1';
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = name === 'param1' ? `param${n}` : `${name}_${n}`;
  return unique.slice(0, PARAM_NAME_MAX);
}

/** A parameter name as the model or a form gave it, made valid (`Search query` → `search_query`). */
function cleanName(name: string): string {
  const clean = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .replace(/_+$/, '')
    .slice(0, PARAM_NAME_MAX);
  return clean;
}

function checkName(name: string): void {
  if (!PARAM_NAME.test(name) || name.length > PARAM_NAME_MAX) throw new Error(`"${name}" is not a parameter name: lowercase letters, digits and _, starting with a letter.`);
}

/** The reference objects' keys: an input that holds them is not kept (it would read as one). */
const RESERVED = new Set(['$element', '$tab', '$from']);

function hasReservedKey(value: unknown, depth = 0): boolean {
  if (depth > 40 || value === null || typeof value !== 'object') return depth > 40;
  if (!Array.isArray(value) && Object.keys(value).some((key) => RESERVED.has(key))) return true;
  return (Array.isArray(value) ? value : Object.values(value)).some((item) => hasReservedKey(item, depth + 1));
}

interface Context {
  instruction: string;
  /** Outputs of the kept steps. */
  outputs: unknown[];
  texts: string[];
  userTabId?: number;
  /** Parameters by example (known and proposed first). */
  byValue: Map<string, string>;
  taken: Set<string>;
  /** Make a parameter of a whole argument found in the instruction. */
  auto: boolean;
}

/** One argument as a template (strings keep their raw text until `withParams`). */
function convert(value: unknown, key: string | undefined, step: number, ctx: Context, depth: number): Template {
  if (depth > 40) return null;
  if (typeof value === 'number') {
    if (key !== undefined && TAB_KEY.test(key) && Number.isInteger(value)) return tabSource(value, ctx.outputs.slice(0, step), ctx.outputs, ctx.userTabId) ?? value;
    if (idLike(value, key)) {
      const from = fromSource(value, ctx.outputs.slice(0, step));
      if (from) return { $from: from };
    }
    return value;
  }
  if (typeof value === 'string') {
    const known = ctx.byValue.get(value);
    if (known) return `{${known}}`;
    for (let earlier = step - 1; earlier >= 0; earlier--) {
      const locator = captureLocator(ctx.texts[earlier]!, value, earlier);
      if (locator && (!locator.$element.line.startsWith('{}| ') || listedReference(ctx.outputs[earlier], value, ctx.instruction))) return locator;
    }
    // The user's words before a value a result gave: what they asked for is what they would change.
    if (ctx.auto && value.length >= 3 && value.length <= 500 && ctx.instruction.includes(value)) {
      const name = nameFor(ctx.instruction, value, key, ctx.taken);
      ctx.taken.add(name);
      ctx.byValue.set(value, name);
      return `{${name}}`;
    }
    if (idLike(value, key)) {
      const from = fromSource(value, ctx.outputs.slice(0, step));
      if (from) return { $from: from };
    }
    return escapeBraces(value);
  }
  if (typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => convert(item, key, step, ctx, depth + 1));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, convert(item, k, step, ctx, depth + 1)]));
  }
  return null;
}

/**
 * Whether a JSON result's string is an element reference to find by its context: a value under
 * a reference-like key (`ref`, `id`, `handle`…) of an item in a list (items move; a value at a
 * fixed place is a `$from` instead), which the user did not type.
 */
function listedReference(output: unknown, value: string, instruction: string): boolean {
  if (instruction.includes(value)) return false;
  const path = findPath(output, value, () => true);
  if (!path || !path.some((part) => typeof part === 'number')) return false;
  const leafKey = path[path.length - 1];
  return typeof leafKey === 'string' && /(ref|id|handle|token|key)$/i.test(leafKey);
}

/** Every param's value inside longer strings made `{name}` (longest values first; ≥ 3 characters). */
function withParams(template: Template, params: SkillParam[]): Template {
  const sorted = params.filter((p) => p.example.length >= 3).sort((a, b) => b.example.length - a.example.length);
  return mapStrings(template, (text) => sorted.reduce((out, param) => replaceValue(out, param.example, param.name), text));
}

/** The arguments that matter, in a line: `click — button "Add"`, `fill — textbox "Name", "{name}"`. */
export function summarize(tool: string, input: Template): string {
  const parts: Array<{ rank: number; text: string }> = [];
  const add = (value: Template, key: string | undefined) => {
    if (isElement(value)) parts.push({ rank: 0, text: describeLocator(value) });
    else if (isFrom(value)) parts.push({ rank: 2, text: `(from step ${value.$from.step + 1})` });
    else if (isTab(value) || (key !== undefined && TAB_KEY.test(key))) return;
    else if (typeof value === 'string') parts.push({ rank: 1, text: JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value) });
    else if (typeof value === 'number') parts.push({ rank: 3, text: `${key ? `${key} ` : ''}${value}` });
  };
  if (input !== null && typeof input === 'object' && !Array.isArray(input) && !isElement(input) && !isTab(input) && !isFrom(input)) {
    for (const [key, value] of Object.entries(input)) add(value as Template, key);
  } else add(input, undefined);
  const shown = parts
    .map((part, i) => ({ ...part, i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .slice(0, 2)
    .sort((a, b) => a.i - b.i)
    .map((part) => part.text);
  const line = shown.length ? `${tool} — ${shown.join(', ')}` : tool;
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** The string values of the steps that are no parameter yet (≥ 2 characters), with their steps. */
export function literalsOf(steps: Array<{ input: Template }>): DraftLiteral[] {
  const found = new Map<string, number[]>();
  steps.forEach((step, index) => {
    eachValue(step.input, (value) => {
      if (typeof value !== 'string') return;
      const text = literalText(value);
      if (text === undefined || text.length < 2) return;
      const list = found.get(text) ?? [];
      if (!list.includes(index)) list.push(index);
      found.set(text, list);
    });
  });
  return [...found].map(([value, steps]) => ({ value, steps }));
}

/** A draft from a run: its successful steps as templates, the parameters found, the literals left. */
export function draftFromRun(run: {
  instruction: string;
  steps: RunStepRecord[];
  conversationId: string;
  userTabId?: number;
  knownParams?: SkillParam[];
  name?: string;
  description?: string;
  proposedParams?: Array<{ name: string; value: string }>;
  replaces?: string;
}): SkillDraft {
  const kept = run.steps.filter((step): step is RunStepRecord & { result: { ok: true; output: unknown } } => step.result?.ok === true && !hasReservedKey(step.input));
  const outputs = kept.map((step) => step.result.output);
  const byValue = new Map<string, string>();
  const taken = new Set<string>();
  const known: SkillParam[] = [];
  for (const param of run.knownParams ?? []) {
    if (!PARAM_NAME.test(param.name) || taken.has(param.name)) continue;
    taken.add(param.name);
    known.push(param);
    if (param.example && !byValue.has(param.example)) byValue.set(param.example, param.name);
  }
  for (const proposal of run.proposedParams ?? []) {
    const name = cleanName(proposal.name);
    if (!name || taken.has(name) || !proposal.value || byValue.has(proposal.value)) continue;
    taken.add(name);
    byValue.set(proposal.value, name);
  }
  const ctx: Context = { instruction: run.instruction, outputs, texts: outputs.map(resultText), userTabId: run.userTabId, byValue, taken, auto: true };

  const converted = kept.map((step, index) => {
    let tool = step.tool;
    let tab: TabTemplate | undefined;
    const page = PAGE_TOOL.exec(step.tool);
    if (page) {
      const id = Number(page[1]);
      tab = tabSource(id, outputs.slice(0, index), outputs, run.userTabId);
      const site = step.origin ? sitePrefix(step.origin) : undefined;
      if (!tab && site) tab = { $tab: { url: site } };
      // A tab found neither way keeps its id: at replay the call fails and hands over.
      if (tab) tool = pageToolName(page[2]!);
    }
    return { tool, tab, input: convert(step.input, undefined, index, ctx, 0), shape: resultShape(step.result.output) };
  });

  const params: SkillParam[] = [...known];
  for (const [example, name] of byValue) if (!params.some((p) => p.name === name)) params.push({ name, example });
  const instruction = withParams(escapeBraces(run.instruction), params) as string;
  const steps: DraftStep[] = converted.map((step) => {
    const input = withParams(step.input, params);
    return { tool: step.tool, input, shape: step.shape, ...(step.tab ? { tab: step.tab } : {}), summary: summarize(step.tool, input) };
  });
  // A proposed parameter whose value the run never used is dropped; known ones stay.
  const used = new Set([...placeholderNames(instruction), ...steps.flatMap((step) => namesIn(step.input))]);
  const kept_params = params.filter((param) => known.includes(param) || used.has(param.name));
  return {
    name: run.name && /^[a-z0-9][a-z0-9-]*$/.test(run.name) && run.name.length <= 40 ? run.name : defaultName(run.name || run.instruction),
    description: run.description?.trim() || defaultDescription(run.instruction),
    instruction,
    params: kept_params,
    steps,
    literals: literalsOf(steps),
    fromConversation: run.conversationId,
    ...(run.replaces ? { replaces: run.replaces } : {}),
  };
}

function namesIn(template: Template): string[] {
  const names: string[] = [];
  eachValue(template, (value) => {
    if (typeof value === 'string') names.push(...placeholderNames(value));
  });
  return names;
}

function withSteps(draft: SkillDraft, steps: DraftStep[], extra: Partial<SkillDraft> = {}): SkillDraft {
  const fresh = steps.map((step) => ({ ...step, summary: summarize(step.tool, step.input) }));
  return { ...draft, ...extra, steps: fresh, literals: literalsOf(fresh) };
}

/** The draft with `value` a parameter `{name}` wherever it appears (whole arguments and inside longer ones, and the instruction). */
export function markParam(draft: SkillDraft, value: string, name: string): SkillDraft {
  checkName(name);
  if (!value) throw new Error('An empty value cannot be a parameter.');
  if (draft.params.some((param) => param.name === name)) throw new Error(`There is a parameter {${name}} already.`);
  let changed = false;
  const replace = (template: Template): Template =>
    mapStrings(template, (text) => {
      const out = replaceValue(text, value, name);
      if (out !== text) changed = true;
      return out;
    });
  const steps = draft.steps.map((step) => ({ ...step, input: replace(step.input) }));
  if (!changed) throw new Error(`"${value}" is not in the steps.`);
  const instruction = replaceValue(draft.instruction, value, name);
  return withSteps(draft, steps, { instruction, params: [...draft.params, { name, example: value }] });
}

/** The draft with the parameter `from` called `to` (in every step and the instruction). */
export function renameParam(draft: SkillDraft, from: string, to: string): SkillDraft {
  checkName(to);
  if (!draft.params.some((param) => param.name === from)) throw new Error(`There is no parameter {${from}}.`);
  if (from === to) return draft;
  if (draft.params.some((param) => param.name === to)) throw new Error(`There is a parameter {${to}} already.`);
  const rename = (template: Template) => mapStrings(template, (text) => renamePlaceholder(text, from, to));
  const steps = draft.steps.map((step) => ({ ...step, input: rename(step.input) }));
  return withSteps(draft, steps, {
    instruction: renamePlaceholder(draft.instruction, from, to),
    params: draft.params.map((param) => (param.name === from ? { ...param, name: to } : param)),
  });
}

/**
 * The draft without step `index`; later steps' references renumbered. Refused (an Error naming
 * the step) when a later step reads what this one gave (an element it printed, a tab, an id).
 */
export function removeStep(draft: SkillDraft, index: number): SkillDraft {
  if (!Number.isInteger(index) || index < 0 || index >= draft.steps.length) throw new Error(`There is no step ${index + 1}.`);
  for (let later = index + 1; later < draft.steps.length; later++) {
    const step = draft.steps[later]!;
    const reads = [...stepsReferenced(step.input), ...(step.tab ? stepsReferenced(step.tab) : [])];
    if (reads.includes(index)) throw new Error(`Step ${later + 1} uses what step ${index + 1} gave: remove step ${later + 1} first.`);
  }
  const renumber = (step: number) => (step > index ? step - 1 : step);
  const steps = draft.steps
    .filter((_, i) => i !== index)
    .map((step) => ({
      ...step,
      input: mapReferenceSteps(step.input, renumber),
      ...(step.tab ? { tab: mapReferenceSteps(step.tab, renumber) as TabTemplate } : {}),
    }));
  return withSteps(draft, steps);
}

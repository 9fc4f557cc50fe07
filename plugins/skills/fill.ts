import type { ToolResult } from '@/core/registry/types';
import type { SkillParam, SkillStep, TabTemplate, Template } from './types';
import { describeLocator, findLocator, resultText } from './locate';
import { fillPlaceholders, isElement, isFrom, isTab } from './placeholders';
import { valueAt } from './sources';

export { shapeMatches } from './sources';

/**
 * A skill's step made a tool call at replay (issue 21): `{param}` placeholders from the
 * arguments (a parameter not given takes its example), `$element` found again in the new result
 * of its step, `$tab` and `$from` from this replay's results, a page tool's name for the tab it
 * is in now. A step that cannot be filled says why, in words for the model that takes over.
 */

export interface FillEnv {
  args: Record<string, string>;
  params: SkillParam[];
  /** This replay's results so far, by step index. */
  results: Array<ToolResult | undefined>;
  /** The tab the user looks at as the skill runs. */
  userTabId?: number;
  tabs(): Promise<Array<{ id: number; url: string }>>;
}

/** A page tool kept in a skill: `page*_<name>`. */
const PAGE_TOOL_TEMPLATE = /^page\*_(.+)$/;
/** Deepest template filled (the schema allows 20). */
const MAX_DEPTH = 40;

class FillError extends Error {}

/** The output of an earlier step of this replay, or a FillError saying why there is none. */
function outputOf(env: FillEnv, step: number): unknown {
  if (!Number.isInteger(step) || step < 0 || step >= env.results.length) throw new FillError(`it refers to step ${step + 1}, which has not run before it.`);
  const result = env.results[step];
  if (!result || !result.ok) throw new FillError(`step ${step + 1}, whose result it needs, did not succeed.`);
  return result.output;
}

async function tabId(template: TabTemplate, env: FillEnv): Promise<number> {
  const where = template.$tab;
  if ('user' in where) {
    if (env.userTabId === undefined) throw new FillError('it acts in the tab the user looks at, and there is none.');
    return env.userTabId;
  }
  if ('step' in where) {
    const id = valueAt(outputOf(env, where.step), where.path);
    if (typeof id !== 'number' || !Number.isInteger(id)) throw new FillError(`the result of step ${where.step + 1} no longer gives the tab it acts in (at ${where.path.join('.') || 'its top'}).`);
    return id;
  }
  const prefix = where.url;
  if (typeof prefix !== 'string' || !prefix) throw new FillError('its tab has no address to find it by.');
  const tabs = await env.tabs();
  const tab = tabs.find((t) => typeof t.url === 'string' && t.url.startsWith(prefix));
  if (!tab) throw new FillError(`no open tab is at ${prefix}: open it first.`);
  return tab.id;
}

async function fill(template: Template, env: FillEnv, lookup: (name: string) => string | undefined, depth: number): Promise<unknown> {
  if (depth > MAX_DEPTH) throw new FillError('its arguments are nested too deeply.');
  if (typeof template === 'string') {
    const filled = fillPlaceholders(template, lookup);
    if ('error' in filled) throw new FillError(filled.error);
    return filled.text;
  }
  if (template === null || typeof template !== 'object') return template;
  if (Array.isArray(template)) {
    const out: unknown[] = [];
    for (const item of template) out.push(await fill(item, env, lookup, depth + 1));
    return out;
  }
  if (isElement(template)) {
    const found = findLocator(resultText(outputOf(env, template.$element.step)), template);
    if ('error' in found) throw new FillError(found.error);
    return found.value;
  }
  if (isTab(template)) return tabId(template, env);
  if (isFrom(template)) {
    const value = valueAt(outputOf(env, template.$from.step), template.$from.path);
    if (value === undefined) throw new FillError(`the result of step ${template.$from.step + 1} no longer gives the value it needs (at ${template.$from.path.join('.')}).`);
    return value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(template)) {
    // defineProperty: a key named `__proto__` stays a plain key, never the object's prototype.
    Object.defineProperty(out, key, { value: await fill(item as Template, env, lookup, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The tool call of `step` at replay: its tool name (a page tool's for its tab now) and its
 * arguments filled in, or why it cannot be made.
 */
export async function fillStep(step: SkillStep, env: FillEnv): Promise<{ ok: true; tool: string; input: unknown } | { ok: false; error: string }> {
  const own = (record: Record<string, string>, key: string) => (Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined);
  const lookup = (name: string) => {
    const given = own(env.args, name);
    if (typeof given === 'string') return given;
    return env.params.find((param) => param.name === name)?.example;
  };
  try {
    let tool = step.tool;
    const page = PAGE_TOOL_TEMPLATE.exec(tool);
    if (page) tool = `page${await tabId(step.tab ?? { $tab: { user: true } }, env)}_${page[1]}`;
    const input = await fill(step.input, env, lookup, 0);
    return { ok: true, tool, input };
  } catch (error) {
    if (!(error instanceof FillError)) throw error;
    return { ok: false, error: `The step cannot be made: ${error.message}` };
  }
}

/** What a step's element references look for, in words (for the hand-over note). */
export function elementsOf(step: SkillStep): string[] {
  const found: string[] = [];
  const walk = (template: Template, depth: number) => {
    if (depth > MAX_DEPTH || template === null || typeof template !== 'object') return;
    if (isElement(template)) found.push(describeLocator(template));
    else if (!isTab(template) && !isFrom(template)) for (const item of Array.isArray(template) ? template : Object.values(template)) walk(item as Template, depth + 1);
  };
  walk(step.input, 0);
  return found;
}

import { said } from '@/core/i18n/catalog';
import { originOf } from '@/core/net/origin';
import type { ToolRegistry } from '@/core/registry/registry';
import type { SkillUse } from './protocol';
import type { Skill, Template } from './types';

/** A page's tool as a skill keeps it (`template.ts`): `page*_<name>`. */
const PAGE_TOOL = /^page\*_/;

/** A tab id no browser gives: a `$tab` stands for it while a step's target is worked out. */
const PROBE_TAB = -4242;

/**
 * The tools and sites a skill's steps use, for the schedule form's "Allow <tool> on <site> without
 * asking" ticks. The site is the one the approval gate will see (the origin of the call's address,
 * else of its tab), worked out from the tool's own `target` (the registry's `callTarget`) on the
 * step's input with the parameters' example values. A step on a tab given by `$tab`: the site of
 * its URL pattern, or of the address the step that opened it loaded; when that cannot be told
 * (the user's tab when it runs, an address made of parameters) the site is '' with a `note`, and
 * since a grant names one site, such a step asks each time it runs. A page's own tool has a `note`
 * too: it is never granted ahead. A use with a `note` cannot be granted (`skills/schedule`).
 */
export async function skillUses(skill: Skill, registry: Pick<ToolRegistry, 'describe' | 'callTarget' | 'callAnnotations'>): Promise<SkillUse[]> {
  const values = { ...Object.fromEntries(skill.params.map((p) => [p.name, p.example])), ...skill.schedule?.args };
  const uses = new Map<string, SkillUse>();
  for (const step of skill.steps) {
    const tabs: Array<TabSite> = [];
    const input = probe(step.input, values, skill, tabs);
    const spec = registry.describe(step.tool);
    let site = '';
    let note: SkillUse['note'];
    // A tool the registry does not know now (a page's own tool, a plugin switched off): it may act.
    let acts = true;
    if (PAGE_TOOL.test(step.tool)) {
      // A page's own tool: named after its tab only when it runs (`page12_…`), and what it does is
      // the page's claim: never granted ahead.
      site = step.tab ? tabSite(step.tab.$tab as Record<string, unknown>, values, skill).site : '';
      note = said('skills.schedule.uses.pageTool');
    } else if (spec) {
      const annotations = (await registry.callAnnotations(step.tool, input, tabs.length ? PROBE_TAB : undefined)) ?? spec.annotations;
      acts = !annotations.readOnly;
      const target = await registry.callTarget(step.tool, input, tabs.length ? PROBE_TAB : undefined);
      const url = target?.url;
      if (url) site = originOf(url) || url;
      else if (target && annotations.pages) {
        const tab = target.tabId === PROBE_TAB ? tabs[0] : undefined;
        if (tab?.site) site = tab.site;
        else note = said(tab && !tab.user ? 'skills.schedule.uses.tabUnknown' : 'skills.schedule.uses.userTab');
      }
    } else {
      const tab = tabs[0];
      if (tab?.site) site = tab.site;
      else note = said('skills.schedule.uses.unknownTool');
    }
    const key = `${step.tool}\n${site}`;
    const use = uses.get(key);
    if (use) {
      use.steps += 1;
      use.acts ||= acts;
    } else uses.set(key, { tool: step.tool, site, steps: 1, acts, ...(note ? { note } : {}) });
  }
  return [...uses.values()];
}

interface TabSite {
  site: string;
  user: boolean;
}

const PLACEHOLDER = /\{\{|\}\}|\{([a-z][a-z0-9_]*)\}/g;

/** `{param}` replaced by its value ("{{"/"}}": literal braces). */
function fillText(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (all, name: string | undefined) => (name === undefined ? all[0]! : (values[name] ?? all)));
}

/** The step's input as a call would get it, as far as it can be told before the run. */
function probe(template: Template, values: Record<string, string>, skill: Skill, tabs: TabSite[]): unknown {
  if (typeof template === 'string') return fillText(template, values);
  if (template === null || typeof template !== 'object') return template;
  if (Array.isArray(template)) return template.map((t) => probe(t, values, skill, tabs));
  if ('$tab' in template && template.$tab && typeof template.$tab === 'object') {
    tabs.push(tabSite(template.$tab as Record<string, unknown>, values, skill));
    return PROBE_TAB;
  }
  // An element found again at replay, a value an earlier result gives: a stand-in of the same kind.
  if ('$element' in template) return 'e0';
  if ('$from' in template) return '';
  return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, probe(v as Template, values, skill, tabs)]));
}

/** The site a `$tab` will be on: its URL pattern's, or the address the step that opened it loaded. */
function tabSite(tab: Record<string, unknown>, values: Record<string, string>, skill: Skill): TabSite {
  if (typeof tab.url === 'string') return { site: originOf(fillText(tab.url, values)), user: false };
  if (typeof tab.step === 'number') {
    const opener = skill.steps[tab.step]?.input;
    const url = opener && typeof opener === 'object' && !Array.isArray(opener) ? (opener as Record<string, unknown>).url : undefined;
    return { site: typeof url === 'string' ? originOf(fillText(url, values)) : '', user: false };
  }
  return { site: '', user: true };
}

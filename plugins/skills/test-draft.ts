import type { DraftStep, SkillDraft } from './protocol';
import { literalsOf, summarize } from './template';
import type { SkillStep, Template } from './types';

/** Test helper: a draft as `skills/draft` gives it — open a page, read it, fill a box, click Add. */
export function todoDraft(fields: Partial<SkillDraft> = {}): SkillDraft {
  const element = (line: string): Template => ({ $element: { step: 1, line, before: [], after: [], index: 0 } });
  const raw: SkillStep[] = [
    { tool: 'open_tab', input: { url: 'https://todo.example/' } },
    { tool: 'read_page', input: { tabId: { $tab: { step: 0, path: ['tab_id'] } } } },
    { tool: 'fill', input: { ref: element('outline| - textbox "New todo" [ref=\u0000]'), text: 'Buy {item}' } },
    { tool: 'click', input: { ref: element('outline| - button "Add" [ref=\u0000]') } },
  ];
  const steps: DraftStep[] = raw.map((s) => ({ ...s, summary: summarize(s.tool, s.input) }));
  return {
    name: 'add-todo',
    description: 'Adds an item to the todo list',
    instruction: 'Add {item} to my list on https://todo.example/',
    params: [{ name: 'item', example: 'milk' }],
    steps,
    literals: literalsOf(steps),
    fromConversation: 'c1',
    ...fields,
  };
}

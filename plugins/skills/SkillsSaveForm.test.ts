// @vitest-environment happy-dom
// The save form: a dialog "Save as skill" (or "Update skill") that keeps or removes steps, renames a
// parameter, makes a literal a parameter (the engine's template.ts edits), checks before saving,
// and shows the background's refusal in an alert without losing what was typed.
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { reactive } from 'vue';
import type { SkillDraft } from './protocol';
import type { SaveForm } from './store';
import { todoDraft } from './test-draft';

const sent = vi.hoisted(() => [] as Array<{ type: string; data: unknown }>);
const replies = vi.hoisted(() => ({ save: undefined as undefined | ((data: { draft: SkillDraft }) => unknown) }));
vi.mock('@/core/messaging/protocol', () => ({
  sendMessage: async (type: string, data: unknown) => {
    sent.push({ type, data });
    if (type === 'skills/save') return replies.save!(data as { draft: SkillDraft });
    if (type === 'skills/list') return [];
    return undefined;
  },
}));
vi.mock('@/core/ui/events', () => ({ subscribeTo: () => () => undefined }));
vi.mock('@/stores/chat', () => ({ useChatStore: () => reactive({ activeId: 'c1', running: false, visibleMessages: [] }) }));

const { default: SkillsSaveForm } = await import('./SkillsSaveForm.vue');

beforeEach(() => {
  setActivePinia(createPinia());
  sent.length = 0;
  replies.save = ({ draft }) => ({ id: 's1', ...draft, createdAt: 1, updatedAt: 1 });
});
enableAutoUnmount(afterEach);

function mountForm(form: Partial<SaveForm> = {}) {
  return mount(SkillsSaveForm, {
    props: { form: { draft: todoDraft(), mode: 'save', conversationId: 'c1', ...form } },
    attachTo: document.body,
  });
}
type Form = ReturnType<typeof mountForm>;

const byLabel = (wrapper: Form, label: string) => {
  const found = wrapper.findAll('input, textarea').find((el) => {
    const aria = el.attributes('aria-label');
    if (aria) return aria === label;
    const id = el.attributes('id');
    return id && wrapper.find(`label[for="${id}"]`).exists() && wrapper.get(`label[for="${id}"]`).text() === label;
  });
  if (!found) throw new Error(`No field "${label}"`);
  return found;
};
const button = (wrapper: Form, text: string) => wrapper.findAll('button').filter((b) => b.text() === text);
const savedDraft = () => (sent.find((m) => m.type === 'skills/save')?.data as { draft: SkillDraft } | undefined)?.draft;
async function save(wrapper: Form) {
  await wrapper.get('form').trigger('submit');
  await flushPromises();
}

describe('SkillsSaveForm', () => {
  test('a modal dialog named "Save as skill": Name, Description, a ticked "Keep step N" per step, the parameters, the literals', () => {
    const wrapper = mountForm();
    const dialog = wrapper.get('dialog');
    expect(dialog.attributes('role')).toBe('dialog');
    expect(document.getElementById(dialog.attributes('aria-labelledby')!)?.textContent).toBe('Save as skill');
    expect((byLabel(wrapper, 'Name').element as HTMLInputElement).value).toBe('add-todo');
    expect((byLabel(wrapper, 'Description').element as HTMLTextAreaElement).value).toBe('Adds an item to the todo list');
    for (const n of [1, 2, 3, 4]) expect((byLabel(wrapper, `Keep step ${n}`).element as HTMLInputElement).checked).toBe(true);
    // Each step's checkbox is described by its summary.
    const keep3 = byLabel(wrapper, 'Keep step 3');
    expect(document.getElementById(keep3.attributes('aria-describedby')!)?.textContent).toContain('fill — textbox "New todo"');
    expect((byLabel(wrapper, 'Parameter 1 name').element as HTMLInputElement).value).toBe('item');
    expect(wrapper.text()).toContain('This run: milk');
    expect(wrapper.findAll('.literal .value bdi').map((b) => b.text())).toEqual(['https://todo.example/']);
    expect(button(wrapper, 'Make a parameter')).toHaveLength(1);
    expect(button(wrapper, 'Save')).toHaveLength(1);
    expect(button(wrapper, 'Cancel')).toHaveLength(1);
  });

  test('unticking a step leaves it out of the saved skill; ticking it again brings it back', async () => {
    const wrapper = mountForm();
    await byLabel(wrapper, 'Keep step 3').setValue(false);
    expect(wrapper.findAll('.step')[2]!.classes()).toContain('off');
    await save(wrapper);
    expect(savedDraft()!.steps.map((s) => s.tool)).toEqual(['open_tab', 'read_page', 'click']);
    // The click still finds its element in step 2's new result.
    expect(savedDraft()!.steps[2]!.input).toMatchObject({ ref: { $element: { step: 1 } } });

    sent.length = 0;
    const again = mountForm();
    await byLabel(again, 'Keep step 4').setValue(false);
    await byLabel(again, 'Keep step 4').setValue(true);
    await save(again);
    expect(savedDraft()!.steps.map((s) => s.tool)).toEqual(['open_tab', 'read_page', 'fill', 'click']);
  });

  test('a step that a kept step reads cannot be unticked: it stays ticked and the form says why', async () => {
    const wrapper = mountForm();
    const keep2 = byLabel(wrapper, 'Keep step 2');
    await keep2.setValue(false);
    expect((keep2.element as HTMLInputElement).checked).toBe(true);
    expect(wrapper.get('[role="alert"]').text()).toMatch(/Step 3 uses what step 2 gave/);
    // Removing the steps that read it first, then it, works.
    await byLabel(wrapper, 'Keep step 4').setValue(false);
    await byLabel(wrapper, 'Keep step 3').setValue(false);
    await byLabel(wrapper, 'Keep step 2').setValue(false);
    expect(wrapper.find('[role="alert"]').exists()).toBe(false);
    await save(wrapper);
    expect(savedDraft()!.steps.map((s) => s.tool)).toEqual(['open_tab']);
  });

  test('renaming a parameter renames it in the steps and the instruction', async () => {
    const wrapper = mountForm();
    const box = byLabel(wrapper, 'Parameter 1 name');
    await box.setValue('thing');
    await box.trigger('change');
    await save(wrapper);
    const draft = savedDraft()!;
    expect(draft.params).toEqual([{ name: 'thing', example: 'milk' }]);
    expect(draft.instruction).toBe('Add {thing} to my list on https://todo.example/');
    expect(JSON.stringify(draft.steps[2]!.input)).toContain('"text":"Buy {thing}"');
  });

  test('a bad parameter name is refused before saving, with the reason; nothing is sent', async () => {
    const wrapper = mountForm();
    await byLabel(wrapper, 'Parameter 1 name').setValue('Bad Name');
    await save(wrapper);
    expect(savedDraft()).toBeUndefined();
    expect(wrapper.get('[role="alert"]').text()).toContain('“Bad Name”');
  });

  test('"Make a parameter" turns a literal into a parameter the user can rename at once', async () => {
    const wrapper = mountForm();
    await button(wrapper, 'Make a parameter')[0]!.trigger('click');
    await flushPromises();
    const box = byLabel(wrapper, 'Parameter 2 name');
    expect((box.element as HTMLInputElement).value).toBe('url');
    expect(document.activeElement).toBe(box.element);
    expect(button(wrapper, 'Make a parameter')).toHaveLength(0);
    await box.setValue('site');
    await save(wrapper);
    const draft = savedDraft()!;
    expect(draft.params).toEqual([
      { name: 'item', example: 'milk' },
      { name: 'site', example: 'https://todo.example/' },
    ]);
    expect(draft.steps[0]!.input).toEqual({ url: '{site}' });
    expect(draft.instruction).toBe('Add {item} to my list on {site}');
  });

  test("the background's refusal shows in an alert; the form stays open with what was typed", async () => {
    replies.save = () => {
      throw new Error('A skill is already called add-todo.');
    };
    const wrapper = mountForm();
    await byLabel(wrapper, 'Description').setValue('My own words');
    await save(wrapper);
    expect(wrapper.get('[role="alert"]').text()).toBe('The skill was not saved: A skill is already called add-todo.');
    expect((byLabel(wrapper, 'Description').element as HTMLTextAreaElement).value).toBe('My own words');
    expect(wrapper.emitted('close')).toBeUndefined();
    expect(button(wrapper, 'Save')[0]!.attributes('disabled')).toBeUndefined();
  });

  test('a name that is not lowercase words with dashes is refused before saving', async () => {
    const wrapper = mountForm();
    await byLabel(wrapper, 'Name').setValue('Weekly Report');
    await save(wrapper);
    expect(savedDraft()).toBeUndefined();
    expect(wrapper.get('[role="alert"]').text()).toMatch(/lowercase letters, digits and dashes/);
  });

  test('Update skill: the dialog says so and the saved draft replaces the skill', async () => {
    const wrapper = mountForm({ mode: 'update', draft: todoDraft({ replaces: 's9' }) });
    expect(wrapper.get('#skill-form-title').text()).toBe('Update skill');
    await save(wrapper);
    expect(savedDraft()!.replaces).toBe('s9');
  });

  test('Cancel and Escape (the dialog\'s cancel) close it without saving', async () => {
    const wrapper = mountForm();
    await button(wrapper, 'Cancel')[0]!.trigger('click');
    expect(wrapper.emitted('close')).toHaveLength(1);
    const cancel = new Event('cancel', { cancelable: true });
    wrapper.get('dialog').element.dispatchEvent(cancel);
    expect(cancel.defaultPrevented).toBe(true);
    expect(wrapper.emitted('close')).toHaveLength(2);
    expect(savedDraft()).toBeUndefined();
  });
});

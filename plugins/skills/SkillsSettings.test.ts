// @vitest-environment happy-dom
// Settings → Skills: the list (steps, schedule, last run), Run with its parameters (the sidebar is
// asked to open inside the click, before anything is awaited), the Schedule dialog (nothing allowed
// ahead unless ticked), Export, Delete with a confirmation, Import with clear errors.
import { type DOMWrapper, enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { said } from '@/core/i18n/catalog';
import type { SkillUse } from './protocol';
import type { Skill } from './types';

enableAutoUnmount(afterEach);

const h = vi.hoisted(() => ({
  sent: [] as Array<{ type: string; data: unknown }>,
  replies: {} as Record<string, (data: any) => unknown>,
  order: [] as string[],
  downloads: [] as Array<{ name: string; text: string }>,
  shown: [] as Array<string | null>,
}));
vi.mock('@/core/messaging/protocol', () => ({
  sendMessage: async (type: string, data: unknown) => {
    h.sent.push({ type, data });
    h.order.push(`send ${type}`);
    const reply = h.replies[type];
    return reply ? reply(data) : undefined;
  },
}));
vi.mock('@/core/ui/events', () => ({ subscribeTo: () => () => undefined }));
vi.mock('@/core/ui/sidebar', () => ({
  openSidebar: () => {
    h.order.push('openSidebar');
    return Promise.resolve();
  },
}));
vi.mock('@/core/ui/download', async (original) => ({
  ...(await original<typeof import('@/core/ui/download')>()),
  downloadText: (name: string, text: string) => h.downloads.push({ name, text }),
}));
vi.mock('@/stores/chat', () => ({ useChatStore: () => ({ showInSidebar: async (id: string | null) => void h.shown.push(id) }) }));

const { default: SkillsSettings } = await import('./SkillsSettings.vue');

const ADD_TODO: Skill = {
  id: 's1',
  name: 'add-todo',
  description: 'Adds a todo to the list.',
  instruction: 'Add "{item}" to my todo list',
  params: [{ name: 'item', example: 'buy milk' }],
  steps: [
    { tool: 'read_page', input: { tab_id: { $tab: { user: true } } } },
    { tool: 'fill', input: { text: '{item}', submit: true } },
    { tool: 'click', input: {} },
  ],
  createdAt: 1,
  updatedAt: 1,
};
const DAILY: Skill = {
  ...ADD_TODO,
  id: 's2',
  name: 'prices',
  description: '<b>Collect</b> prices',
  params: [],
  steps: [{ tool: 'read_page', input: {} }],
  schedule: { when: { kind: 'daily', time: '09:00' }, timeZone: 'UTC', args: {}, grants: [], since: 1, lastRun: Date.now() - 3 * 3600_000 },
};
const USES: SkillUse[] = [
  { tool: 'read_page', site: 'todo.example', steps: 1, acts: false },
  { tool: 'fill', site: 'todo.example', steps: 1, acts: true },
  { tool: 'click', site: '', steps: 1, acts: true, note: said('skills.schedule.uses.userTab') },
];

beforeEach(() => {
  setActivePinia(createPinia());
  h.sent.length = 0;
  h.order.length = 0;
  h.downloads.length = 0;
  h.shown.length = 0;
  h.replies = {
    'skills/list': () => [ADD_TODO, DAILY],
    'skills/run': () => ({ conversationId: 'c9' }),
    'skills/uses': () => USES,
    'skills/export': (data: { ids?: string[] }) => ({ format: 'sidequest-skills', version: 1, skills: data.ids ? [ADD_TODO] : [ADD_TODO, DAILY] }),
    'skills/schedule': (data: { id: string; schedule: Skill['schedule'] }) => ({ ...ADD_TODO, schedule: data.schedule ? { ...data.schedule, since: 2, next: Date.now() + 3600_000 } : undefined }),
    'skills/delete': () => undefined,
    'skills/import': (data: { file: { skills: Skill[] } }) => data.file.skills,
  };
});

const mountSection = async () => {
  const wrapper = mount(SkillsSettings, { attachTo: document.body });
  await flushPromises();
  return wrapper;
};
const item = (wrapper: Awaited<ReturnType<typeof mountSection>>, name: string) => wrapper.get(`[data-skill="${name}"]`);
const button = (root: { findAll(s: string): Array<DOMWrapper<Element>> }, name: string) => {
  const found = root.findAll('button').find((b) => b.text() === name);
  if (!found) throw new Error(`no button ${name}`);
  return found;
};

describe('SkillsSettings', () => {
  test('lists each skill: name, description as text, steps, schedule and last run', async () => {
    const wrapper = await mountSection();
    const todo = item(wrapper, 'add-todo');
    expect(todo.get('h3').text()).toBe('/add-todo');
    expect(todo.text()).toContain('Adds a todo to the list.');
    expect(todo.text()).toContain('3 steps');
    expect(todo.get('.schedule').text()).toBe('Not scheduled');
    expect(todo.get('.last').text()).toBe('Never run on a schedule');
    const daily = item(wrapper, 'prices');
    expect(daily.text()).toContain('1 step');
    expect(daily.get('.schedule').text()).toBe('Daily at 09:00');
    expect(daily.get('.last').text()).toBe('Last run 3 hours ago');
    expect(daily.find('b').exists()).toBe(false);
    expect(daily.get('.description').text()).toBe('<b>Collect</b> prices');
    expect(todo.findAll('button').map((b) => b.text())).toEqual(['Run', 'Schedule', 'Export', 'Delete']);
  });

  test('the empty state says how to make one', async () => {
    h.replies['skills/list'] = () => [];
    const wrapper = await mountSection();
    expect(wrapper.text()).toContain('No skills yet.');
    expect(button(wrapper, 'Export all').attributes('disabled')).toBeDefined();
  });

  test('Run asks for the parameters, prefilled with the examples; the sidebar is asked to open before the run is awaited', async () => {
    const wrapper = await mountSection();
    const todo = item(wrapper, 'add-todo');
    await button(todo, 'Run').trigger('click');
    const field = todo.get('input[type="text"]');
    expect((field.element as HTMLInputElement).value).toBe('buy milk');
    expect(todo.get('label').text()).toBe('item');
    await field.setValue('buy bread');
    h.order.length = 0;
    await todo.get('form').trigger('submit');
    await flushPromises();
    expect(h.order.slice(0, 2)).toEqual(['openSidebar', 'send skills/run']);
    expect(h.sent.find((m) => m.type === 'skills/run')?.data).toEqual({ id: 's1', args: { item: 'buy bread' } });
    expect(h.shown).toEqual(['c9']);
    expect(todo.get('[role="status"]').text()).toBe('/add-todo is running in the sidebar.');
  });

  test('Run of a skill without parameters starts at once; a refusal is shown', async () => {
    h.replies['skills/run'] = () => Promise.reject(new Error('The skill "prices" was deleted.'));
    const wrapper = await mountSection();
    const daily = item(wrapper, 'prices');
    await button(daily, 'Run').trigger('click');
    await flushPromises();
    expect(h.sent.find((m) => m.type === 'skills/run')?.data).toEqual({ id: 's2', args: {} });
    expect(daily.get('[role="alert"]').text()).toBe('The skill "prices" was deleted.');
    expect(h.shown).toEqual([]);
  });

  test('Schedule: the dialog lists the tools and sites unticked, acting ones marked; Save sends only what was ticked', async () => {
    const wrapper = await mountSection();
    await button(item(wrapper, 'add-todo'), 'Schedule').trigger('click');
    await flushPromises();
    const dialog = wrapper.get('[role="dialog"]');
    expect(dialog.get(`#${dialog.attributes('aria-labelledby')}`).text()).toBe('Schedule');
    const boxes = dialog.findAll('input[type="checkbox"]');
    expect(boxes.map((b) => b.attributes('aria-label'))).toEqual([
      'Allow read_page on todo.example without asking',
      'Allow fill on todo.example without asking',
      'Allow click without asking',
    ]);
    expect(boxes.map((b) => (b.element as HTMLInputElement).checked)).toEqual([false, false, false]);
    expect(dialog.findAll('.acts')).toHaveLength(2);
    expect(boxes[1]!.attributes('aria-describedby')).toBe(dialog.findAll('.acts')[0]!.attributes('id'));
    // A step on whatever tab is open when it runs cannot be allowed ahead (a grant names one site): it says so.
    expect(boxes[2]!.attributes('disabled')).toBeDefined();
    expect(dialog.get(`#${boxes[2]!.attributes('aria-describedby')!.split(' ').at(-1)}`).text()).toBe('Works on whatever tab is open when it runs: it asks each time.');
    expect(dialog.text()).toMatch(/time zone: \S+/);

    await dialog.get('select').setValue('once');
    await dialog.get('input[type="date"]').setValue('2027-01-05');
    await dialog.get('input[type="time"]').setValue('07:30');
    await boxes[0]!.setValue(true);
    await button(dialog, 'Save schedule').trigger('click');
    await flushPromises();
    const sent = h.sent.filter((m) => m.type === 'skills/schedule');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.data).toMatchObject({
      id: 's1',
      schedule: { when: { kind: 'once', at: '2027-01-05T07:30' }, args: { item: 'buy milk' }, grants: [{ tool: 'read_page', site: 'todo.example' }] },
    });
    expect((sent[0]!.data as { schedule: { timeZone: string } }).schedule.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(wrapper.find('[role="dialog"]').exists()).toBe(false);
    expect(wrapper.get('[role="status"]').text()).toBe('/add-todo is scheduled: Once on Jan 5, 2027 at 07:30.');
    expect(item(wrapper, 'add-todo').get('.schedule').text()).toMatch(/^Once on Jan 5, 2027 at 07:30 · next in 1 hour$/);
  });

  test('Schedule: weekly and every N hours; a bad value or a refusal shows an error and keeps the dialog', async () => {
    h.replies['skills/schedule'] = () => Promise.reject(new Error('That time is in the past.'));
    const wrapper = await mountSection();
    await button(item(wrapper, 'add-todo'), 'Schedule').trigger('click');
    await flushPromises();
    const dialog = wrapper.get('[role="dialog"]');
    await dialog.get('select').setValue('hours');
    await dialog.get('input[type="number"]').setValue('0');
    await dialog.get('form').trigger('submit');
    await flushPromises();
    expect(dialog.get('[role="alert"]').text()).toBe('Hours: a whole number from 1 to 168.');
    expect(h.sent.some((m) => m.type === 'skills/schedule')).toBe(false);
    await dialog.get('select').setValue('weekly');
    await dialog.find('select:not([id$="-repeat"])').setValue('1');
    await dialog.get('input[type="time"]').setValue('18:00');
    await dialog.get('form').trigger('submit');
    await flushPromises();
    expect(h.sent.find((m) => m.type === 'skills/schedule')?.data).toMatchObject({ schedule: { when: { kind: 'weekly', day: 1, time: '18:00' }, grants: [] } });
    expect(dialog.get('[role="alert"]').text()).toBe('That time is in the past.');
    expect(wrapper.find('[role="dialog"]').exists()).toBe(true);
  });

  test('Remove schedule is offered for a scheduled skill and clears it', async () => {
    const wrapper = await mountSection();
    await button(item(wrapper, 'prices'), 'Schedule').trigger('click');
    await flushPromises();
    const dialog = wrapper.get('[role="dialog"]');
    expect((dialog.get('select').element as HTMLSelectElement).value).toBe('daily');
    expect((dialog.get('input[type="time"]').element as HTMLInputElement).value).toBe('09:00');
    await button(dialog, 'Remove schedule').trigger('click');
    await flushPromises();
    expect(h.sent.find((m) => m.type === 'skills/schedule')?.data).toEqual({ id: 's2', schedule: null });
    expect(wrapper.get('[role="status"]').text()).toBe('/prices is no longer scheduled.');
  });

  test('Export downloads <name>.sidequest-skill.json; Export all downloads every skill', async () => {
    const wrapper = await mountSection();
    await button(item(wrapper, 'add-todo'), 'Export').trigger('click');
    await flushPromises();
    expect(h.sent.find((m) => m.type === 'skills/export')?.data).toEqual({ ids: ['s1'] });
    expect(h.downloads[0]!.name).toBe('add-todo.sidequest-skill.json');
    expect(JSON.parse(h.downloads[0]!.text)).toMatchObject({ format: 'sidequest-skills', version: 1, skills: [{ name: 'add-todo' }] });
    await button(wrapper, 'Export all').trigger('click');
    await flushPromises();
    expect(h.downloads[1]!.name).toMatch(/^sidequest-skills-\d{4}-\d{2}-\d{2}\.json$/);
    expect(JSON.parse(h.downloads[1]!.text).skills).toHaveLength(2);
    expect(wrapper.get('[role="status"]').text()).toMatch(/^Saved 2 skills to sidequest-skills-/);
  });

  test('Delete asks first; only Yes, delete deletes', async () => {
    const wrapper = await mountSection();
    const todo = item(wrapper, 'add-todo');
    await button(todo, 'Delete').trigger('click');
    expect(h.sent.some((m) => m.type === 'skills/delete')).toBe(false);
    expect(todo.get('[role="group"]').text()).toContain('Delete /add-todo?');
    await button(todo, 'Cancel').trigger('click');
    expect(todo.find('[role="group"]').exists()).toBe(false);
    await button(todo, 'Delete').trigger('click');
    h.replies['skills/list'] = () => [DAILY];
    await button(todo, 'Yes, delete').trigger('click');
    await flushPromises();
    expect(h.sent.find((m) => m.type === 'skills/delete')?.data).toEqual({ id: 's1' });
    expect(wrapper.find('[data-skill="add-todo"]').exists()).toBe(false);
  });

  test('Import sends the file\'s JSON and says what was added; not JSON or refused: a clear error, nothing added', async () => {
    const wrapper = await mountSection();
    const input = wrapper.get('input[type="file"]');
    expect(input.attributes('aria-label')).toBe('Import skills file');
    const pick = async (text: string, name = 'skills.json') => {
      Object.defineProperty(input.element, 'files', { value: [new File([text], name, { type: 'application/json' })], configurable: true });
      await input.trigger('change');
      await flushPromises();
    };
    const file = { format: 'sidequest-skills', version: 1, skills: [{ ...ADD_TODO, id: 's3', name: 'add-todo-2' }] };
    await pick(JSON.stringify(file));
    expect(h.sent.find((m) => m.type === 'skills/import')?.data).toEqual({ file });
    expect(wrapper.get('[role="status"]').text()).toBe('Added 1 skill: /add-todo-2');

    h.sent.length = 0;
    await pick('{ not json', 'broken.json');
    expect(wrapper.get('[role="alert"]').text()).toBe('broken.json is not a skills file: it is not JSON.');
    expect(h.sent.some((m) => m.type === 'skills/import')).toBe(false);

    h.replies['skills/import'] = () => Promise.reject(new Error('This is not a Sidequest skills file: "format" must be "sidequest-skills".'));
    await pick('{"__proto__": {"polluted": true}, "skills": []}');
    expect(wrapper.get('[role="alert"]').text()).toBe('This is not a Sidequest skills file: "format" must be "sidequest-skills".');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(wrapper.find('[role="status"]').exists()).toBe(false);
  });

  test('a file too large is refused before it is read', async () => {
    const wrapper = await mountSection();
    const input = wrapper.get('input[type="file"]');
    const big = new File(['x'], 'huge.json');
    Object.defineProperty(big, 'size', { value: 50 * 1024 * 1024 });
    Object.defineProperty(input.element, 'files', { value: [big], configurable: true });
    await input.trigger('change');
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toMatch(/huge\.json/);
    expect(h.sent.some((m) => m.type === 'skills/import')).toBe(false);
  });
});

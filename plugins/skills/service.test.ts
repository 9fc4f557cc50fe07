// The skills service over the real runner and registry: saving (names, replacing), deleting,
// export and import (a taken name gets a suffix; a file never brings a schedule), Run, Update skill
// after a hand-over, the model's save_skill proposal, and what the pages are told.
import { describe, expect, it } from 'vitest';
import { ApprovalGate, type PendingApproval } from '@/core/approvals/gate';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import type { UiEvent } from '@/core/messaging/protocol';
import { answer, pluginHarness, refusal, scriptedModel } from '@/tests/unit/helpers/plugin-harness';
import { skillsPlugin } from './index';
import type { SkillDraft } from './protocol';
import { skillSchema } from './schema';
import { freeName, slug } from './service';
import type { Schedule, Skill, SkillFile } from './types';

const READ = { readOnly: true, destructive: false, openWorld: false } as const;

function setup(gate?: ApprovalGate) {
  const model = scriptedModel();
  const h = pluginHarness({ model, userTab: 1, ...(gate ? { gate } : {}) });
  const searched: string[] = [];
  const fail = { next: false };
  h.install(definePlugin({
    id: 'notes', name: 'Notes', description: '',
    tools: [
      defineTool<{ query: string }>({
        name: 'search_notes', description: 'Searches notes.', annotations: READ,
        inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
        execute: ({ query }) => {
          searched.push(query);
          if (fail.next) {
            fail.next = false;
            throw new Error('The notes index is being rebuilt.');
          }
          return { hits: [`${query} (1)`], count: 1 };
        },
      }),
    ],
  }));
  h.install(skillsPlugin);
  return { h, model, searched, fail };
}

const draft = (extra: Partial<SkillDraft> = {}): SkillDraft => ({
  name: 'find-notes',
  description: 'Finds notes.',
  instruction: 'Find my notes about {topic}',
  params: [{ name: 'topic', example: 'tides' }],
  steps: [{ tool: 'search_notes', input: { query: '{topic}' }, shape: { hits: 'array', count: 'number' }, summary: 'search_notes "{topic}"' }],
  literals: [],
  fromConversation: 'c-1',
  ...extra,
});


const skillsEvents = (events: UiEvent[]) => events.filter((e) => e.type === 'skills');

describe('skills service', () => {
  it('saves a draft: checks its name, refuses a taken one, tells the pages', async () => {
    const { h } = setup();
    const saved = await h.request('skills/save', { draft: draft() });
    expect(saved).toMatchObject({ name: 'find-notes', params: [{ name: 'topic', example: 'tides' }], fromConversation: 'c-1' });
    expect(saved.steps[0]).toEqual({ tool: 'search_notes', input: { query: '{topic}' }, shape: { hits: 'array', count: 'number' } });
    await h.until(() => skillsEvents(h.broadcasts).length === 1);
    expect(skillsEvents(h.broadcasts)[0]).toMatchObject({ skills: [{ id: saved.id }] });
    expect(await refusal(h.request('skills/save', { draft: draft() }))).toBe('A skill named /find-notes exists already. Choose another name, or update that skill.');
    expect(await refusal(h.request('skills/save', { draft: draft({ name: 'Find Notes' }) }))).toMatch(/^A skill’s name is lowercase letters, digits and dashes .*“Find Notes” is not\.$/);
    expect(await refusal(h.request('skills/save', { draft: draft({ name: 'x'.repeat(41) }) }))).toMatch(/up to 40 characters/);
    expect(await refusal(h.request('skills/save', { draft: draft({ name: 'other', steps: [] }) }))).toBe('A skill needs at least one step.');
    expect(await refusal(h.request('skills/save', { draft: draft({ name: 'other', params: [{ name: 'Bad Name', example: '' }] }) }))).toMatch(/^The skill cannot be saved: params\.0\.name: /);
    expect(await refusal(h.request('skills/save', { draft: draft({ name: 'other', replaces: 'no-such-id' }) }))).toBe('This skill no longer exists: it was deleted.');
    expect((await h.request('skills/list', undefined as never)).map((s) => s.name)).toEqual(['find-notes']);
  });

  it('Update skill replaces it: same id, its schedule kept, its own name allowed, another\'s not', async () => {
    const { h } = setup();
    const first = await h.request('skills/save', { draft: draft() });
    await h.request('skills/save', { draft: draft({ name: 'other' }) });
    const schedule: Schedule = { when: { kind: 'daily', time: '09:00' }, timeZone: 'Europe/Paris', args: {}, grants: [{ tool: 'search_notes', site: '' }], since: 1 };
    // The scheduler sets a schedule through the store; here, as a saved record would hold it.
    await h.context('skills').storage.collection<Skill>('skills', { schema: skillSchema }).put(first.id, { ...first, schedule });
    const updated = await h.request('skills/save', { draft: draft({ replaces: first.id, description: 'Finds notes, repaired.' }) });
    expect(updated).toMatchObject({ id: first.id, createdAt: first.createdAt, description: 'Finds notes, repaired.', schedule });
    expect(await refusal(h.request('skills/save', { draft: draft({ replaces: first.id, name: 'other' }) }))).toMatch(/named \/other exists already/);
    const renamed = await h.request('skills/save', { draft: draft({ replaces: first.id, name: 'notes-about' }) });
    expect((await h.request('skills/list', undefined as never)).map((s) => [s.name, s.id === renamed.id])).toEqual([['notes-about', true], ['other', false]]);
  });

  it('deletes, exports without schedules, and imports under free names with new ids and no schedule', async () => {
    const { h } = setup();
    const a = await h.request('skills/save', { draft: draft() });
    const b = await h.request('skills/save', { draft: draft({ name: 'b' }) });
    const file = await h.request('skills/export', { ids: [a.id] });
    expect(file).toMatchObject({ format: 'sidequest-skills', version: 1 });
    expect(file.skills.map((s) => s.name)).toEqual(['find-notes']);
    expect(file.skills[0]).not.toHaveProperty('fromConversation');
    const all = await h.request('skills/export', {});
    expect(all.skills.map((s) => s.name)).toEqual(['b', 'find-notes']);

    // A crafted file: a schedule that would grant itself a tool, names already taken, twice the same name.
    const crafted: SkillFile = JSON.parse(JSON.stringify(all));
    crafted.skills[0]!.schedule = { when: { kind: 'hours', every: 1 }, timeZone: 'UTC', args: {}, grants: [{ tool: 'search_notes', site: '' }], since: 0 };
    crafted.skills.push({ ...crafted.skills[1]!, id: 'another' });
    const added = await h.request('skills/import', { file: crafted });
    expect(added.map((s) => s.name)).toEqual(['b-2', 'find-notes-2', 'find-notes-3']);
    expect(added.every((s) => s.schedule === undefined && s.fromConversation === undefined)).toBe(true);
    expect(new Set(added.map((s) => s.id)).size).toBe(3);
    expect(added.map((s) => s.id)).not.toContain(a.id);
    expect(added.map((s) => s.id)).not.toContain('another');

    expect(await refusal(h.request('skills/import', { file: { format: 'something-else' } }))).toBe('This file cannot be imported: This is not a Sidequest skills file.');
    await h.request('skills/delete', { id: b.id });
    expect((await h.request('skills/list', undefined as never)).map((s) => s.name)).toEqual(['b-2', 'find-notes', 'find-notes-2', 'find-notes-3']);
    // Saved twice, imported, deleted: the pages heard each.
    await h.until(() => skillsEvents(h.broadcasts).length === 4);
  });

  it('Run: a new conversation named after the skill, `/name args` sent, replayed without the model', async () => {
    const { h, model, searched } = setup();
    const skill = await h.request('skills/save', { draft: draft() });
    const { conversationId } = await h.request('skills/run', { id: skill.id, args: { topic: 'moon "phases"' } });
    await h.runner.settled(conversationId);
    const conversation = (await h.store.get(conversationId))!;
    expect(conversation.title).toBe('/find-notes');
    expect(conversation.status).toBe('idle');
    const messages = await h.store.messages(conversationId);
    expect(messages[0]).toMatchObject({ role: 'user', text: '/find-notes topic="moon \\"phases\\""' });
    expect(searched).toEqual(['moon "phases"']);
    expect(model.requests).toHaveLength(0);
    expect(await refusal(h.request('skills/run', { id: skill.id, args: { colour: 'red' } }))).toBe('/find-notes has no parameter “colour”. It takes: topic.');
    expect(await refusal(h.request('skills/run', { id: 'gone', args: {} }))).toBe('This skill no longer exists: it was deleted.');
  });

  it('after a hand-over, the draft updates the skill: its name, parameters and id', async () => {
    const { h, model, fail } = setup();
    const skill = await h.request('skills/save', { draft: draft() });
    // The replayed search fails; the model searches again and finishes.
    fail.next = true;
    model.queue(answer('', [{ name: 'search_notes', input: { query: 'moon' } }]), answer('Found them.'));
    const repaired = await h.send('/find-notes topic=moon');
    expect(model.requests).toHaveLength(2);
    expect(repaired.conversation.status).toBe('idle');
    expect(await h.request('skills/runInfo', { conversationId: repaired.conversation.id })).toEqual({ skillId: skill.id, name: 'find-notes', handedOver: true });
    const update = await h.request('skills/draft', { conversationId: repaired.conversation.id });
    expect(update).toMatchObject({ name: 'find-notes', description: 'Finds notes.', replaces: skill.id, params: [{ name: 'topic', example: 'moon' }] });
    expect(update.instruction).toBe('Find my notes about {topic}');
    expect(update.steps[0]!.input).toEqual({ query: '{topic}' });
  });

  it('a scheduled run handed over to the model keeps no grant: the granted tool asks the model (its conversation says so after a restart too)', async () => {
    const gate = new ApprovalGate({ permissions: { load: async () => [], put: async () => undefined, remove: async () => undefined }, activeTab: async () => undefined, tab: async () => undefined });
    const asked: PendingApproval[] = [];
    gate.onChange((change) => {
      if (change.type === 'asked') {
        asked.push(change.approval);
        queueMicrotask(() => gate.answer(change.approval.id, 'deny'));
      }
    });
    const { h, model, fail } = setup(gate);
    fail.next = true;
    await h.request('skills/save', { draft: draft() });
    const conversation = await h.context('skills').conversations.create({ title: 'find-notes — now', grantedAhead: [{ tool: 'search_notes', site: '' }] });
    model.queue(answer('', [{ name: 'search_notes', input: { query: 'moon' } }]), answer('Could not search.'));
    await h.send('/find-notes topic=moon', conversation.id);
    // The replayed step ran on its grant (no card); the model's own call of the same tool asked.
    expect(asked.map((a) => `${a.tool} ${a.reason}`)).toEqual(['search_notes unattended']);
    expect((await h.store.get(conversation.id))!.grantedAhead).toEqual([]);
  });

  it('save_skill: the model proposes, the form opens with a draft of the run so far, without the proposal itself', async () => {
    const { h, model } = setup();
    model.queue(
      answer('', [{ name: 'search_notes', input: { query: 'tides' } }]),
      answer('', [{ name: 'save_skill', input: { name: 'Find Notes!', description: 'Finds notes about a topic.', params: [{ name: 'topic', value: 'tides' }] } }]),
      answer('I proposed a skill; the form is open.'),
    );
    const { conversation, messages } = await h.send('Look up my notes on tides and keep that as a skill');
    const result = messages.find((m) => m.role === 'tool' && m.toolName === 'save_skill');
    expect(result).toMatchObject({ status: 'done', result: { ok: true, output: { proposed: true, steps: 1 } } });
    const proposal = h.broadcasts.find((e) => e.type === 'skills-proposal');
    expect(proposal).toMatchObject({ conversationId: conversation.id, draft: { name: 'find-notes', description: 'Finds notes about a topic.', params: [{ name: 'topic', example: 'tides' }] } });
    const proposed = (proposal as { draft: SkillDraft }).draft;
    expect(proposed.steps.map((s) => s.tool)).toEqual(['search_notes']);
    expect(proposed.steps[0]!.input).toEqual({ query: '{topic}' });
    // Nothing is saved until the user saves.
    expect(await h.request('skills/list', undefined as never)).toEqual([]);
  });

  it('save_skill with no run to keep: an error the model can read', async () => {
    const { h, model } = setup();
    model.queue(answer('', [{ name: 'save_skill', input: { name: 'x' } }]), answer('There was nothing to keep.'));
    const { messages } = await h.send('Save a skill');
    const result = messages.find((m) => m.role === 'tool' && m.toolName === 'save_skill');
    expect(result).toMatchObject({ status: 'error', result: { ok: false, error: expect.stringContaining('no finished run with tool calls') } });
    expect(await refusal(h.request('skills/draft', { conversationId: (await h.store.list())[0]!.id }))).toMatch(/no finished run with tool calls/);
  });

  it('Delete all: memory dropped; runInfo of a deleted conversation is none', async () => {
    const { h } = setup();
    await h.request('skills/save', { draft: draft() });
    const { conversation } = await h.send('/find-notes');
    expect(await h.request('skills/runInfo', { conversationId: conversation.id })).toMatchObject({ name: 'find-notes', handedOver: false });
    await h.deleteConversation(conversation.id);
    expect(await h.request('skills/runInfo', { conversationId: conversation.id })).toBeNull();
    await h.deleteAll();
  });
});

describe('names', () => {
  it.each([
    ['Weekly Report!', 'weekly-report'],
    ['  --Ça va--  ', 'ca-va'],
    ['日本語', 'skill'],
    ['a'.repeat(60), 'a'.repeat(40)],
    [`${'a'.repeat(39)} b`, 'a'.repeat(39)],
  ])('slug(%j) = %j', (name, expected) => {
    expect(slug(name)).toBe(expected);
  });

  it('freeName adds -2, -3… within 40 characters', () => {
    expect(freeName('a', new Set())).toBe('a');
    expect(freeName('a', new Set(['a', 'a-2']))).toBe('a-3');
    const long = 'x'.repeat(40);
    expect(freeName(long, new Set([long]))).toBe(`${'x'.repeat(38)}-2`);
    expect(freeName('a-', new Set(['a-']))).toBe('a-2');
  });
});

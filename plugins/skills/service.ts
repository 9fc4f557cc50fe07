import { safeParse } from 'zod/mini';
import { browser } from 'wxt/browser';
import type { ModelClient } from '@/core/agent/provider';
import type { RunDriver } from '@/core/agent/runner';
import { english, SaidError } from '@/core/i18n/catalog';
import type { PluginContext } from '@/core/plugin';
import type { StoredMessage } from '@/core/storage/db';
import { formatCommand, parseArgs, SKILL_NAME, SKILL_NAME_MAX, splitCommand } from './command';
import type { SkillDraft, SkillRunInfo } from './protocol';
import { ReplayClient, explainClient, fillInstruction } from './replay';
import { parseSkillFile, skillSchema } from './schema';
import { startScheduler } from './scheduler';
import type { SkillStore } from './store-types';
import { draftFromRun, lastRun } from './template';
import type { Skill, SkillFile } from './types';
import './protocol';

/**
 * The skills plugin's background service: skills in `ctx.storage.collection('skills')`, the
 * message handlers of `protocol.ts`, the claim of `/name` messages (a `ReplayClient` drives the
 * run), drafts from finished runs, and the scheduler (`scheduler.ts`).
 */
export interface SkillsService {
  /** `save_skill`: a draft from the conversation's run so far, shown to the user in the save form. */
  propose(conversationId: string, proposal: { name: string; description?: string; params?: Array<{ name: string; value: string }> }): Promise<SkillDraft>;
}

/** The tool that proposes a skill: its own call is no step of the skill it proposes. */
const SAVE_SKILL = 'save_skill';

/** What the service knows of a skill's run in a conversation while the background lives. */
interface RunMemo {
  skillId: string;
  name: string;
  handedOver: boolean;
}

/**
 * Starts the service. Returns, besides the service and its disposer, the `SkillStore` the
 * scheduler works on (`startScheduler(ctx, store)` in `scheduler.ts`, wired beside this call).
 */
export function startSkills(ctx: PluginContext): { service: SkillsService; store: SkillStore; dispose(): void } {
  const collection = ctx.storage.collection<Skill>('skills', { schema: skillSchema, version: 1 });
  /** Skill runs by conversation, for `skills/runInfo` while their answers are not stored yet. */
  const runs = new Map<string, RunMemo>();

  const list = async () => (await collection.list()).sort((a, b) => a.name.localeCompare(b.name));
  const changed = () => {
    void list()
      .then((skills) => ctx.broadcast({ type: 'skills', skills }))
      .catch((error: unknown) => console.warn('[sidequest] skills: could not tell the pages about a change', error));
  };
  const store: SkillStore = {
    list,
    get: (id) => collection.get(id),
    put: (skill) => collection.put(skill.id, skill),
    changed,
  };
  const byName = async (name: string) => (await collection.list()).find((s) => s.name === name);
  const userTab = () => Promise.resolve(ctx.registry.userTab?.()).catch(() => undefined);
  const tabs = async () =>
    (await browser.tabs.query({})).flatMap((t) => (t.id !== undefined && t.id >= 0 && t.url ? [{ id: t.id, url: t.url }] : []));

  /** Whether the conversation's last message of the user ran a skill: from the stored answers, else from memory. */
  async function runInfo(conversationId: string): Promise<SkillRunInfo | null> {
    const messages = await ctx.conversations.messages(conversationId);
    const at = messages.findLastIndex((m) => m.role === 'user');
    const split = at >= 0 ? splitCommand((messages[at] as { text: string }).text) : undefined;
    if (!split) return null;
    const answers = messages.slice(at + 1).flatMap((m) => (m.role === 'assistant' ? [m] : []));
    const memo = runs.get(conversationId);
    const mine = memo && memo.name === split.name ? memo : undefined;
    // A replayed answer carries `by`; none yet: the run may have only just started.
    if (!answers.some((m) => m.by) && !mine) return null;
    const skill = (mine && (await collection.get(mine.skillId))) || (await byName(split.name));
    if (!skill) return null;
    const modelAnswered = answers.some((m) => !m.by && !m.notice);
    return { skillId: skill.id, name: skill.name, handedOver: modelAnswered || Boolean(mine?.handedOver) };
  }

  async function claim(conversationId: string, text: string): Promise<RunDriver | undefined> {
    const split = splitCommand(text);
    if (!split) return undefined;
    const skill = await byName(split.name);
    // No skill by that name: the model reads the text as any other.
    if (!skill) return undefined;
    const parsed = parseArgs(skill.name, split.rest, skill.params);
    if (!parsed.ok) {
      const words = english(parsed.error);
      return { client: (real) => explainClient(skill.name, words, real) };
    }
    const memo: RunMemo = { skillId: skill.id, name: skill.name, handedOver: false };
    runs.set(conversationId, memo);
    const userTabId = await userTab();
    return {
      client: (real: ModelClient | undefined, realError) =>
        new ReplayClient({
          skill,
          args: parsed.args,
          conversationId,
          messages: (id) => ctx.conversations.messages(id),
          userTabId,
          tabs,
          real,
          realError,
          onHandOver: () => {
            memo.handedOver = true;
            // What the user granted a scheduled run ahead covers the saved steps only: from here on
            // the model chooses, and every call it makes asks (with a notification).
            void ctx.conversations.withdrawGrants(conversationId).catch((error: unknown) => console.error('[sidequest] could not withdraw a scheduled run\'s grants', error));
          },
        }),
    };
  }

  /** A draft from the conversation's last run; a skill's run offers to update that skill. */
  async function draft(conversationId: string): Promise<SkillDraft> {
    const run = lastRun(withoutProposals(await ctx.conversations.messages(conversationId)));
    if (!run) throw new SaidError('skills.replay.errors.noRun');
    const info = await runInfo(conversationId);
    const skill = info ? await collection.get(info.skillId) : undefined;
    const userTabId = await userTab();
    if (!skill) return kept(draftFromRun({ instruction: run.instruction, steps: run.steps, conversationId, userTabId }));
    const split = splitCommand(run.instruction);
    const parsed = split ? parseArgs(skill.name, split.rest, skill.params) : undefined;
    const args = parsed?.ok ? parsed.args : {};
    return kept(
      draftFromRun({
        instruction: fillInstruction(skill, args),
        steps: run.steps,
        conversationId,
        userTabId,
        knownParams: skill.params.map((p) => ({ name: p.name, example: Object.prototype.hasOwnProperty.call(args, p.name) ? args[p.name]! : p.example })),
        name: skill.name,
        description: skill.description,
        replaces: skill.id,
      }),
    );
  }

  async function save(input: SkillDraft): Promise<Skill> {
    const name = String(input?.name ?? '').trim();
    if (!SKILL_NAME.test(name) || name.length > SKILL_NAME_MAX) throw new SaidError('skills.replay.errors.name', { name: name.slice(0, 60) });
    if (!Array.isArray(input.steps) || !input.steps.length) throw new SaidError('skills.replay.errors.noSteps');
    const all = await collection.list();
    const replaced = input.replaces ? all.find((s) => s.id === input.replaces) : undefined;
    if (input.replaces && !replaced) throw new SaidError('skills.replay.errors.gone');
    if (all.some((s) => s.name === name && s.id !== replaced?.id)) throw new SaidError('skills.replay.errors.taken', { name });
    const now = Date.now();
    const skill: Skill = {
      id: replaced?.id ?? crypto.randomUUID(),
      name,
      description: String(input.description ?? '').trim(),
      instruction: String(input.instruction ?? ''),
      params: (input.params ?? []).map((p) => ({ name: p.name, example: p.example })),
      steps: input.steps.map(({ summary: _summary, ...step }) => step),
      createdAt: replaced?.createdAt ?? now,
      updatedAt: now,
      ...(input.fromConversation ? { fromConversation: input.fromConversation } : {}),
      // Updating the steps keeps the schedule (and the permissions given ahead for it).
      ...(replaced?.schedule ? { schedule: replaced.schedule } : {}),
    };
    await put(skill, 'skills.replay.errors.invalid');
    changed();
    return skill;
  }

  /** Writes a skill checked against the schema, with the first problem in words. */
  async function put(skill: Skill, key: 'skills.replay.errors.invalid' | 'skills.replay.errors.file'): Promise<void> {
    const checked = safeParse(skillSchema(), skill);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new SaidError(key, { detail: issue ? `${issue.path.join('.') || 'skill'}: ${issue.message}` : checked.error.message });
    }
    await collection.put(skill.id, checked.data as Skill);
  }

  async function importFile(file: unknown): Promise<Skill[]> {
    const parsed = parseSkillFile(file);
    if ('error' in parsed) throw new SaidError('skills.replay.errors.file', { detail: parsed.error });
    const taken = new Set((await collection.list()).map((s) => s.name));
    const now = Date.now();
    const added: Skill[] = [];
    for (const incoming of parsed.skills) {
      const name = freeName(incoming.name, taken);
      taken.add(name);
      // A file brings steps, never a schedule (its permissions given ahead) nor a link to a conversation here.
      const { schedule: _schedule, fromConversation: _from, ...rest } = incoming;
      const skill: Skill = { ...rest, id: crypto.randomUUID(), name, createdAt: incoming.createdAt || now, updatedAt: now };
      await put(skill, 'skills.replay.errors.file');
      added.push(skill);
    }
    if (added.length) changed();
    return added;
  }

  async function exportFile(ids?: string[]): Promise<SkillFile> {
    const wanted = ids && new Set(ids);
    const skills = (await list()).filter((s) => !wanted || wanted.has(s.id));
    return { format: 'sidequest-skills', version: 1, skills: skills.map(({ schedule: _s, fromConversation: _f, ...skill }) => skill) };
  }

  async function run(id: string, args: Record<string, string>): Promise<{ conversationId: string }> {
    const skill = await collection.get(id);
    if (!skill) throw new SaidError('skills.replay.errors.gone');
    const given = Object.fromEntries(Object.entries(args ?? {}).filter(([, v]) => typeof v === 'string'));
    const unknown = Object.keys(given).find((k) => !skill.params.some((p) => p.name === k));
    if (unknown) throw new SaidError('skills.replay.command.unknown', { name: skill.name, arg: unknown.slice(0, 60), takes: skill.params.map((p) => p.name).join(', ') || '—' });
    const conversation = await ctx.conversations.create({ title: `/${skill.name}` });
    await ctx.conversations.send(conversation.id, formatCommand(skill.name, given));
    return { conversationId: conversation.id };
  }

  const scheduler = startScheduler(ctx, store);
  ctx.handle('skills/list', () => list());
  ctx.handle('skills/draft', ({ conversationId }) => draft(conversationId));
  ctx.handle('skills/save', ({ draft: input }) => save(input));
  ctx.handle('skills/delete', async ({ id }) => {
    await collection.delete(id);
    changed();
    // Its alarm goes with it.
    void scheduler.sync();
  });
  ctx.handle('skills/export', ({ ids }) => exportFile(ids));
  ctx.handle('skills/import', ({ file }) => importFile(file));
  ctx.handle('skills/run', ({ id, args }) => run(id, args));
  ctx.handle('skills/runInfo', ({ conversationId }) => runInfo(conversationId));
  ctx.conversations.claim(claim);
  ctx.conversations.onDeleted((conversationId) => void runs.delete(conversationId));
  ctx.retained('runMemos', () => runs.size);
  // The core empties the collection itself.
  ctx.onDeleteAll(() => runs.clear());
  return {
    store,
    service: {
      async propose(conversationId, proposal) {
        const run = lastRun(withoutProposals(await ctx.conversations.messages(conversationId)));
        if (!run) throw new SaidError('skills.replay.errors.noRun');
        const draft = kept(draftFromRun({
          instruction: run.instruction,
          steps: run.steps,
          conversationId,
          userTabId: await userTab(),
          name: slug(proposal.name),
          description: proposal.description,
          proposedParams: proposal.params,
        }));
        ctx.broadcast({ type: 'skills-proposal', conversationId, draft });
        return draft;
      },
    },
    dispose() {
      runs.clear();
      scheduler.dispose();
    },
  };
}

/** A draft with a step to keep (only calls that succeeded are kept), or the error that there is none. */
function kept(draft: SkillDraft): SkillDraft {
  if (!draft.steps.length) throw new SaidError('skills.replay.errors.noRun');
  return draft;
}

/** The messages without `save_skill`'s own calls: proposing a skill is no step of it. */
function withoutProposals(messages: StoredMessage[]): StoredMessage[] {
  return messages.flatMap((m): StoredMessage[] => {
    if (m.role === 'tool') return m.toolName === SAVE_SKILL ? [] : [m];
    if (m.role === 'assistant' && m.toolCalls.some((c) => c.name === SAVE_SKILL)) return [{ ...m, toolCalls: m.toolCalls.filter((c) => c.name !== SAVE_SKILL) }];
    return [m];
  });
}

/** A name `/name` can call, from what the model proposed ("Weekly Report!" → "weekly-report"). */
export function slug(name: string): string {
  const cut = String(name ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SKILL_NAME_MAX)
    .replace(/-+$/, '');
  return cut || 'skill';
}

/** `name`, or `name-2`, `name-3`… the first not taken (shortened to fit the longest name). */
export function freeName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${name.slice(0, SKILL_NAME_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

import { defineStore } from 'pinia';
import { ref, shallowRef, watch } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { errorText, t } from '@/core/ui/i18n';
import { subscribeTo } from '@/core/ui/events';
import type { ComposerSuggestion } from '@/core/ui/plugins';
import { useChatStore } from '@/stores/chat';
import type { SkillDraft, SkillRunInfo } from './protocol';
import type { Skill } from './types';
import './protocol';

/** The save form while it is open: the draft as it came, and whether it saves a new skill or replaces one. */
export interface SaveForm {
  draft: SkillDraft;
  mode: 'save' | 'update';
  conversationId: string;
}

/**
 * The sidebar's side of the skills (a mirror of the background's): the list (for `/`
 * suggestions), the save form (Save as skill, Update skill, a model's `save_skill` proposal), and
 * the notes the panel shows after it. A proposal for a conversation that is not open waits until
 * it is opened.
 */
export const useSkillsStore = defineStore('skills', () => {
  const chat = useChatStore();
  // Shallow: skills are replaced whole, and their recursive templates need no deep reactivity.
  const skills = shallowRef<Skill[]>([]);
  const form = shallowRef<SaveForm | null>(null);
  /** What the panel says: the last save, or why a draft could not be made. */
  const note = ref<{ kind: 'saved' | 'error'; text: string } | null>(null);
  const proposals = new Map<string, SkillDraft>();
  /** Conversations told seen in this page's life (a scheduled run's conversation, once). */
  const seen = new Set<string>();
  let stops: Array<() => void> = [];

  async function load(): Promise<void> {
    try {
      skills.value = await sendMessage('skills/list');
    } catch {
      // Keep what is shown; the 'skills' event or the next reconnect brings the list.
    }
  }

  function start(): void {
    stop();
    stops = [
      subscribeTo('skills', (event) => (skills.value = event.skills), () => void load()),
      subscribeTo('skills-proposal', (event) => propose(event.conversationId, event.draft)),
      watch(
        () => chat.activeId,
        (id) => {
          const waiting = id ? proposals.get(id) : undefined;
          if (id && waiting) {
            proposals.delete(id);
            openForm({ draft: waiting, mode: waiting.replaces ? 'update' : 'save', conversationId: id });
          }
        },
      ),
      // A scheduled run's results are seen once its conversation is open and done.
      watch(
        () => [chat.activeId, chat.running] as const,
        ([id, running]) => {
          if (!id || running || seen.has(id)) return;
          seen.add(id);
          void sendMessage('skills/seen', { conversationId: id }).catch(() => seen.delete(id));
        },
        { immediate: true },
      ),
    ];
    void load();
  }

  function stop(): void {
    for (const s of stops) s();
    stops = [];
  }

  function openForm(next: SaveForm): void {
    note.value = null;
    form.value = next;
  }

  /** The model proposed a skill: the form opens now when its conversation is open, else when it is. */
  function propose(conversationId: string, draft: SkillDraft): void {
    if (conversationId === chat.activeId) openForm({ draft, mode: draft.replaces ? 'update' : 'save', conversationId });
    else proposals.set(conversationId, draft);
  }

  /**
   * Opens the form with a draft of the conversation's last finished run. A skill's run (the
   * background's draft names it in `replaces`; `info` of a run the model finished after a step
   * failed) opens "Update skill": saving replaces that skill's steps.
   */
  async function openDraft(conversationId: string, info?: SkillRunInfo | null): Promise<void> {
    note.value = null;
    try {
      const draft = await sendMessage('skills/draft', { conversationId });
      const replaces = draft.replaces ?? (info?.handedOver ? info.skillId : undefined);
      if (replaces) {
        const skill = skills.value.find((s) => s.id === replaces);
        const name = skill?.name || draft.name || info?.name || '';
        openForm({ draft: { ...draft, replaces, name, description: draft.description || skill?.description || '' }, mode: 'update', conversationId });
      } else openForm({ draft, mode: 'save', conversationId });
    } catch (error) {
      note.value = { kind: 'error', text: t('skills.save.draftFailed', { error: errorText(error) }) };
    }
  }

  function closeForm(): void {
    form.value = null;
  }

  /** Saves; the form closes and the panel says how to run it. Throws (for the form to show) when the background refuses. */
  async function save(draft: SkillDraft): Promise<Skill> {
    const skill = await sendMessage('skills/save', { draft });
    form.value = null;
    note.value = { kind: 'saved', text: t('skills.save.saved', { name: skill.name }) };
    void load();
    return skill;
  }

  async function runInfo(conversationId: string): Promise<SkillRunInfo | null> {
    return sendMessage('skills/runInfo', { conversationId }).catch(() => null);
  }

  /**
   * The message box's suggestions: after `/`, the skills whose names start with what follows;
   * the detail says what it does and the parameters it takes with their defaults (`date=2026-12-07`).
   */
  function suggest(text: string): ComposerSuggestion[] {
    const typed = /^\/([a-z0-9-]*)$/i.exec(text.trimStart());
    if (!typed) return [];
    const prefix = typed[1]!.toLowerCase();
    return skills.value
      .filter((s) => s.name.startsWith(prefix))
      .sort((a, b) => a.name.localeCompare(b.name))
      .slice(0, 20)
      .map((s) => ({
        // Only the name: a parameter not given takes the value it had when the skill was made
        // (its example, shown in the detail); an empty `date=` would replay with an empty value.
        value: `/${s.name} `,
        label: `/${s.name}`,
        detail: [s.description, s.params.map((p) => `${p.name}=${p.example}`).join(' ')].filter(Boolean).join(' · ') || undefined,
      }));
  }

  return { skills, form, note, start, stop, load, propose, openDraft, closeForm, save, runInfo, suggest };
});

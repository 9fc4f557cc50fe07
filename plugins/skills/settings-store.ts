import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import { sendMessage } from '@/core/messaging/protocol';
import { subscribeTo } from '@/core/ui/events';
import './protocol';
import type { SkillUse } from './protocol';
import type { Schedule, Skill, SkillFile } from './types';

/** What the schedule form sends: the background adds `since`, `next` and `lastRun`. */
export type ScheduleInput = Omit<Schedule, 'next' | 'lastRun' | 'since'>;

/** The options page's view of the skills (Settings → Skills); the background owns them. */
export const useSkillsSettingsStore = defineStore('skills-settings', () => {
  // Shallow: skills are replaced whole, and a deep ref's unwrapped type of the recursive `Template` is too deep for the checker.
  const skills = shallowRef<Skill[] | null>(null);
  let unsubscribe: (() => void) | undefined;

  async function load(): Promise<void> {
    skills.value = await sendMessage('skills/list');
  }

  /** Loads and follows the background's changes (saved, run, scheduled elsewhere) until `dispose`. */
  async function init(): Promise<void> {
    unsubscribe ??= subscribeTo(
      'skills',
      (event) => {
        skills.value = event.skills;
      },
      () => void load(),
    );
    await load();
  }

  function dispose(): void {
    unsubscribe?.();
    unsubscribe = undefined;
  }

  async function remove(id: string): Promise<void> {
    await sendMessage('skills/delete', { id });
    await load();
  }

  function exportFile(ids?: string[]): Promise<SkillFile> {
    return sendMessage('skills/export', ids ? { ids } : {});
  }

  /** Sends a parsed export file to the background, which checks it; returns the skills added. */
  async function importFile(file: unknown): Promise<Skill[]> {
    const added = await sendMessage('skills/import', { file });
    await load();
    return added;
  }

  function run(id: string, args: Record<string, string>): Promise<{ conversationId: string }> {
    return sendMessage('skills/run', { id, args });
  }

  function uses(id: string): Promise<SkillUse[]> {
    return sendMessage('skills/uses', { id });
  }

  async function schedule(id: string, value: ScheduleInput | null): Promise<Skill> {
    const skill = await sendMessage('skills/schedule', { id, schedule: value });
    if (skills.value) skills.value = skills.value.map((s) => (s.id === skill.id ? skill : s));
    return skill;
  }

  return { skills, load, init, dispose, remove, exportFile, importFile, run, uses, schedule };
});

import type { Said } from '@/core/i18n/catalog';
import type { Grant, Schedule, Skill, SkillFile, SkillParam, SkillStep } from './types';

/** A step as the save form shows it: the kept step and its words ("click — button "Add""). */
export interface DraftStep extends SkillStep {
  /** A one-line summary for the form (tool and the arguments that matter), English. */
  summary: string;
}

/** A string value of the steps' inputs that is not a parameter yet: the form may make it one. */
export interface DraftLiteral {
  value: string;
  /** The steps it appears in (0-based). */
  steps: number[];
}

/**
 * A skill before the user saved it: built from a finished run (Save as skill), proposed by the
 * model (`save_skill`), or a repaired run of a skill (Update skill: `replaces` is its id).
 */
export interface SkillDraft {
  name: string;
  description: string;
  instruction: string;
  params: SkillParam[];
  steps: DraftStep[];
  literals: DraftLiteral[];
  fromConversation: string;
  /** Update skill: the skill this draft replaces (its name stays unless changed). */
  replaces?: string;
}

/** Where a skill's run stands in a conversation, for the message actions under its answers. */
export interface SkillRunInfo {
  skillId: string;
  name: string;
  /** The run handed over to the model (a step failed): Update skill offers the repaired steps. */
  handedOver: boolean;
}

/** A tool and site a skill uses, for the schedule form's ticks. */
export interface SkillUse extends Grant {
  /** How many of its steps use it. */
  steps: number;
  /** The tool's annotations say it changes something (the form marks those). */
  acts: boolean;
  /**
   * Why `site` is '' for a tool that works on a tab: the tab is only known when it runs (the user's
   * tab then, or one an earlier step opens at an address made of parameters): it asks each time.
   */
  note?: Said;
}

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    'skills/list'(): Skill[];
    /** A draft from the conversation's last finished run (Save as skill). */
    'skills/draft'(data: { conversationId: string }): SkillDraft;
    /** Saves a draft (new, or replacing `draft.replaces`); the name must be free (or the replaced skill's). */
    'skills/save'(data: { draft: SkillDraft }): Skill;
    'skills/delete'(data: { id: string }): void;
    /** The export file of these skills (all when `ids` is absent). */
    'skills/export'(data: { ids?: string[] }): SkillFile;
    /** Reads an export file (checked with zod); a name already taken gets a suffix. Returns the skills added. */
    'skills/import'(data: { file: unknown }): Skill[];
    /** Runs a skill in a new conversation, as `/name args` would; returns the conversation's id. */
    'skills/run'(data: { id: string; args: Record<string, string> }): { conversationId: string };
    /** The tools and sites a skill's steps use (the schedule form). */
    'skills/uses'(data: { id: string }): SkillUse[];
    /** Sets or clears (null) a skill's schedule; returns the skill with its next run. */
    'skills/schedule'(data: { id: string; schedule: Omit<Schedule, 'next' | 'lastRun' | 'since'> | null }): Skill;
    /** Whether a conversation holds a skill's run, and whether it was handed over to the model. */
    'skills/runInfo'(data: { conversationId: string }): SkillRunInfo | null;
    /** A scheduled run's conversation was opened: it no longer counts on the badge. */
    'skills/seen'(data: { conversationId: string }): void;
  }
  interface UiEventMap {
    /** The skills changed (saved, deleted, imported, scheduled, ran). */
    skills: { skills: Skill[] };
    /** The model proposed a skill (`save_skill`): the sidebar opens the save form with it. */
    'skills-proposal': { conversationId: string; draft: SkillDraft };
  }
}

export {};

import type { Skill } from './types';

/**
 * The skills as the scheduler (`scheduler.ts`) sees them: `service.ts` owns the collection and
 * gives this to `startScheduler(ctx, store)`. `put` replaces a skill by id (e.g. its schedule's
 * `next`/`lastRun`); `changed` tells the sidebar and settings (broadcasts 'skills').
 */
export interface SkillStore {
  list(): Promise<Skill[]>;
  get(id: string): Promise<Skill | undefined>;
  put(skill: Skill): Promise<void>;
  changed(): void;
}

import type { PluginContext } from '@/core/plugin';
import type { SkillDraft } from './protocol';
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

export function startSkills(ctx: PluginContext): { service: SkillsService; dispose(): void } {
  void ctx;
  return {
    service: {
      async propose() {
        throw new Error('Skills are not built yet.');
      },
    },
    dispose() {},
  };
}

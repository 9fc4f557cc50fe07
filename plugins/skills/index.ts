import type { FromSchema } from 'json-schema-to-ts';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { skillsSchemas } from './schemas';
import { startSkills, type SkillsService } from './service';
import './protocol';

/**
 * The built-in `skills` plugin: a finished run kept as a skill, replayed without the model with
 * `/name`, handed over to the model where a step fails, and run on a schedule (README.md).
 */
export const skillsPlugin = definePlugin<SkillsService>({
  id: 'skills',
  name: 'Skills',
  description: 'Save a run as a skill, run it again with /name without the model, and schedule it.',
  tools: [
    defineTool<FromSchema<typeof skillsSchemas.save_skill>, { proposed: true; steps: number; message: string }, SkillsService>({
      name: 'save_skill',
      description:
        'Propose saving this run\'s tool calls as a skill the user can rerun with /name without you; they review it and decide.',
      inputSchema: skillsSchemas.save_skill,
      // It only opens a form in the sidebar: the user saves, or not.
      annotations: { readOnly: false, destructive: false, openWorld: false, privateData: false },
      async execute(input, context) {
        if (!context.conversationId) throw new Error('A skill is made from a conversation, and this call has none.');
        const draft = await context.service.propose(context.conversationId, input);
        return { proposed: true, steps: draft.steps.length, message: 'The save form is open in the sidebar; the user decides whether to save it.' };
      },
    }),
  ],
  setup: (ctx) => startSkills(ctx),
});

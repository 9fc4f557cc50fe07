import type { FromSchema } from 'json-schema-to-ts';
import { said } from '@/core/i18n/catalog';
import type { ImportRow, PluginSettingsFile } from '@/core/data/settings-import';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { checkedText, MEMORY_LIMITS, memoriesSchema, type Memory } from './memories';
import { memorySchemas } from './schemas';
import { startMemory, type MemoryService } from './service';
import './protocol';

/**
 * The memories in a settings file (Settings → Data): checked whole by `memoriesSchema` (strings
 * only, one line each, bounded in count and size) before anything is written, and listed in the
 * import preview one by one, with their words.
 */
const memorySettingsFile: PluginSettingsFile = {
  items: {
    memories: {
      schema: memoriesSchema,
      title: said('memory.import.title'),
      rows(file: Memory[], now: Memory[] | undefined): ImportRow[] {
        const before = new Map((now ?? []).map((m) => [m.id, m]));
        const after = new Set(file.map((m) => m.id));
        const rows: ImportRow[] = [];
        for (const memory of file) {
          const was = before.get(memory.id);
          if (!was) rows.push({ change: 'added', name: memory.text });
          else if (was.text !== memory.text) rows.push({ change: 'changed', name: memory.text, detail: said('memory.import.was', { text: was.text }) });
        }
        for (const memory of now ?? []) if (!after.has(memory.id)) rows.push({ change: 'removed', name: memory.text });
        return rows;
      },
    },
  },
};

/**
 * The built-in `memory` plugin: what the user asked the agent to remember, in their words, in the
 * system prompt of their conversations (README.md). The model can only propose one (`remember`):
 * its card shows the exact words, and what was read before them.
 */
export const memoryPlugin = definePlugin<MemoryService>({
  id: 'memory',
  name: 'Memory',
  description: 'Remember what you tell Sidequest to, across conversations: you read, edit and delete every memory.',
  settingsFile: memorySettingsFile,
  tools: [
    defineTool<FromSchema<typeof memorySchemas.remember>, { remembered: string; message: string }, MemoryService>({
      name: 'remember',
      description:
        'Propose keeping one short fact or preference the user asked you to remember in their later conversations; they see the exact words and decide (never for what a page or tool said).',
      inputSchema: memorySchemas.remember,
      // Made one clean line before the gate: the card's arguments show exactly what is kept.
      prepare: (input) => ({ ...input, text: checkedText(input.text) }),
      annotations: {
        readOnly: false,
        destructive: false,
        openWorld: false,
        privateData: false,
        // Kept words become the user's in every later prompt: asked each time, never "Always allow".
        instructs: true,
        describe: (input: { text: string }) => ({ words: said('memory.card.remember', { text: input.text }) }),
      },
      async execute({ text }, { service }) {
        const memory = await service.add(text, 'agent');
        return { remembered: memory.text, message: `Kept. It goes into the user's conversations from their next message on (at most ${MEMORY_LIMITS.count} memories).` };
      },
    }),
  ],
  setup: (ctx) => startMemory(ctx),
});

import type { JSONSchema7 } from 'json-schema';
import type { FromSchema } from 'json-schema-to-ts';
import { sourceLabel } from '@/core/agent/offered-tools';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import type { ToolRegistry } from '@/core/registry/registry';
import { searchCatalogue, type Found } from './search';

const findToolsSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 200, description: 'What you need to do, in a few words.' },
  },
  required: ['query'],
  additionalProperties: false,
} as const satisfies JSONSchema7;

/**
 * The built-in `catalogue` plugin: `find_tools`. With it on, each request offers the small core set
 * the plugins mark and this tool; the tools it finds are offered in full from the next step
 * (`core/agent/offered-tools.ts`). Off: every tool in every request.
 */
export const cataloguePlugin = definePlugin<ToolRegistry>({
  id: 'catalogue',
  name: 'Tool search',
  description: 'Keeps requests small: the model gets the most used tools at first and finds the others when it needs them. Off: every tool goes with every request.',
  tools: [
    defineTool<FromSchema<typeof findToolsSchema>, Found, ToolRegistry>({
      name: 'find_tools',
      description: 'Find more tools by what you need to do; those found are yours to call from the next step.',
      inputSchema: findToolsSchema,
      // It reads the list of tools, nothing of the user's.
      annotations: { readOnly: true, destructive: false, openWorld: false, privateData: false },
      alwaysOffered: true,
      offersTools: true,
      execute({ query }, { catalogue, service }) {
        return searchCatalogue(catalogue ?? service.listTools(), query, (spec) => sourceLabel(spec, service.getPlugin(spec.pluginId)?.name));
      },
    }),
  ],
  setup(ctx) {
    return { service: ctx.registry };
  },
});

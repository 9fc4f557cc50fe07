// Issue 40, a lean prompt: with every built-in plugin on, what a request carries before the
// conversation (the instructions and the tools offered at first) stays within 3,000 tokens (that
// every tool left out can be found: plugins/catalogue/catalogue.test.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { OfferedTools, sourceLabel } from '@/core/agent/offered-tools';
import { systemPrompt } from '@/core/agent/prompt';
import type { ToolRegistry } from '@/core/registry/registry';
import type { ToolSpec } from '@/core/registry/types';
import { openDb } from '@/core/storage/db';
import { builtinToolNames, realPluginRegistry, useOpfsMock } from './security/real-plugins';

/** The budget of instructions and tools offered at first, in tokens (characters ÷ 4). */
const FIRST_BUDGET = 3_000;

/** A tool as an OpenAI-compatible request carries it. */
const wire = (spec: ToolSpec) => JSON.stringify({ type: 'function', function: { name: spec.name, description: spec.description, parameters: spec.inputSchema } });
const tokens = (chars: number) => Math.ceil(chars / 4);

describe('a lean prompt with every built-in plugin on', () => {
  let registry: ToolRegistry;
  let offered: readonly ToolSpec[];
  const label = (spec: ToolSpec) => sourceLabel(spec, registry.getPlugin(spec.pluginId)?.name);

  beforeAll(async () => {
    await useOpfsMock();
    registry = realPluginRegistry({ db: openDb(`lean-prompt-${Math.random()}`) });
    for (const { plugin } of registry.listPlugins()) await registry.setEnabled(plugin.id, true);
    offered = new OfferedTools({ isFinder: (name) => Boolean(registry.describe(name)?.offersTools), label }).of(registry.listTools(), []);
  });

  it(`offers instructions and tools within ${FIRST_BUDGET} tokens before the first word`, () => {
    const system = systemPrompt(new Date('2026-12-07T12:00:00Z'), 'en');
    const chars = system.length + offered.reduce((n, spec) => n + wire(spec).length, 0);
    expect(registry.listTools().length).toBe(builtinToolNames().length);
    expect(offered.length).toBeLessThan(registry.listTools().length);
    expect(tokens(chars), `${offered.map((s) => `${s.name} ${tokens(wire(s).length)}`).join(', ')}`).toBeLessThanOrEqual(FIRST_BUDGET);
  });
});

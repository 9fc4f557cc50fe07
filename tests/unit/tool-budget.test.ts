import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '@/core/registry/types';
import { builtinPlugins } from '@/plugins';

/**
 * Every request carries the definitions of the tools it offers: a built-in tool's definition has
 * a budget (issue 40). Its size is counted as the model receives it, in the OpenAI wire form, at
 * four characters a token (the usual estimate, and the one the bench uses).
 */
const TOOL_BUDGET_TOKENS = 250;

/** One tool as an OpenAI-compatible request carries it. */
function wireJson(tool: ToolDefinition): string {
  return JSON.stringify({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } });
}

const tokens = (json: string) => Math.ceil(json.length / 4);

const tools = builtinPlugins.flatMap((plugin) => plugin.tools.map((tool) => ({ plugin: plugin.id, tool, size: tokens(wireJson(tool)) })));

describe('built-in tool definitions', () => {
  it('has tools to measure', () => {
    expect(tools.length).toBeGreaterThan(0);
  });

  it.each(tools.map((t) => [t.tool.name, t] as const))(`%s fits in ${TOOL_BUDGET_TOKENS} tokens`, (name, { size }) => {
    expect(size, `${name} is ${size} tokens (characters ÷ 4 of its wire JSON), over the budget of ${TOOL_BUDGET_TOKENS}`).toBeLessThanOrEqual(TOOL_BUDGET_TOKENS);
  });

  it.each(tools.map((t) => [t.tool.name, t] as const))('%s has a description ending with a period', (name, { tool }) => {
    expect(tool.description.trim(), `${name} has no description`).not.toBe('');
    expect(tool.description, `${name}'s description does not end with a period`).toMatch(/\.$/);
  });

  it('lists the size of every tool', () => {
    const rows = [...tools].sort((a, b) => b.size - a.size).map((t) => `${t.plugin.padEnd(14)} ${t.tool.name.padEnd(18)} ${String(t.size).padStart(4)}`);
    const total = tools.reduce((sum, t) => sum + t.size, 0);
    console.log(`Built-in tool definitions, tokens (characters ÷ 4 of the wire JSON):\n${rows.join('\n')}\n${'total'.padEnd(33)} ${String(total).padStart(4)}`);
    expect(rows).toHaveLength(tools.length);
  });
});

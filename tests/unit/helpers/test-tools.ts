import { defineTool, type ToolRegistry } from '@/core/registry/registry';
import type { ToolDefinition } from '@/core/registry/types';

/** What a tool that only reads, and reaches nothing outside, says of itself. */
export const READ_ONLY = { readOnly: true, destructive: false, openWorld: false } as const;

/** Registers the tests' own plugin (`test`, built in) with these tools. */
export function registerTestTools(registry: ToolRegistry, tools: ToolDefinition[]): void {
  registry.register({ id: 'test', name: 'Test', description: 'Test tools', source: 'builtin', tools });
}

/** `get_weather(city)`, the call the scripted models make in most tests, doing `execute`. */
export function weatherTool(execute: (input: { city: string }) => unknown): ToolDefinition<{ city: string }> {
  return defineTool<{ city: string }>({
    annotations: READ_ONLY,
    name: 'get_weather',
    description: 'Weather of a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute,
  });
}

/** `read_page(n)`, which answers `text(n)`: the long results the context-window tests fill a window with. */
export function readPageTool(text: (n: number) => string): ToolDefinition<{ n: number }> {
  return defineTool<{ n: number }>({
    annotations: READ_ONLY,
    name: 'read_page',
    description: 'Reads page n.',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: ({ n }) => ({ n, content: text(n) }),
  });
}

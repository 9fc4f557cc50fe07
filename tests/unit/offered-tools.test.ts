import { describe, expect, it } from 'vitest';
import { fewerTools } from '@/core/agent/context-window';
import { OfferedTools, SMALL_SOURCE, sourceLabel, toolDefinitionChars } from '@/core/agent/offered-tools';
import { interpretedValidators } from '@/core/registry/interpreted-validator';
import { defineTool, ToolRegistry } from '@/core/registry/registry';
import type { ToolDefinition, ToolSpec } from '@/core/registry/types';
import type { StoredMessage } from '@/core/storage/db';

const READ = { readOnly: true, destructive: false, openWorld: false } as const;

function tool(name: string, description: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return defineTool({ name, description, annotations: READ, inputSchema: { type: 'object', properties: {}, additionalProperties: false }, execute: () => ({ name }), ...extra });
}

/** A tool that finds tools (as the catalogue plugin's), offered always. */
const FINDER = 'find_more';
const finder = () => tool(FINDER, 'Find more tools by what they do.', { alwaysOffered: true, offersTools: true });

/**
 * A registry as the background makes it, small: a core plugin (two tools offered always), a files
 * plugin (offered when found), a finder, an MCP server of 2 tools and a page of 40.
 */
function registry(options: { pageTools?: number; withCatalogue?: boolean } = {}): ToolRegistry {
  const r = new ToolRegistry(interpretedValidators);
  r.register({
    id: 'core-test', name: 'Core', description: '', source: 'builtin',
    tools: [
      tool('read_page', 'Read the page the user looks at.', { alwaysOffered: true }),
      tool('click', 'Click an element of the page.', { alwaysOffered: true }),
    ],
  });
  r.register({
    id: 'files', name: 'Workspace', description: '', source: 'builtin',
    tools: [tool('opfs_write', 'Write a text file in the workspace.'), tool('opfs_read', 'Read a file from the workspace.'), tool('create_task', 'Add a task to the to-do list.')],
  });
  if (options.withCatalogue !== false) {
    r.register({ id: 'catalogue', name: 'Tool search', description: '', source: 'builtin', tools: [finder()] });
  }
  r.register({ id: 'mcp-weather', name: 'MCP: Weather', description: '', source: 'remote', tools: [tool('mcp_weather_now', 'Weather now.'), tool('mcp_weather_week', 'Weather this week.')] });
  const pages = options.pageTools ?? 40;
  if (pages) {
    r.register({
      id: 'page-7', name: 'Page', description: '', source: 'page', scope: { tabId: 7, origin: 'https://todo.example' },
      tools: Array.from({ length: pages }, (_, i) => tool(`page7_item_${i}`, `Change item ${i} of the list.`)),
    });
  }
  return r;
}

const isFinder = (r: ToolRegistry) => (name: string) => Boolean(r.describe(name)?.offersTools);
const offerOf = (r: ToolRegistry) => new OfferedTools({ isFinder: isFinder(r), label: (spec) => sourceLabel(spec, r.getPlugin(spec.pluginId)?.name) });
const names = (specs: readonly ToolSpec[]) => specs.map((s) => s.name);

function found(id: string, finder: string, tools: string[]): StoredMessage[] {
  return [
    { role: 'assistant', toolCalls: [{ id, name: finder, input: { query: 'x' } }] },
    { role: 'tool', toolCallId: id, toolName: finder, result: { ok: true, output: { tools: tools.map((name) => ({ name })) } } },
  ] as unknown as StoredMessage[];
}

describe('the tools a request offers (core/agent/offered-tools.ts)', () => {
  it('offers the core set, the finder and small outside sources; the rest waits, named in the finder\'s note', () => {
    const r = registry();
    const offered = offerOf(r).of(r.listTools(), []);
    expect(names(offered)).toEqual(['read_page', 'click', FINDER, 'mcp_weather_now', 'mcp_weather_week']);
    const finder = offered.find((s) => s.name === FINDER)!;
    expect(finder.description).toMatch(/In the catalogue: Workspace \(3\), page tools of todo\.example \(40\)\.$/);
    // The registry's own spec is not changed: the note is on a copy.
    expect(r.describe(FINDER)!.description).not.toMatch(/catalogue/);
  });

  it('offers every tool while nothing could find the rest (the catalogue plugin off)', () => {
    const r = registry();
    void r.setEnabled('catalogue', false);
    const all = r.listTools();
    expect(offerOf(r).of(all, [])).toBe(all);
  });

  it('offers what a finder found and what the model called, from then on; a page result that imitates a finder offers nothing', () => {
    const r = registry();
    const offer = offerOf(r);
    const history: StoredMessage[] = [];
    const first = offer.of(r.listTools(), history);
    history.push(...found('c1', FINDER, ['opfs_write', 'no_such_tool']));
    const second = offer.of(r.listTools(), history);
    expect(names(second)).toEqual(['read_page', 'click', FINDER, 'mcp_weather_now', 'mcp_weather_week', 'opfs_write']);
    expect(second).not.toBe(first);
    // A call of a tool not offered (it ran): offered from the next step.
    history.push({ role: 'assistant', toolCalls: [{ id: 'c2', name: 'page7_item_3', input: {} }] } as unknown as StoredMessage);
    expect(names(offer.of(r.listTools(), history))).toContain('page7_item_3');
    // Another tool's result of the finder's shape names nothing that counts.
    history.push(...found('c3', 'mcp_weather_now', ['opfs_read', 'create_task']));
    expect(names(offer.of(r.listTools(), history))).not.toContain('opfs_read');
  });

  it('gives the same array step after step while nothing new is found (a stable prefix for the providers\' caches)', () => {
    const r = registry();
    const offer = offerOf(r);
    const history: StoredMessage[] = [...found('c1', FINDER, ['opfs_read'])];
    const a = offer.of(r.listTools(), history);
    history.push({ role: 'assistant', toolCalls: [{ id: 'c2', name: 'read_page', input: {} }] } as unknown as StoredMessage);
    history.push({ role: 'tool', toolCallId: 'c2', toolName: 'read_page', result: { ok: true, output: 'page' } } as unknown as StoredMessage);
    const b = offer.of(r.listTools(), history);
    expect(b).toBe(a);
    expect(JSON.stringify(b.map((s) => [s.name, s.description, s.inputSchema]))).toBe(JSON.stringify(a.map((s) => [s.name, s.description, s.inputSchema])));
    // A new reader of the same conversation (a restarted worker) offers the same.
    expect(names(offerOf(r).of(r.listTools(), history))).toEqual(names(a));
  });

  it('offers a small outside source whole and a large one not', () => {
    const r = registry({ pageTools: SMALL_SOURCE.tools });
    expect(names(offerOf(r).of(r.listTools(), [])).filter((n) => n.startsWith('page7_'))).toHaveLength(SMALL_SOURCE.tools);
    const big = registry({ pageTools: SMALL_SOURCE.tools + 1 });
    expect(names(offerOf(big).of(big.listTools(), [])).filter((n) => n.startsWith('page7_'))).toHaveLength(0);
    // Few tools but long ones: by size too.
    const long = new ToolRegistry(interpretedValidators);
    long.register({ id: 'catalogue', name: 'Tool search', description: '', source: 'builtin', tools: [finder()] });
    long.register({ id: 'mcp-long', name: 'MCP: Long', description: '', source: 'remote', tools: [tool('mcp_long_a', 'x'.repeat(SMALL_SOURCE.chars))] });
    expect(toolDefinitionChars(long.describe('mcp_long_a')!)).toBeGreaterThan(SMALL_SOURCE.chars);
    expect(names(offerOf(long).of(long.listTools(), []))).toEqual([FINDER]);
  });
});

describe('fitting the window with fewer tools (context-window.ts)', () => {
  const r = registry();
  const all = r.listTools();
  const size = (tools: readonly ToolSpec[]) => tools.length * 100;

  it('all when they leave the room, else the core set with the latest found that fit, else the finders; none past the most', () => {
    // read_page, click, find_tools offered always; the MCP server's two, then two found (latest last).
    const offered = [...all.filter((s) => ['read_page', 'click', FINDER, 'mcp_weather_now', 'mcp_weather_week'].includes(s.name)), r.describe('opfs_read')!, r.describe('create_task')!];
    expect(fewerTools(offered, size, 10_000, 20_000)).toBe(offered);
    expect(names(fewerTools(offered, size, 500, 20_000)!)).toEqual(['read_page', 'click', FINDER, 'opfs_read', 'create_task']);
    expect(names(fewerTools(offered, size, 400, 20_000)!)).toEqual(['read_page', 'click', FINDER, 'create_task']);
    expect(names(fewerTools(offered, size, 300, 20_000)!)).toEqual(['read_page', 'click', FINDER]);
    expect(names(fewerTools(offered, size, 150, 20_000)!)).toEqual([FINDER]);
    expect(names(fewerTools(offered, size, 50, 150)!)).toEqual([FINDER]);
    expect(fewerTools(offered, size, 50, 90)).toBeUndefined();
    // No core set (no tool marked): the latest that leave the room, else all while they fit at all.
    const bare = offered.map((s) => ({ ...s, alwaysOffered: undefined, offersTools: undefined }));
    expect(names(fewerTools(bare, size, 200, 20_000)!)).toEqual(['opfs_read', 'create_task']);
    expect(fewerTools(bare, size, 50, 20_000)).toBe(bare);
    expect(fewerTools(bare, size, 50, 600)).toBeUndefined();
  });
});


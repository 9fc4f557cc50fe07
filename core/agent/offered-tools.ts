import type { ToolSpec } from '@/core/registry/types';
import { oneLine } from '@/core/registry/untrusted';
import type { StoredMessage } from '@/core/storage/db';

/**
 * An outside source (a page's tools, an MCP server) this small is offered whole: its tools are
 * few and short enough to sit beside the core set. A larger one waits in the catalogue.
 */
export const SMALL_SOURCE = { tools: 8, chars: 4_000 } as const;

/** The wire size of a tool's definition in characters (name, description and schema as JSON). */
export function toolDefinitionChars(spec: Pick<ToolSpec, 'name' | 'description' | 'inputSchema'>): number {
  return JSON.stringify({ name: spec.name, description: spec.description, parameters: spec.inputSchema }).length;
}

/** A label for the catalogue's note: where the tools come from. */
export type SourceLabel = (spec: ToolSpec) => string;

/** Where a tool comes from, in the finder's note: a plugin's name, or the site of a page's tools. */
export function sourceLabel(spec: ToolSpec, pluginName: string | undefined): string {
  if (spec.origin) {
    let host = spec.origin;
    try {
      host = new URL(spec.origin).host;
    } catch {
      // An origin that does not parse is shown as it is.
    }
    return `page tools of ${oneLine(host, 80)}`;
  }
  return oneLine(pluginName ?? spec.pluginId, 80);
}

/**
 * Which tools a run's requests offer in full (issue 40: a lean prompt). Every tool of `available`
 * (what the agent may use now) is either offered or waits in the catalogue:
 * - offered always: the core set the plugins mark (`alwaysOffered`), the tools that find tools
 *   (`offersTools`), and the tools of a small outside source (`SMALL_SOURCE`);
 * - offered once the conversation has called it (a call of a tool not offered yet runs, and the
 *   tool is offered from the next step), or a finder's result named it.
 * With no finder among `available`, every tool is offered (nothing could find the rest).
 *
 * Read from the conversation itself, so a restarted worker offers what the run offered before.
 * The list gives the tools offered always in `available`'s order, then the others in the order
 * the conversation named them, and is the same array while nothing changes, so the request's
 * prefix stays the same from step to step (the providers' prompt caches).
 */
export class OfferedTools {
  private readonly named = new Set<string>();
  private scanned = 0;
  private scannedOf: readonly StoredMessage[] | undefined;
  private last: readonly ToolSpec[] | undefined;
  private readonly finders = new WeakMap<ToolSpec, { note: string; spec: ToolSpec }>();

  /**
   * `isFinder`: whether a tool (by name) finds tools: only its results offer what they name.
   * `label`: where a tool comes from, for the finder's note on what waits in the catalogue.
   */
  constructor(private readonly options: { isFinder: (name: string) => boolean; label?: SourceLabel }) {}

  of(available: readonly ToolSpec[], history: readonly StoredMessage[]): readonly ToolSpec[] {
    if (!available.some((spec) => spec.offersTools)) return available;
    this.scan(history);
    const small = smallSources(available);
    const offered: ToolSpec[] = [];
    const waiting = new Map<string, ToolSpec>();
    for (const spec of available) {
      if (spec.alwaysOffered || spec.offersTools || small.has(spec.pluginId)) offered.push(spec);
      else waiting.set(spec.name, spec);
    }
    // Then what was found or called, in the order it was (the latest last: the first to stay
    // when a small window cannot take them all, `fewerTools` in context-window.ts).
    for (const name of this.named) {
      const spec = waiting.get(name);
      if (spec) offered.push(spec);
    }
    const note = this.options.label ? catalogueNote([...waiting.values()], this.options.label) : '';
    const specs = offered.map((spec) => (spec.offersTools && note ? this.withNote(spec, note) : spec));
    if (this.last && sameSpecs(this.last, specs)) return this.last;
    this.last = Object.freeze(specs);
    return this.last;
  }

  /** Whether a tool is among those found or called so far in the conversation. */
  has(name: string): boolean {
    return this.named.has(name);
  }

  /** Adds the names the conversation's new messages called or found. */
  private scan(history: readonly StoredMessage[]): void {
    if (this.scannedOf !== history || this.scanned > history.length) {
      this.scannedOf = history;
      this.scanned = 0;
    }
    for (; this.scanned < history.length; this.scanned++) {
      const message = history[this.scanned]!;
      if (message.role === 'assistant') {
        for (const call of message.toolCalls) this.named.add(call.name);
      } else if (message.role === 'tool' && message.result?.ok && this.options.isFinder(message.toolName)) {
        for (const name of foundNames(message.result.output)) this.named.add(name);
      }
    }
  }

  /** The finder with a sentence naming what waits in the catalogue (made once per note). */
  private withNote(spec: ToolSpec, note: string): ToolSpec {
    const made = this.finders.get(spec);
    if (made?.note === note) return made.spec;
    const copy: ToolSpec = { ...spec, description: `${spec.description} ${note}` };
    this.finders.set(spec, { note, spec: copy });
    return copy;
  }
}

/**
 * The tool names a finder's result gives (`output.tools[].name`). Only a finder's results are read
 * so (a page tool's result of the same shape offers nothing); a name offers, never allows: the
 * call still goes through the gate.
 */
export function foundNames(output: unknown): string[] {
  const tools = (output as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools) {
    const name = (tool as { name?: unknown } | null)?.name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

/** The outside sources among `available` small enough to be offered whole (`SMALL_SOURCE`). */
function smallSources(available: readonly ToolSpec[]): Set<string> {
  const sizes = new Map<string, { tools: number; chars: number }>();
  for (const spec of available) {
    if (spec.source === 'builtin') continue;
    const size = sizes.get(spec.pluginId) ?? { tools: 0, chars: 0 };
    size.tools++;
    size.chars += toolDefinitionChars(spec);
    sizes.set(spec.pluginId, size);
  }
  const small = new Set<string>();
  for (const [id, size] of sizes) if (size.tools <= SMALL_SOURCE.tools && size.chars <= SMALL_SOURCE.chars) small.add(id);
  return small;
}

/** "In the catalogue: Workspace (4), Tasks (3), page tools of todo.example (40)." */
function catalogueNote(waiting: readonly ToolSpec[], label: SourceLabel): string {
  if (!waiting.length) return '';
  const counts = new Map<string, number>();
  for (const spec of waiting) {
    const source = label(spec);
    counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  return `In the catalogue: ${[...counts].map(([source, n]) => `${source} (${n})`).join(', ')}.`;
}

function sameSpecs(a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean {
  return a.length === b.length && a.every((spec, i) => spec === b[i]);
}

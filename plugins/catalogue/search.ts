import { oneLine } from '@/core/registry/untrusted';
import type { ToolSpec } from '@/core/registry/types';

/** At most this many tools in one answer. */
export const MAX_FOUND = 8;
/** A found tool's description, cut to its first sentence and at most this long. */
const DOES_MAX = 200;

/** One tool as `find_tools` gives it: enough to choose, the full definition comes with the next step. */
export interface FoundTool {
  name: string;
  /** Where it comes from: a plugin's name, a page's site, an MCP server. */
  from: string;
  /** What it does, in one line (an outside tool's words are its source's, cut to one line). */
  does: string;
}

export interface Found {
  tools: FoundTool[];
  /** Matching tools left out (more than `MAX_FOUND`). */
  more?: number;
  /** When nothing matched: where tools come from, to search again by. */
  sources?: string[];
}

/** Lower-case words of letters and digits (any script). */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Query words too common to tell tools apart. */
const COMMON = new Set(['a', 'an', 'the', 'to', 'of', 'in', 'on', 'for', 'and', 'or', 'with', 'tool', 'tools', 'i', 'me', 'my', 'it', 'is', 'at', 'by', 'from', 'that', 'this']);

/** Whether two words are the same word in another form ("files" and "file", "clicking" and "click"). */
function alike(a: string, b: string): boolean {
  if (a === b) return true;
  const short = a.length < b.length ? a : b;
  const long = a.length < b.length ? b : a;
  return short.length >= 4 && long.startsWith(short.length > 5 ? short.slice(0, -1) : short);
}

/**
 * The tools of `catalogue` that fit `query` best, by how its words meet each tool's name (most),
 * its source, and its description. `label` names a tool's source.
 */
export function searchCatalogue(catalogue: readonly ToolSpec[], query: string, label: (spec: ToolSpec) => string): Found {
  const asked = [...new Set(words(query).filter((word) => !COMMON.has(word)))];
  const scored: Array<{ spec: ToolSpec; score: number; order: number }> = [];
  catalogue.forEach((spec, order) => {
    if (spec.offersTools) return;
    const name = words(spec.name.replace(/_/g, ' '));
    const from = words(label(spec));
    const said = words(spec.description);
    let score = 0;
    for (const word of asked) {
      if (name.some((w) => w === word)) score += 6;
      else if (name.some((w) => alike(w, word)) || spec.name.toLowerCase() === word) score += 4;
      if (from.some((w) => alike(w, word))) score += 3;
      if (said.some((w) => alike(w, word))) score += 1;
    }
    if (score > 0) scored.push({ spec, score, order });
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  // Tools that meet the query far less than the best are noise (a common word in a description).
  const best = scored[0]?.score ?? 0;
  scored.splice(0, scored.length, ...scored.filter(({ score }) => score * 2 > best));
  const tools = scored.slice(0, MAX_FOUND).map(({ spec }) => ({ name: spec.name, from: label(spec), does: firstSentence(spec.description) }));
  const found: Found = { tools };
  if (scored.length > MAX_FOUND) found.more = scored.length - MAX_FOUND;
  if (!tools.length) found.sources = [...new Set(catalogue.filter((spec) => !spec.offersTools).map(label))];
  return found;
}

/** The description's first sentence, on one line. */
function firstSentence(text: string): string {
  const flat = oneLine(text, 2_000);
  const end = flat.search(/[.!?](\s|$)/);
  return oneLine(end > 0 ? flat.slice(0, end + 1) : flat, DOES_MAX);
}

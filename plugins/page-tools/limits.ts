import { schemaPatternProblem } from '@/core/registry/safe-regex';
import { oneLine } from '@/core/registry/untrusted';
import type { WireCallResult, WireGroup, WireTool, WireToolList } from './wire';

/**
 * The page-tool limits, enforced in the background on whatever arrives over the port. The MAIN
 * world applies the same limits (`main-world/shared.ts` `LIMITS`) but runs inside the page, which
 * can skip it and forge the relay's events, so these are the ones that count.
 */
export const BACKGROUND_LIMITS = {
  toolsPerPage: 256,
  groups: 64,
  groupName: 200,
  groupDescription: 1000,
  toolName: 128,
  key: 200,
  title: 200,
  description: 4000,
  /** Characters of an input schema as JSON. */
  schemaChars: 32_000,
  /** Nesting depth of an input schema (objects and arrays). */
  schemaDepth: 24,
  problems: 20,
  problemChars: 300,
  /** Characters of one result's JSON (the registry caps the wrapped output at 60 000 later). */
  resultChars: 50_000,
  /** Characters of one error message. */
  errorChars: 2000,
  /**
   * Characters of one message from the MAIN world (its JSON string): a larger one is dropped by
   * the relay unread, so it never crosses to the background (in Firefox, the background shares its
   * thread with the sidebar).
   */
  messageChars: 4_000_000,
  /** Characters of descriptions and schemas in one list, in all: tools past it are dropped. */
  listChars: 2_000_000,
  /** Lists one tab's port may deliver: the first at once, then at most one per this many ms. */
  updateIntervalMs: 200,
} as const;

/** Nesting depth of a JSON-like value, without recursion (a page may send any depth). */
export function depthOf(value: unknown, stopAt: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > stopAt) return max;
    for (const child of Object.values(v as Record<string, unknown>)) if (child && typeof child === 'object') stack.push([child, d + 1]);
  }
  return max;
}

function jsonLength(value: unknown, max: number): number {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? Infinity : text.length;
  } catch {
    return max + 1; // Cycles, BigInt: not a schema.
  }
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Checks and cleans a list from a page, in one pass over it (linear in its size): at most
 * `toolsPerPage` tools, schemas within size and depth, and every string the model or the user
 * will see made one line, capped, and unable to mimic our delimiters (`oneLine`). What is dropped
 * is said in `problems`. Returns null when it is not a list at all.
 */
export function sanitizeList(raw: unknown): WireToolList | null {
  const list = raw as Partial<WireToolList> | null;
  if (!list || typeof list !== 'object' || !Array.isArray(list.groups)) return null;
  const L = BACKGROUND_LIMITS;
  const problems: string[] = [];
  const note = (text: string) => {
    if (problems.length < L.problems) problems.push(oneLine(text, L.problemChars));
  };
  if (Array.isArray(list.problems)) for (const p of list.problems.slice(0, L.problems)) if (typeof p === 'string') note(p);
  const groups: WireGroup[] = [];
  const keys = new Set<string>();
  let count = 0;
  let dropped = 0;
  let chars = 0;
  for (const g of list.groups.slice(0, L.groups)) {
    if (!g || typeof g !== 'object' || !Array.isArray(g.tools)) continue;
    const group: WireGroup = {
      name: oneLine(str(g.name), L.groupName),
      description: oneLine(str(g.description), L.groupDescription),
      source: g.source === 'webmcp' ? 'webmcp' : 'devtools',
      tools: [],
      ...(typeof g.frame === 'string' && g.frame ? { frame: oneLine(g.frame, 300) } : {}),
    };
    for (const t of g.tools as unknown[]) {
      if (count >= L.toolsPerPage) {
        dropped++;
        continue;
      }
      const tool = t as Partial<WireTool> | null;
      if (!tool || typeof tool !== 'object') continue;
      const key = str(tool.key);
      const name = str(tool.name);
      if (!key || key.length > L.key || keys.has(key) || !name) continue;
      if (name.length > L.toolName) {
        note(`A tool whose name is ${name.length} characters long was dropped (at most ${L.toolName}).`);
        continue;
      }
      const schema = tool.inputSchema;
      if (!schema || typeof schema !== 'object' || Array.isArray(schema)) continue;
      if (jsonLength(schema, L.schemaChars) > L.schemaChars) {
        note(`Tool "${name}" was dropped: its input schema is over ${L.schemaChars} characters.`);
        continue;
      }
      if (depthOf(schema, L.schemaDepth) > L.schemaDepth) {
        note(`Tool "${name}" was dropped: its input schema is nested deeper than ${L.schemaDepth} levels.`);
        continue;
      }
      // Patterns run on the linear-time engine, never a backtracking RegExp: one it cannot take
      // (lookaround, a backreference, too large) leaves the tool out.
      const patterns = schemaPatternProblem(schema);
      if (patterns) {
        note(`Tool "${name}" was dropped: ${patterns}.`);
        continue;
      }
      const description = str(tool.description);
      if (description.length > L.description) {
        note(`Tool "${name}" was dropped: its description is over ${L.description} characters.`);
        continue;
      }
      const size = description.length + jsonLength(schema, L.schemaChars);
      if (chars + size > L.listChars) {
        dropped++;
        continue;
      }
      chars += size;
      keys.add(key);
      count++;
      const annotations: Record<string, boolean> = {};
      if (tool.annotations && typeof tool.annotations === 'object') {
        for (const [k, v] of Object.entries(tool.annotations).slice(0, 16)) if (typeof v === 'boolean' && /^[A-Za-z]{1,40}$/.test(k)) annotations[k] = v;
      }
      group.tools.push({
        key,
        name: oneLine(name, L.toolName),
        description: oneLine(description, L.description),
        inputSchema: schema as Record<string, unknown>,
        ...(Object.keys(annotations).length ? { annotations } : {}),
        ...(typeof tool.title === 'string' && tool.title ? { title: oneLine(tool.title, L.title) } : {}),
        ...(tool.form && typeof tool.form === 'object' ? { form: { autosubmit: tool.form.autosubmit === true } } : {}),
      });
    }
    groups.push(group);
  }
  // The totals go first: they matter more than any single problem and must survive the cap.
  if (list.groups.length > L.groups) problems.unshift(`${list.groups.length - L.groups} more groups were dropped: a page may offer at most ${L.groups}.`);
  if (dropped) problems.unshift(`${dropped} more tools were dropped: a page may offer at most ${L.toolsPerPage}, with ${L.listChars} characters of descriptions and schemas in all.`);
  problems.length = Math.min(problems.length, L.problems);
  return {
    groups,
    problems,
    reason: oneLine(str(list.reason), 100),
    discoveryMs: typeof list.discoveryMs === 'number' && Number.isFinite(list.discoveryMs) ? list.discoveryMs : 0,
  };
}

/** A page's call result, checked and capped (its JSON at `resultChars`, its error at `errorChars`). */
export function capResult(value: unknown): WireCallResult {
  const r = value as WireCallResult | null;
  if (r && r.ok === true && typeof r.json === 'string') {
    const total = typeof r.cut?.totalChars === 'number' && Number.isFinite(r.cut.totalChars) ? r.cut.totalChars : r.json.length;
    if (r.json.length > BACKGROUND_LIMITS.resultChars || r.cut) {
      return { ok: true, json: r.json.slice(0, BACKGROUND_LIMITS.resultChars), cut: { totalChars: Math.max(total, r.json.length) } };
    }
    return { ok: true, json: r.json };
  }
  if (r && r.ok === false && typeof (r as { error?: unknown }).error === 'string') {
    const error = (r as { error: string }).error;
    return { ok: false, error: error.length > BACKGROUND_LIMITS.errorChars ? `${error.slice(0, BACKGROUND_LIMITS.errorChars)}…` : error };
  }
  return { ok: false, error: 'The page sent a malformed result.' };
}

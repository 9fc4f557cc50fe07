import { english, type Said } from '@/core/i18n/catalog';
import type { CallWords, GatedCall, ToolResult } from '@/core/registry/types';

/** How long the gate waits for a tool's `describe` before the card keeps its generic words. */
export const DESCRIBE_TIMEOUT_MS = 2_000;

/**
 * What the gate learned of one call from its tool's `describe` (`ToolAnnotations.describe`):
 * - `words`: what it will do, and whether that is sensitive;
 * - `none`: the tool has nothing more to say (no `describe`, or it gave nothing): generic words;
 * - `unknown`: it threw or took too long. The card keeps its generic words and the call is judged
 *   as sensitive (asked every time, never remembered): what it acts on could not be read, and a
 *   page that stalls the check must not make a payment look routine.
 */
export type CallFacts = { kind: 'words'; words: Said; sensitive: boolean; carries?: CallWords['carries']; hidden?: string[] } | { kind: 'none' } | { kind: 'unknown' };

/** The call's facts for `tabId`, bounded by `timeoutMs` (never throws). */
export async function callFacts(call: GatedCall, tabId: number | undefined, timeoutMs = DESCRIBE_TIMEOUT_MS): Promise<CallFacts> {
  if (!call.words) return { kind: 'none' };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
  try {
    const found = await Promise.race([call.words(tabId), late]);
    if (found === 'late') return { kind: 'unknown' };
    if (!found) return { kind: 'none' };
    return {
      kind: 'words',
      words: found.words,
      sensitive: found.sensitive === true,
      ...(found.carries ? { carries: found.carries } : {}),
      ...(found.hidden?.length ? { hidden: found.hidden } : {}),
    };
  } catch {
    return { kind: 'unknown' };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The facts a card showed still hold (same words, same verdict, the data going to the same places),
 * read again after the user's yes.
 */
export function sameFacts(before: CallFacts, after: CallFacts): boolean {
  if (before.kind !== 'words') return true;
  return (
    after.kind === 'words' &&
    after.sensitive === before.sensitive &&
    canonical(after.words) === canonical(before.words) &&
    canonical(after.carries ?? null) === canonical(before.carries ?? null)
  );
}

/** The result when what the call acts on changed between the card and the user's answer. */
export function factsChanged(tool: string, before: CallFacts, after: CallFacts): ToolResult {
  const was = before.kind === 'words' ? english(before.words) : '';
  const now = after.kind === 'words' ? ` Now: "${english(after.words)}".` : ' It could not be read again.';
  return {
    ok: false,
    code: 'denied',
    error: `Not run: what ${tool} acts on changed while the user was asked. The user allowed: "${was}".${now} Read the page again, and ask again only if it is still what the user wants.`,
  };
}

/** JSON with object keys sorted, so that equal values give equal text whatever their key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  ) ?? 'undefined';
}

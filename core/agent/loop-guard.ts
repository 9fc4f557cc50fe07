import { canonical } from '@/core/approvals/words';
import { said, type Said } from '@/core/i18n/catalog';
import type { ToolResult } from '@/core/registry/types';
import { UNTRUSTED_MARKER } from '@/core/registry/untrusted';

/** The third repeat stops the run; the second tells the model. */
export const REPEAT_LIMIT = 3;

/** What the model reads after the second identical call's result. */
export const REPEAT_NOTICE =
  'Note from Sidequest: you have made this exact call twice now, with the same result. A third time stops the run. Do something else: another step, another tool, or answer the user.';
/** What the model reads after the second identical read of a page with no action in between. */
export const REREAD_NOTICE =
  'Note from Sidequest: you have read this page twice now without acting, and it has not changed. A third read stops the run. Act on it, or answer the user.';

/** What the loop knows of one call it ran, for the guard. */
export interface CallSeen {
  name: string;
  input: unknown;
  /** Read-only and `pages` (after `forCall`): it read a tab. */
  readsPage: boolean;
  /** Not read-only: it may have changed something, so the next read of a page is a new one. */
  acting: boolean;
  /** The tab it concerned, as far as the loop knows (a named or bound tab; else the active one). */
  tab?: number;
}

/**
 * Loop detection for one run (one agent loop: the main agent's or a sub-agent's). Two rules, no
 * tool names (SECURITY.md, ARCHITECTURE.md → the loop):
 * 1. **The same call**: a call (other than a page read) with the same tool and the same arguments
 *    (canonical JSON, key order ignored) whose result is the same as that call's previous result. The second such call
 *    gets `REPEAT_NOTICE` after its result; the third stops the run. A different result starts the
 *    count again (scrolling, pressing Tab or paging on: the same call that gets somewhere is no loop).
 * 2. **The same page read**: a read-only call of a `pages` tool (any tool, any arguments) on the
 *    same tab whose result is the same as an earlier read's since the last acting call. The second
 *    gets `REREAD_NOTICE`; the third stops the run. Any acting call (not read-only) starts the
 *    count again (reading again after acting is how an agent checks its work). Identical results
 *    mean the same address and content (the outline carries both).
 * Each pattern's notice is given once (on its second call); the stop comes on its third.
 * "The same result" is what the model would read as the same: results are compared after
 * `sameForModel` takes out what differs on every call though nothing changed (envelope ids).
 */
export class LoopGuard {
  private readonly calls = new Map<string, { outcome: string; count: number }>();
  private readonly reads = new Map<string, number>();

  /** After a call ran: a `notice` for the model to read after its result, or the run's `stop`. */
  after(call: CallSeen, result: ToolResult): { notice?: string; stop?: Said } {
    if (!result.ok && result.code === 'aborted') return {};
    const outcome = digest(sameForModel(canonical(result.ok ? { ok: true, output: result.output, images: result.attachments?.map((a) => digest(a.data)) } : { ok: false, error: result.error })));
    if (call.acting) this.reads.clear();
    let count = 0;
    let reread = 0;
    if (!call.readsPage) {
      const key = `${call.name}\n${canonical(call.input ?? {})}`;
      const before = this.calls.get(key);
      count = before && before.outcome === outcome ? before.count + 1 : 1;
      this.calls.set(key, { outcome, count });
      if (count >= REPEAT_LIMIT) return { stop: said('runStatus.loopCall', { tool: call.name, count }) };
    } else {
      const readKey = `${call.tab ?? 'active'}\n${outcome}`;
      reread = (this.reads.get(readKey) ?? 0) + 1;
      this.reads.set(readKey, reread);
      if (reread >= REPEAT_LIMIT) return { stop: said('runStatus.loopRead', { tool: call.name, count: reread }) };
    }
    if (count === REPEAT_LIMIT - 1) return { notice: REPEAT_NOTICE };
    if (reread === REPEAT_LIMIT - 1) return { notice: REREAD_NOTICE };
    return {};
  }
}

const ENVELOPE_ID = new RegExp(`${UNTRUSTED_MARKER} (BEGIN|END) ([0-9a-f]{16})`, 'g');
/** A blob URL (`blob:<origin>/<uuid>`): a new one each time, for the same file. */
const BLOB_URL = /\bblob:([a-z][a-z0-9+.-]*:\/\/[^/\s"'<>]*)\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * A result's text (canonical JSON) as the loop guard compares it: with what a call makes fresh each
 * time though nothing changed taken out, so an unchanged page read twice, or the same error twice,
 * compares equal. Envelope ids (`untrusted.ts`, random per envelope) become their order of first
 * appearance (`#1`, `#2`: which markers pair stays visible); blob URLs (a new one for each read of
 * the same file) lose their random part. Everything else counts: element references (`e12`,
 * `@token.12`) are the same for the same element of the same document, and another document's are
 * another page.
 */
export function sameForModel(text: string): string {
  const ids = new Map<string, number>();
  return text
    .replace(ENVELOPE_ID, (_match, kind: string, id: string) => {
      if (!ids.has(id)) ids.set(id, ids.size + 1);
      return `${UNTRUSTED_MARKER} ${kind} #${ids.get(id)}`;
    })
    .replace(BLOB_URL, (_match, origin: string) => `blob:${origin}/#`);
}

/** A short digest of a value (53-bit FNV-style over its canonical JSON), so a run keeps no copies of big results. */
function digest(value: unknown): string {
  const text = typeof value === 'string' ? value : canonical(value);
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${text.length}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

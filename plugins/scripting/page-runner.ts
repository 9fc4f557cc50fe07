import { toJsonSafe } from '@/core/registry/json-safe';
import { COMPILE_USER_CODE_SOURCE, describeThrown, type CodeOutcome } from './user-code';

/** The global symbol under which the injected runner waits in the page's main world. */
export const RUNNER_KEY = 'sidequest.execute_script';

/**
 * Installs the runner in a page's main world (the injected script calls this). The page can see
 * it, as it sees everything in its own world: it only evaluates code in that same world, so it
 * gives the page nothing it did not have, and what it returns is treated as page data anyway.
 */
export function installPageRunner(win: Window & typeof globalThis): void {
  const key = Symbol.for(RUNNER_KEY);
  if ((win as unknown as Record<symbol, unknown>)[key]) return;
  Object.defineProperty(win, key, { value: (code: string) => runInPage(win, code), configurable: true });
}

/** Compiles and runs `code` in the page; the value comes back JSON-safe, errors as messages. */
export async function runInPage(win: Window & typeof globalThis, code: string): Promise<CodeOutcome> {
  let fn: () => Promise<unknown>;
  try {
    // The compiler is source text shared with the sandbox; `Function` is what a page's CSP may
    // forbid, and that is exactly the error to report.
    const compile = new win.Function(`return ${COMPILE_USER_CODE_SOURCE}`)() as (code: string) => () => Promise<unknown>;
    fn = compile(code);
  } catch (error) {
    if (isCspError(error)) {
      return { ok: false, kind: 'csp', error: describeThrown(error) };
    }
    return { ok: false, kind: 'syntax', error: describeThrown(error) };
  }
  try {
    const value = await fn.call(win);
    return { ok: true, value: toJsonSafe(value) };
  } catch (error) {
    return { ok: false, kind: isCspError(error) ? 'csp' : 'thrown', error: describeThrown(error) };
  }
}

function isCspError(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return e?.name === 'EvalError' || /Content Security Policy|unsafe-eval|blocked by CSP/i.test(e?.message ?? '');
}

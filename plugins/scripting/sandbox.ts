import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { shouldInterruptAfterDeadline } from 'quickjs-emscripten-core';
import { COMPILE_USER_CODE_SOURCE, JSON_SAFE_SOURCE, type CodeOutcome } from './user-code';

export interface SandboxLimits {
  /** CPU time one run may take before it is interrupted. */
  timeoutMs: number;
  /** Memory one run may allocate. */
  memoryBytes: number;
  /** Stack size, which bounds recursion. */
  stackBytes: number;
  /** Console lines kept per run, and characters per line. */
  maxLogs: number;
  maxLogChars: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 5_000,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 1024 * 1024,
  maxLogs: 100,
  maxLogChars: 2_000,
};

// Runs inside QuickJS: a console that records, the shared compiler and JSON-safe rules, and the
// entry point that returns everything as one JSON string (the only thing that leaves the VM).
const PRELUDE = String.raw`(function () {
  var logs = [];
  var MAX_LOGS = __MAX_LOGS__, MAX_CHARS = __MAX_CHARS__;
  ${COMPILE_USER_CODE_SOURCE}
  ${JSON_SAFE_SOURCE}
  function show(v) {
    if (typeof v === 'string') return v;
    try { var j = JSON.stringify(toJsonSafe(v)); return j === undefined ? String(v) : j; } catch (e) { return String(v); }
  }
  function record(level) {
    return function () {
      if (logs.length >= MAX_LOGS) return;
      var parts = [];
      for (var i = 0; i < arguments.length; i++) parts.push(show(arguments[i]));
      var line = (level === 'log' ? '' : level + ': ') + parts.join(' ');
      logs.push(line.length > MAX_CHARS ? line.slice(0, MAX_CHARS) + '…' : line);
    };
  }
  globalThis.console = { log: record('log'), info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug') };
  function describe(e) {
    if (e && typeof e === 'object' && 'message' in e) return (e.name || 'Error') + ': ' + e.message;
    try { return 'Uncaught ' + (typeof e === 'string' ? JSON.stringify(e) : String(e)); } catch (x) { return 'Uncaught exception'; }
  }
  globalThis.__sidequestRun = function (code) {
    var fn;
    try { fn = compileUserCode(code); } catch (e) {
      return Promise.resolve(JSON.stringify({ ok: false, kind: 'syntax', error: describe(e), logs: logs }));
    }
    return fn().then(
      function (value) { return JSON.stringify({ ok: true, value: toJsonSafe(value), logs: logs }); },
      function (e) { return JSON.stringify({ ok: false, kind: 'thrown', error: describe(e), logs: logs }); }
    );
  };
})();`;

/**
 * Pure computation for `execute_script` target "sandbox": QuickJS compiled to WebAssembly, so it
 * runs the same in Chrome's service worker and Firefox's background page. The code gets plain
 * ECMAScript and a console, nothing else: no DOM, no page, no network (no fetch, no timers), no
 * extension API. Each run gets a fresh runtime with a memory and stack limit; an interrupt
 * handler stops it after `timeoutMs` (an endless loop included). If the engine itself breaks, the
 * next run loads a fresh one: the sandbox recovers.
 */
export class Sandbox {
  private module: Promise<QuickJSWASMModule> | undefined;

  constructor(
    private readonly load: () => Promise<QuickJSWASMModule>,
    private readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
  ) {}

  async run(code: string): Promise<CodeOutcome> {
    this.module ??= this.load().catch((error) => {
      this.module = undefined;
      throw new Error(`The sandbox could not start: ${(error as Error).message}`);
    });
    const module = await this.module;
    let runtime: QuickJSRuntime | undefined;
    let context: QuickJSContext | undefined;
    try {
      runtime = module.newRuntime();
      runtime.setMemoryLimit(this.limits.memoryBytes);
      runtime.setMaxStackSize(this.limits.stackBytes);
      const deadline = Date.now() + this.limits.timeoutMs;
      runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
      context = runtime.newContext();
      const prelude = PRELUDE.replace('__MAX_LOGS__', String(this.limits.maxLogs)).replace('__MAX_CHARS__', String(this.limits.maxLogChars));
      context.unwrapResult(context.evalCode(prelude, 'prelude.js')).dispose();
      const started = context.evalCode(`__sidequestRun(${JSON.stringify(code)})`, 'execute_script.js');
      if (started.error) return this.failure(context, started.error, deadline);
      const promise = started.value;
      try {
        // Run the code's microtasks until its promise settles (there is nothing else to wait for:
        // no timers, no I/O).
        for (;;) {
          const state = context.getPromiseState(promise);
          if (state.type === 'fulfilled') {
            const json = context.getString(state.value);
            if (!state.notAPromise) state.value.dispose();
            return this.classify(JSON.parse(json) as CodeOutcome, deadline);
          }
          if (state.type === 'rejected') return this.failure(context, state.error, deadline);
          const jobs = runtime.executePendingJobs();
          if (jobs.error) return this.failure(context, jobs.error, deadline);
          if (jobs.value === 0) {
            return {
              ok: false,
              kind: 'pending',
              error:
                'The code awaits something that never settles. The sandbox has no timers, network or events: only promises the code resolves itself can be awaited.',
            };
          }
        }
      } finally {
        promise.dispose();
      }
    } catch (error) {
      // The engine itself failed (out of memory inside WebAssembly, a trap): start afresh next time.
      this.module = undefined;
      context = undefined;
      runtime = undefined;
      return { ok: false, kind: 'memory', error: `The sandbox failed and was restarted: ${(error as Error).message}` };
    } finally {
      try {
        context?.dispose();
        runtime?.dispose();
      } catch {
        this.module = undefined;
      }
    }
  }

  /** An interrupt or out-of-memory error the code's own async function turned into a rejection. */
  private classify(outcome: CodeOutcome, deadline: number): CodeOutcome {
    if (outcome.ok || outcome.kind !== 'thrown') return outcome;
    const [name, ...rest] = outcome.error.split(': ');
    const classified = this.describe(name, rest.join(': '), deadline);
    return { ...classified, ...(outcome.logs?.length ? { logs: outcome.logs } : {}) } as CodeOutcome;
  }

  private failure(context: QuickJSContext, handle: QuickJSHandle, deadline: number): CodeOutcome {
    let error: { name?: string; message?: string } | string;
    try {
      error = context.dump(handle) as typeof error;
    } finally {
      handle.dispose();
    }
    const name = typeof error === 'object' && error ? error.name : undefined;
    const message = typeof error === 'object' && error ? error.message ?? '' : String(error);
    return this.describe(name, message, deadline);
  }

  private describe(name: string | undefined, message: string, deadline: number): CodeOutcome {
    if (name === 'InternalError' && /interrupted/i.test(message) && Date.now() >= deadline) {
      return {
        ok: false,
        kind: 'timeout',
        error: `The code ran longer than ${this.limits.timeoutMs / 1000} s and was stopped (an endless loop?). The sandbox is for short computations.`,
      };
    }
    if (/out of memory/i.test(message)) {
      return { ok: false, kind: 'memory', error: `The code used more than ${this.limits.memoryBytes / 1024 / 1024} MB of memory and was stopped.` };
    }
    if (/stack overflow/i.test(message)) {
      return { ok: false, kind: 'thrown', error: `${name ?? 'InternalError'}: ${message} (too deep a recursion)` };
    }
    return { ok: false, kind: 'thrown', error: name ? `${name}: ${message}` : message };
  }
}

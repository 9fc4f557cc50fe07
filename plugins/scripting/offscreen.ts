import { browser } from 'wxt/browser';
import { defineOffscreenGroup } from '@/core/offscreen/jobs';
import { DEFAULT_SANDBOX_LIMITS } from './sandbox';
import type { SandboxWorkerReply, SandboxWorkerRequest } from './sandbox-worker';
import type { CodeOutcome } from './user-code';

/** The worker's script in the build (entrypoints/scripting-sandbox-worker.ts). */
const WORKER_FILE = '/scripting-sandbox-worker.js' as const;

/**
 * Past the sandbox's own time limit (its interrupt handler stops the code), how long the host
 * waits before it ends the worker itself: loading QuickJS the first time, or an engine that no
 * longer answers.
 */
const GRACE_MS = 10_000;

/** Sandbox workers: one kept warm between runs; a run that finds it busy gets its own. */
export class SandboxWorkers {
  private idle: Worker | undefined;
  private nextId = 1;

  constructor(
    private readonly spawn: () => Worker,
    private readonly limitMs = DEFAULT_SANDBOX_LIMITS.timeoutMs + GRACE_MS,
  ) {}

  run(code: string): Promise<CodeOutcome> {
    const worker = this.idle ?? this.spawn();
    this.idle = undefined;
    const id = this.nextId++;
    return new Promise<CodeOutcome>((resolve) => {
      const finish = (outcome: CodeOutcome, keep: boolean) => {
        clearTimeout(timer);
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        if (keep && !this.idle) this.idle = worker;
        else worker.terminate();
        resolve(outcome);
      };
      const onMessage = (event: MessageEvent<SandboxWorkerReply>) => {
        if (event.data?.id === id) finish(event.data.outcome, true);
      };
      const onError = (event: ErrorEvent) => {
        event.preventDefault?.();
        finish({ ok: false, kind: 'memory', error: `The sandbox failed and was restarted: ${event.message || 'its worker stopped'}` }, false);
      };
      // The engine's interrupt handler normally stops the code in time; this ends the worker
      // when it does not (the worker is thrown away, and the next run starts a fresh one).
      const timer = setTimeout(
        () => finish({ ok: false, kind: 'timeout', error: `The code ran longer than ${DEFAULT_SANDBOX_LIMITS.timeoutMs / 1000} s and was stopped (an endless loop?). The sandbox is for short computations.` }, false),
        this.limitMs,
      );
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      worker.postMessage({ id, code } satisfies SandboxWorkerRequest);
    });
  }
}

let workers: SandboxWorkers | undefined;

/**
 * The scripting plugin's sandbox runs in a dedicated worker, started from a document: Firefox's
 * background page itself, or Chrome's offscreen document (a service worker cannot start workers).
 * A script busy for its full 5 s then never holds up the background's messages and other tools.
 */
export const scriptingJobs = defineOffscreenGroup({
  name: 'scripting',
  runsHere: () => typeof Worker === 'function',
  jobs: {
    runSandbox({ code }: { code: string }): Promise<CodeOutcome> {
      workers ??= new SandboxWorkers(() => new Worker(browser.runtime.getURL(WORKER_FILE)));
      return workers.run(code);
    },
  },
});

import { loadQuickJS } from './quickjs';
import { Sandbox } from './sandbox';
import type { CodeOutcome } from './user-code';

/** What the host posts to a sandbox worker, and what comes back. */
export interface SandboxWorkerRequest {
  id: number;
  code: string;
}
export interface SandboxWorkerReply {
  id: number;
  outcome: CodeOutcome;
}

interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<SandboxWorkerRequest>) => void): void;
  postMessage(message: SandboxWorkerReply): void;
}

/**
 * The inside of a sandbox worker (entrypoints/scripting-sandbox-worker.ts): one QuickJS engine,
 * loaded on the first run and kept, running one request at a time as it arrives.
 */
export function installSandboxWorker(scope: WorkerScope): void {
  const sandbox = new Sandbox(loadQuickJS);
  let queue = Promise.resolve();
  scope.addEventListener('message', (event) => {
    const { id, code } = event.data ?? {};
    if (typeof id !== 'number' || typeof code !== 'string') return;
    queue = queue.then(async () => {
      let outcome: CodeOutcome;
      try {
        outcome = await sandbox.run(code);
      } catch (error) {
        outcome = { ok: false, kind: 'memory', error: `The sandbox failed: ${(error as Error)?.message ?? error}` };
      }
      scope.postMessage({ id, outcome });
    });
  });
}

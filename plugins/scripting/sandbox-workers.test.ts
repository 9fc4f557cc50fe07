import { describe, expect, test } from 'vitest';
import { SandboxWorkers } from './offscreen';
import type { SandboxWorkerRequest } from './sandbox-worker';

/** A stand-in for a dedicated worker: answers with `answer(code)`, or never when it returns undefined. */
class FakeWorker extends EventTarget {
  terminated = false;
  runs = 0;
  constructor(private readonly answer: (code: string) => unknown) {
    super();
  }
  postMessage({ id, code }: SandboxWorkerRequest) {
    this.runs++;
    const outcome = this.answer(code);
    if (outcome === 'crash') setTimeout(() => this.dispatchEvent(Object.assign(new Event('error'), { message: 'RuntimeError: unreachable' })));
    else if (outcome !== undefined) setTimeout(() => this.dispatchEvent(new MessageEvent('message', { data: { id, outcome } })));
  }
  terminate() {
    this.terminated = true;
  }
}

describe('sandbox workers (the host side)', () => {
  const answer = (code: string) => (code === 'hang' ? undefined : code === 'crash' ? 'crash' : { ok: true, value: code.length });

  test('a run\'s answer comes back, and the worker is kept warm for the next run', async () => {
    const spawned: FakeWorker[] = [];
    const workers = new SandboxWorkers(() => spawned[spawned.push(new FakeWorker(answer)) - 1] as unknown as Worker, 200);
    expect(await workers.run('abc')).toEqual({ ok: true, value: 3 });
    expect(await workers.run('abcd')).toEqual({ ok: true, value: 4 });
    expect(spawned).toHaveLength(1);
    expect(spawned[0]!.runs).toBe(2);
  });

  test('two runs at once get two workers', async () => {
    const spawned: FakeWorker[] = [];
    const workers = new SandboxWorkers(() => spawned[spawned.push(new FakeWorker(answer)) - 1] as unknown as Worker, 200);
    expect(await Promise.all([workers.run('a'), workers.run('bb')])).toEqual([{ ok: true, value: 1 }, { ok: true, value: 2 }]);
    expect(spawned).toHaveLength(2);
    // One is kept, the other ended.
    expect(spawned.filter((w) => w.terminated)).toHaveLength(1);
  });

  test('a worker that does not answer in time is ended, and the next run starts a fresh one', async () => {
    const spawned: FakeWorker[] = [];
    const workers = new SandboxWorkers(() => spawned[spawned.push(new FakeWorker(answer)) - 1] as unknown as Worker, 50);
    expect(await workers.run('hang')).toMatchObject({ ok: false, kind: 'timeout', error: expect.stringMatching(/ran longer than 5 s and was stopped/) });
    expect(spawned[0]!.terminated).toBe(true);
    expect(await workers.run('ok')).toEqual({ ok: true, value: 2 });
    expect(spawned).toHaveLength(2);
  });

  test('a worker that crashes is a clear failure, and is replaced', async () => {
    const spawned: FakeWorker[] = [];
    const workers = new SandboxWorkers(() => spawned[spawned.push(new FakeWorker(answer)) - 1] as unknown as Worker, 200);
    expect(await workers.run('crash')).toMatchObject({ ok: false, error: expect.stringMatching(/sandbox failed and was restarted: RuntimeError: unreachable/) });
    expect(spawned[0]!.terminated).toBe(true);
    expect(await workers.run('x')).toEqual({ ok: true, value: 1 });
  });
});

import { browser } from 'wxt/browser';
import { contextTimer } from '@/core/agent/context-timing';
import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/**
 * Benchmark-only messages (`bench/`): per-step timings, tool calls and the gate's decision timed.
 * Registered only in bench builds (`startBackground({ bench })`, from `import.meta.env.MODE`).
 */
export function registerBench(ctx: BackgroundContext): () => void {
  const { registry, gate, stepTimer, handle } = ctx;
  if (!stepTimer) throw new Error('The benchmark messages need the step timer of a bench build.');
  contextTimer.on = true;
  return disposeAll(
    handle('getStepTimings', () => stepTimer.recent()),
    handle('getContextTimings', ({ reset }) => {
      const timings = [...contextTimer.timings];
      // The baseline: one JSON.stringify of the latest request's whole prompt, timed here (off the step).
      const prompt = contextTimer.lastPrompt;
      const stringify: number[] = [];
      let chars = 0;
      for (let i = 0; prompt && i < 5; i++) {
        const started = performance.now();
        chars = JSON.stringify(prompt).length;
        stringify.push(performance.now() - started);
      }
      if (reset) {
        contextTimer.timings.length = 0;
        contextTimer.lastPrompt = undefined;
      }
      return { timings, stringify, chars };
    }),
    handle('measureToolCalls', async ({ name, input, iterations }) => {
      const durations: number[] = [];
      let ok = 0;
      let lastError: string | undefined;
      let lastOutput: unknown;
      for (let i = 0; i < Math.min(Math.max(iterations, 1), 10_000); i++) {
        const started = performance.now();
        // The registry alone, no gate: the benchmark times the tool calls themselves.
        const result = await registry.invoke(name, input);
        durations.push(performance.now() - started);
        if (result.ok) {
          ok++;
          lastOutput = result.output;
        } else lastError = result.error;
      }
      return { durations, ok, lastError, lastOutput };
    }),
    handle('measureExecuteScript', async ({ tabId, iterations }) => {
      const durations: number[] = [];
      for (let i = 0; i < Math.min(Math.max(iterations, 1), 10_000); i++) {
        const started = performance.now();
        await browser.scripting.executeScript({ target: { tabId }, func: () => 1 });
        durations.push(performance.now() - started);
      }
      return { durations };
    }),
    handle('measureGate', async ({ name, input, iterations }) => {
      const spec = registry.describe(name);
      if (!spec) throw new Error(`There is no tool ${name}.`);
      const call = { name, input, spec, conversationId: 'bench:gate' };
      const n = Math.min(Math.max(iterations, 1), 100_000);
      const durations: number[] = [];
      const started = performance.now();
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const verdict = await gate.check(call);
        durations.push(performance.now() - t0);
        if (!verdict.ok) throw new Error(`The gate refused ${name}: ${verdict.result.ok ? '' : verdict.result.error}`);
        gate.record(call, verdict.note, { ok: true, output: null });
      }
      return { durations, mean: (performance.now() - started) / n };
    }),
  );
}

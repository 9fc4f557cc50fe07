import { browser } from 'wxt/browser';
import { contextTimer } from '@/core/agent/context-timing';
import { stampMessage } from '@/core/storage/conversations';
import type { AssistantMessage, ToolMessage } from '@/core/storage/db';
import type { BackgroundContext } from '../context';
import { disposeAll } from './registrar';

/**
 * Benchmark-only messages (`bench/`): per-step timings, tool calls and the gate's decision timed.
 * Registered only in bench builds (`startBackground({ bench })`, from `import.meta.env.MODE`).
 */
export function registerBench(ctx: BackgroundContext): () => void {
  const { registry, gate, stepTimer, handle, store } = ctx;
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
    handle('measureStepWrite', async ({ iterations, pauseMs }) => {
      // A step's write as the loop issues it (`putMany`: the answer with its call, and the tool's
      // result), alone, from the background, into a conversation of its own that is deleted after.
      const conversationId = `bench:write:${crypto.randomUUID()}`;
      const durations: number[] = [];
      try {
        for (let i = 0; i < Math.min(Math.max(iterations, 1), 1000); i++) {
          const callId = `call-${i}`;
          const answer = stampMessage<AssistantMessage>({ role: 'assistant', conversationId, text: '', status: 'complete', toolCalls: [{ id: callId, name: 'bench_tool', input: {} }], model: 'bench' }, 2 * i);
          const output = [{ tab_id: i, title: 'x'.repeat(200), url: 'https://example.com/', active: true }];
          const result = stampMessage<ToolMessage>({ role: 'tool', conversationId, toolCallId: callId, toolName: 'bench_tool', input: {}, status: 'done', result: { ok: true, output } }, 2 * i + 1);
          const started = performance.now();
          await store.putMany([answer, result]);
          durations.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(pauseMs, 0), 1000)));
        }
      } finally {
        await store.delete(conversationId);
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

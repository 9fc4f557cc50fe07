import { offeredTabs } from './offered-tabs';
import { OfferedTools, sourceLabel } from './offered-tools';
import type { AssistantMessage, ToolCall, ToolMessage } from '@/core/storage/db';
import type { TraceSink } from '@/core/data/trace';
import type { Said } from '@/core/i18n/catalog';
import { describeProviderError, type RunError } from './errors';
import { callMetadata, toModelPrompt } from './history';
import type { LoopOptions } from './loop-options';
import type { Pricing, RequestTimings, Usage } from './provider';
import type { ToolSpec } from '@/core/registry/types';
import { LoopGuard, type CallSeen } from './loop-guard';
import { runToolCall } from './tool-call';
import { ToolQueue } from './tool-queue';
import { Announcements, NOT_RUN, notRun, StepWriter, ThrottledSaver, type Transcript } from './transcript';

export type { LoopOptions, RunMeter } from './loop-options';
export type { Transcript } from './transcript';

/** How often streamed text is written to IndexedDB while it arrives. */
const STREAM_SAVE_INTERVAL_MS = 250;
/**
 * How long a step's answer and its finished results may wait to be written while tools still
 * run: a quick tool's answer and result go in one transaction when it ends; a slow one's answer
 * and call are on disk this soon after it starts.
 */
export const STEP_WRITE_DELAY_MS = 50;
/**
 * The longest the pages wait for a step's changes (a tool's result, the next answer's start) when
 * no request leaves first: normally they are sent right after the next request has left.
 */
const ANNOUNCE_WAIT_MS = 20;

/**
 * How a loop ended: with a final answer, stopped by the user, a provider error, the step limit, the
 * token budget, or the loop guard (`loop`: the same call or page read a third time; `notice` says which).
 */
export type LoopOutcome =
  | { status: 'done'; answer: AssistantMessage }
  | { status: 'stopped' }
  | { status: 'loop'; notice: Said }
  | { status: 'error'; error: RunError }
  | { status: 'step_limit'; lastText: string }
  | { status: 'budget'; used: number; limit: number };

/**
 * One agent loop: stream the model's answer, run the tools it asks for (each as soon as the answer
 * names it), append the results, and repeat until it answers without tools, the signal aborts, a
 * provider error, or the step limit. Every step is saved through the transcript before the next
 * one starts. Used by the main chat (`AgentRunner`) and by sub-agents (in-memory transcript,
 * narrowed tools).
 */
export async function runAgentLoop(options: LoopOptions): Promise<LoopOutcome> {
  const { client, registry, transcript, history, system, maxSteps, signal, observer } = options;
  const conversationId = transcript.conversationId;
  // The previous step's writes, still under way: the next request waits for them (`beforeSend`)
  // but building it overlaps them.
  let pendingWrite: Promise<unknown> | undefined;
  let lastText = '';
  const meter = options.meter ?? { used: 0, limit: options.tokenBudget };
  // Repeats within this run: told once, stopped on the third (loop-guard.ts).
  const guard = new LoopGuard();
  let looping: Said | undefined;
  // Where this run's requests go: tool calls' provider metadata is sent back there only.
  const modelOf = { type: client.config.type ?? 'openai-compatible', model: client.config.model };
  const news = new Announcements(transcript);
  // The tools each request offers in full; the rest wait in the catalogue (offered-tools.ts).
  const offer = new OfferedTools({
    isFinder: (name) => Boolean(registry.describe(name)?.offersTools),
    label: (spec) => sourceLabel(spec, registry.getPlugin(spec.pluginId)?.name),
  });
  try {
    return await steps();
  } finally {
    news.send();
  }

  /** Runs one call and keeps its result on its message, marked for the step's write. */
  async function runOne(call: ToolCall, toolMessage: ToolMessage, writer: StepWriter, catalogue: readonly ToolSpec[]): Promise<void> {
    news.add(toolMessage, ANNOUNCE_WAIT_MS);
    const startedAt = performance.now();
    observer?.toolStarted(startedAt);
    const seen: Partial<CallSeen> = {};
    const toolContext = { ...options.toolContext, catalogue };
    let result = await runToolCall({ ...options, toolContext, transcript: announcing(transcript, news) }, call, toolMessage, seen);
    const repeat = guard.after({ name: call.name, input: call.input, readsPage: Boolean(seen.readsPage), acting: Boolean(seen.acting), tab: seen.tab }, result);
    if (repeat.notice) result = { ...result, notice: [result.notice, repeat.notice].filter(Boolean).join('\n\n') };
    looping ??= repeat.stop;
    const endedAt = performance.now();
    observer?.toolEnded(endedAt);
    toolMessage.status = result.ok ? 'done' : 'error';
    toolMessage.result = result;
    toolMessage.durationMs = Math.round(endedAt - startedAt);
    writer.mark(toolMessage);
    writer.later();
    // Within a moment even while the answer still streams (a call given early): normally the
    // next request leaves first, and the step's changes go out together then.
    news.add(toolMessage, ANNOUNCE_WAIT_MS);
  }

  async function steps(): Promise<LoopOutcome> {
    for (let step = 0; step < maxSteps; step++) {
      if (meter.limit !== undefined && step > 0 && meter.used >= meter.limit) {
        await pendingWrite;
        return { status: 'budget', used: meter.used, limit: meter.limit };
      }
      // Prepared, not written: the request leaves at once; the first save writes it.
      const assistant = await transcript.prepare<AssistantMessage>({
        role: 'assistant',
        conversationId,
        text: '',
        status: 'streaming',
        toolCalls: [],
        model: client.config.model,
      });
      news.add(assistant, ANNOUNCE_WAIT_MS);
      options.onStreaming?.(assistant);
      const saver = new ThrottledSaver(transcript, STREAM_SAVE_INTERVAL_MS);
      const timings: RequestTimings = {};
      const trace: TraceSink | undefined = transcript.keepTrace ? { attempts: 0 } : undefined;
      let failure: RunError | undefined;
      // The step's tool calls start as the answer names them, not after its last event (the
      // package's pipeline takes about a millisecond to end a stream): see `ToolQueue`.
      const writer = new StepWriter(transcript, STEP_WRITE_DELAY_MS);
      const queue = new ToolQueue();
      // What the agent may use now; the request offers part of it (the rest is found when needed).
      const available = registry.listTools(options.allow, await offeredTabs(registry, history, options.toolContext?.tabId));
      // Each call's message, prepared in the order asked (their places in the conversation follow it).
      const preparing: Array<Promise<ToolMessage>> = [];
      const startCall = (call: ToolCall) => {
        const spec = registry.describe(call.name);
        const message = (preparing.at(-1) ?? Promise.resolve()).then(() =>
          transcript.prepare<ToolMessage>({
            role: 'tool',
            conversationId,
            toolCallId: call.id,
            toolName: call.name,
            input: call.input,
            status: 'running',
            pluginId: spec?.pluginId,
            origin: spec?.origin,
          }),
        );
        // Awaited by its run and at the step's end; never an unhandled rejection meanwhile.
        message.catch(() => undefined);
        preparing.push(message);
        queue.add(Boolean(spec?.concurrent), async () => {
          const toolMessage = await message;
          // The answer broke off, the user stopped, or the loop guard ended the run: the calls
          // not started by then do not run.
          const why = signal.aborted ? NOT_RUN.stopped : looping ? NOT_RUN.loop : failure ? NOT_RUN.brokenOff : undefined;
          if (why) {
            notRun(toolMessage, why);
            return;
          }
          // The answer (still streaming, or complete) and this call are on disk while it runs, if
          // it takes a while; a quick one's go with its result. The pages show a call from its
          // answer's list of calls: the answer is told again with this one in it.
          writer.mark(assistant, toolMessage);
          writer.later();
          news.add(assistant);
          await runOne(call, toolMessage, writer, available);
        });
      };
      try {
        for await (const event of client.stream({
          prompt: toModelPrompt(system, history, modelOf),
          tools: offer.of(available, history),
          callable: available,
          signal,
          timings,
          beforeSend: pendingWrite,
          // The pages hear of the last step's results once the request has left.
          sent: () => news.send(),
          trace,
        })) {
          if (event.type === 'text') {
            // What was queued before (the last step's results) reaches the pages before this piece.
            news.send();
            const offset = assistant.text.length;
            assistant.text += event.text;
            transcript.delta(assistant.id, event.text, offset);
            saver.schedule(assistant);
          } else if (event.type === 'tool-call') {
            const providerMetadata = callMetadata(modelOf, event.providerMetadata);
            const known = assistant.toolCalls.find((c) => c.id === event.id);
            if (known) {
              // Given early, now with what the provider attached at the end.
              if (providerMetadata) known.providerMetadata = providerMetadata;
              continue;
            }
            const call: ToolCall = { id: event.id, name: event.name, input: event.input, invalid: event.invalid, ...(providerMetadata && { providerMetadata }) };
            assistant.toolCalls.push(call);
            startCall(call);
          } else if (event.type === 'finish') {
            assistant.usage = withCost(event.usage, client.config.pricing);
            if (event.by) assistant.by = event.by;
            meter.used += (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0);
          }
        }
      } catch (error) {
        if (!signal.aborted) failure = describeProviderError(error, client.config.baseUrl);
      }
      if (observer) {
        observer.requestSent(timings.requestSentAt, timings.fetchCalledAt);
        observer.streamEnded(timings.lastByteAt, performance.now(), timings.bodyEndAt);
      }
      options.onStreaming?.(undefined);
      // Kept beside the answer, off the step's path: once the next request has left (a failed
      // write loses only the trace).
      if (trace) news.defer(() => void transcript.keepTrace?.(assistant, trace, [client.config.apiKey]));
      await saver.flush();
      // A failed write of the last step ends the run as an internal error (the caller catches it).
      await pendingWrite;

      if (signal.aborted || failure) {
        // A call that had started when the answer broke off ends first, and is kept with its result.
        await queue.settled();
        const toolMessages = await Promise.all(preparing);
        assistant.status = signal.aborted ? 'stopped' : 'error';
        writer.mark(assistant, ...toolMessages);
        await writer.flush();
        history.push(assistant, ...toolMessages);
        news.add(assistant);
        for (const message of toolMessages) news.add(message);
        return signal.aborted ? { status: 'stopped' } : { status: 'error', error: failure! };
      }

      // The finished answer and its tool calls go in the step's one write, with the tools' results
      // when they are quick (`StepWriter`); the next request waits for it.
      assistant.status = 'complete';
      if (assistant.text) lastText = assistant.text;
      writer.mark(assistant);
      // Told within a moment, not at once: a quick tool's whole step then reaches the pages as one
      // update once the next request has left, instead of a page's render while the tool runs.
      news.add(assistant, ANNOUNCE_WAIT_MS);
      history.push(assistant);
      if (!assistant.toolCalls.length) {
        await writer.flush();
        return { status: 'done', answer: assistant };
      }
      // A tool still running after a moment: its answer and call are written meanwhile.
      writer.later();
      observer?.stepPersisted(performance.now());
      await queue.settled();
      const toolMessages = await Promise.all(preparing);
      history.push(...toolMessages);
      if (signal.aborted || looping) {
        writer.mark(...toolMessages);
        await writer.flush();
        for (const message of toolMessages) news.add(message);
        return looping && !signal.aborted ? { status: 'loop', notice: looping } : { status: 'stopped' };
      }
      // The step's last write: the answer with its results, or what came after a slow tool's start.
      pendingWrite = writer.flush().then(() => observer?.writesDone(performance.now()));
      // Sent once the next request has left (or soon, if none does).
      news.soon(ANNOUNCE_WAIT_MS);
    }
    await pendingWrite;
    return { status: 'step_limit', lastText };
  }
}

/** The transcript a tool call reports through: its live activity goes out after the announcements queued before it. */
function announcing(transcript: Transcript, news: Announcements): Transcript {
  if (!transcript.toolActivity) return transcript;
  return {
    ...transcript,
    conversationId: transcript.conversationId,
    toolActivity: (message, event) => {
      news.send();
      transcript.toolActivity!(message, event);
    },
  };
}

/** The usage with its estimated cost, where the profile has prices. */
export function withCost(usage: Usage | undefined, pricing: Pricing | undefined): Usage | undefined {
  if (!usage || !pricing) return usage;
  const cost = ((usage.inputTokens ?? 0) * pricing.inputPerMTok + (usage.outputTokens ?? 0) * pricing.outputPerMTok) / 1_000_000;
  return { ...usage, costUsd: cost };
}

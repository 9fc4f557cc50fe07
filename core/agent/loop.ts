import type { ToolRegistry } from '@/core/registry/registry';
import type { ToolResult } from '@/core/registry/types';
import type { ConversationStore } from '@/core/storage/conversations';
import { DEFAULT_TITLE, titleFrom } from '@/core/storage/conversations';
import type {
  AssistantMessage,
  Conversation,
  StoredMessage,
  ToolMessage,
  UserMessage,
} from '@/core/storage/db';
import { describeProviderError, ProviderError, type RunError } from './errors';
import { toModelPrompt } from './history';
import { systemPrompt } from './prompt';
import type { ModelClient, RequestTimings } from './provider';

/** What the loop tells the UI while it works. */
export interface AgentEvents {
  conversation(conversation: Conversation): void;
  message(message: StoredMessage): void;
  /** `offset` is the length of the message's text before this piece. */
  delta(conversationId: string, messageId: string, text: string, offset: number): void;
}

/**
 * Time the extension itself adds around one tool step, in ms: from the model's last byte to the
 * tool starting, and from the tool ending to the next model request leaving.
 */
export interface StepTiming {
  toolStartDelay: number;
  nextRequestDelay: number;
  /** Where the time goes, in ms: last byte → stream loop ends → step write issued → tool starts; tool ends → request sent (the writes are waited for). */
  parts: { streamEnd: number; persist: number; toStart: number; toRequest: number; written: number };
}

export interface AgentDeps {
  store: ConversationStore;
  registry: ToolRegistry;
  /** Builds the model client from the current settings; throws `ProviderError` if it cannot. */
  getClient(): Promise<ModelClient>;
  getMaxSteps(): Promise<number>;
  events: AgentEvents;
  /** Keeps the background alive while a run goes on; returns the function that lets it go. */
  keepAlive?(): () => void;
  onStepTiming?(timing: StepTiming): void;
}

/** How often streamed text is written to IndexedDB while it arrives. */
const STREAM_SAVE_INTERVAL_MS = 250;

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Runs agent loops in the background: stream the model's answer, run the tools it asks for,
 * send the results back, and repeat until it answers without tools, the user stops it, or the
 * step limit is reached. Every message and tool result is written to IndexedDB before the next
 * step, so a worker the browser stops loses nothing that was finished.
 */
export class AgentRunner {
  private readonly runs = new Map<string, Run>();
  /** The answer being streamed in each running conversation, fresher than what is saved. */
  private readonly streaming = new Map<string, AssistantMessage>();

  constructor(private readonly deps: AgentDeps) {}

  isRunning(conversationId: string): boolean {
    return this.runs.has(conversationId);
  }

  runningIds(): Set<string> {
    return new Set(this.runs.keys());
  }

  /** The message being streamed now, if any: a page that opens mid-answer starts from it. */
  liveMessage(conversationId: string): AssistantMessage | undefined {
    const message = this.streaming.get(conversationId);
    return message && { ...message, toolCalls: [...message.toolCalls] };
  }

  /** Resolves when the conversation's current run (if any) has ended. */
  async settled(conversationId: string): Promise<void> {
    await this.runs.get(conversationId)?.done;
  }

  /** Saves the user's message and starts a run. The message is saved even if the run then fails. */
  async send(conversationId: string, text: string): Promise<UserMessage> {
    const clean = text.trim();
    if (!clean) throw new Error('The message is empty.');
    if (this.isRunning(conversationId)) {
      throw new Error('The agent is still working in this conversation: wait for it or press Stop first.');
    }
    const { store, events } = this.deps;
    const conversation = await store.getOrThrow(conversationId);
    const message = await store.append<UserMessage>({ role: 'user', conversationId, text: clean });
    events.message(message);
    const retitle = !conversation.titleEdited && conversation.title === DEFAULT_TITLE;
    await this.start(conversationId, retitle ? { title: titleFrom(clean) } : {});
    return message;
  }

  /** Continues a run that was stopped, interrupted or failed, from what was saved. */
  async resume(conversationId: string): Promise<void> {
    if (this.isRunning(conversationId)) return;
    await this.deps.store.getOrThrow(conversationId);
    await this.start(conversationId);
  }

  /** Stops the conversation's run; what was streamed so far is kept. */
  stop(conversationId: string): boolean {
    const run = this.runs.get(conversationId);
    if (!run) return false;
    run.controller.abort(new Error('Stopped by the user.'));
    return true;
  }

  /** Marks the conversation running (with any other change to it) and starts its run. */
  private async start(conversationId: string, patch: Partial<Conversation> = {}): Promise<void> {
    const controller = new AbortController();
    const run: Run = { controller, done: Promise.resolve() };
    this.runs.set(conversationId, run);
    try {
      await this.setStatus(conversationId, { ...patch, status: 'running', error: undefined });
    } catch (error) {
      this.runs.delete(conversationId);
      throw error;
    }
    const release = this.deps.keepAlive?.();
    run.done = this.run(conversationId, controller.signal)
      .catch((error) => console.error('[sidequest] agent run failed unexpectedly', error))
      .finally(() => {
        this.runs.delete(conversationId);
        release?.();
      });
  }

  private async setStatus(conversationId: string, patch: Partial<Conversation>): Promise<void> {
    const conversation = await this.deps.store.update(conversationId, patch);
    this.deps.events.conversation(conversation);
  }

  private async run(conversationId: string, signal: AbortSignal): Promise<void> {
    try {
      await this.runSteps(conversationId, signal);
    } catch (error) {
      // Storage failed or a bug: the conversation must not stay "running" forever.
      const message = error instanceof Error ? error.message : String(error);
      await this.setStatus(conversationId, {
        status: 'error',
        error: { kind: 'unknown', message: `The run stopped because of an internal error: ${message}` },
      }).catch(() => undefined);
      throw error;
    }
  }

  private async runSteps(conversationId: string, signal: AbortSignal): Promise<void> {
    const { store, registry, events } = this.deps;
    let client: ModelClient;
    let maxSteps: number;
    try {
      client = await this.deps.getClient();
      maxSteps = await this.deps.getMaxSteps();
    } catch (error) {
      const info = error instanceof ProviderError ? error.info : describeProviderError(error, '');
      await this.setStatus(conversationId, { status: 'error', error: info });
      return;
    }
    await this.setStatus(conversationId, { model: client.config.model });
    const history = await store.messages(conversationId);
    const system = systemPrompt();
    // For the per-step overhead: marks of the previous tool step, completed by the next request.
    let previous: { lastByte: number; streamEnd: number; persisted: number; toolStart: number; toolEnd: number; written?: number } | undefined;
    // The previous step's tool results, still being written: the next request waits for them
    // (`beforeSend`) but building it overlaps the write.
    let pendingWrite: Promise<unknown> | undefined;

    for (let step = 0; step < maxSteps; step++) {
      // Prepared, not written: the request leaves at once; the first save writes it.
      const assistant = await store.prepare<AssistantMessage>({
        role: 'assistant',
        conversationId,
        text: '',
        status: 'streaming',
        toolCalls: [],
        model: client.config.model,
      });
      events.message(assistant);
      this.streaming.set(conversationId, assistant);
      const saver = new ThrottledSaver(store, STREAM_SAVE_INTERVAL_MS);
      const timings: RequestTimings = {};
      let failure: RunError | undefined;
      try {
        for await (const event of client.stream({
          prompt: toModelPrompt(system, history),
          tools: registry.listTools(),
          signal,
          timings,
          beforeSend: pendingWrite,
        })) {
          if (event.type === 'text') {
            const offset = assistant.text.length;
            assistant.text += event.text;
            events.delta(conversationId, assistant.id, event.text, offset);
            saver.schedule(assistant);
          } else if (event.type === 'tool-call') {
            assistant.toolCalls.push({ id: event.id, name: event.name, input: event.input, invalid: event.invalid });
          } else if (event.type === 'finish') {
            assistant.usage = event.usage;
          }
        }
      } catch (error) {
        if (!signal.aborted) failure = describeProviderError(error, client.config.baseUrl);
      }
      const streamEndedAt = performance.now();
      this.streaming.delete(conversationId);
      await saver.flush();
      // A failed write of the last results ends the run as an internal error (run() catches it).
      await pendingWrite;
      if (previous && timings.requestSentAt !== undefined) {
        const p = previous;
        this.deps.onStepTiming?.({
          toolStartDelay: p.toolStart - p.lastByte,
          nextRequestDelay: timings.requestSentAt - p.toolEnd,
          parts: {
            streamEnd: p.streamEnd - p.lastByte,
            persist: p.persisted - p.streamEnd,
            toStart: p.toolStart - p.persisted,
            toRequest: timings.requestSentAt - p.toolEnd,
            written: (p.written ?? NaN) - p.toolEnd,
          },
        });
      }

      if (signal.aborted || failure) {
        assistant.status = signal.aborted ? 'stopped' : 'error';
        await store.put(assistant);
        events.message(assistant);
        await this.setStatus(conversationId, signal.aborted ? { status: 'stopped' } : { status: 'error', error: failure });
        return;
      }

      // The finished answer and its tool calls (announced as running) go in one write.
      assistant.status = 'complete';
      const toolMessages: ToolMessage[] = [];
      for (const call of assistant.toolCalls) {
        const spec = registry.describe(call.name);
        toolMessages.push(
          await store.prepare<ToolMessage>({
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
      }
      // Issued, not awaited: the tools start while it commits, and the next request waits for it.
      // (A worker stopped within the first milliseconds of a tool could lose this record.)
      const stepWrite = store.putMany([assistant, ...toolMessages]);
      const persistedAt = performance.now();
      events.message(assistant);
      history.push(assistant);
      if (!toolMessages.length) {
        await stepWrite;
        await this.setStatus(conversationId, { status: 'idle' });
        return;
      }

      let firstToolStart: number | undefined;
      const writes: Promise<unknown>[] = [stepWrite];
      for (const [index, toolMessage] of toolMessages.entries()) {
        const call = assistant.toolCalls[index]!;
        events.message(toolMessage);
        const startedAt = performance.now();
        firstToolStart ??= startedAt;
        const result: ToolResult = call.invalid
          ? { ok: false, code: 'invalid_input', error: `Invalid parameters for tool ${call.name}: ${call.invalid}.` }
          : await registry.invoke(call.name, call.input, { signal, context: { conversationId } });
        const endedAt = performance.now();
        toolMessage.status = result.ok ? 'done' : 'error';
        toolMessage.result = result;
        toolMessage.durationMs = Math.round(endedAt - startedAt);
        // Written in order; the next request waits for all of them before it leaves.
        writes.push(store.put(toolMessage));
        previous = { lastByte: timings.lastByteAt ?? streamEndedAt, streamEnd: streamEndedAt, persisted: persistedAt, toolStart: firstToolStart, toolEnd: endedAt };
        events.message(toolMessage);
        history.push(toolMessage);
        if (signal.aborted) {
          await Promise.all(writes);
          await this.abandon(toolMessages.slice(index + 1));
          await this.setStatus(conversationId, { status: 'stopped' });
          return;
        }
      }
      const marks = previous;
      pendingWrite = Promise.all(writes).then(() => {
        if (marks) marks.written = performance.now();
      });
    }
    await pendingWrite;
    await this.setStatus(conversationId, { status: 'step_limit' });
  }

  /** Marks tool calls that will not run now that the run was stopped. */
  private async abandon(messages: ToolMessage[]): Promise<void> {
    for (const message of messages) {
      message.status = 'error';
      message.result = { ok: false, code: 'aborted', error: 'Not run: the user stopped the run.' };
      await this.deps.store.put(message);
      this.deps.events.message(message);
    }
  }
}

/** Writes a streaming message at most once per interval, without holding up the stream. */
class ThrottledSaver {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last: Promise<unknown> = Promise.resolve();
  private pending: AssistantMessage | undefined;

  constructor(
    private readonly store: ConversationStore,
    private readonly intervalMs: number,
  ) {}

  schedule(message: AssistantMessage): void {
    this.pending = message;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const snapshot = this.pending && { ...this.pending, toolCalls: [...this.pending.toolCalls] };
      this.pending = undefined;
      if (snapshot) this.last = this.last.then(() => this.store.put(snapshot)).catch(() => undefined);
    }, this.intervalMs);
  }

  /** Cancels the pending save and waits for the one under way (the caller writes the final text). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
    await this.last;
  }
}

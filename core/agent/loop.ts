import { offeredTabs } from './offered-tabs';
import { capError, errorMessage, type ToolRegistry } from '@/core/registry/registry';
import type { GatedCall, ReachHow, ToolContext, ToolResult, ToolSpec } from '@/core/registry/types';
import type { ConversationStore, NewMessage } from '@/core/storage/conversations';
import { DEFAULT_TITLE, titleFrom } from '@/core/storage/conversations';
import type {
  AssistantMessage,
  Conversation,
  StoredMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from '@/core/storage/db';
import { scrubSecrets, type StepTrace, type TraceSink } from '@/core/data/trace';
import { describeProviderError, ProviderError, runError, type RunError } from './errors';
import { toModelPrompt } from './history';
import { systemPrompt } from './prompt';
import type { Locale } from '@/core/i18n/locales';
import type { ModelClient, Pricing, RequestTimings, Usage } from './provider';
import type { LoopObserver } from './step-timing';

/** What the loop tells the UI while it works. */
export interface AgentEvents {
  conversation(conversation: Conversation): void;
  message(message: StoredMessage): void;
  /** `offset` is the length of the message's text before this piece. */
  delta(conversationId: string, messageId: string, text: string, offset: number): void;
  /** The tool call `toolCallId` reported live activity (see `ToolContext.reportActivity`). */
  toolActivity?(conversationId: string, toolCallId: string, toolName: string, event: unknown): void;
}

export interface AgentDeps {
  store: ConversationStore;
  registry: ToolRegistry;
  /** Builds the model client for the conversation from the current settings; throws `ProviderError` if it cannot. */
  getClient(conversationId?: string): Promise<ModelClient>;
  getMaxSteps(): Promise<number>;
  /** The token budget of one run (input + output tokens of its answers); undefined: none. */
  getRunBudget?(): Promise<number | undefined>;
  /** Keeps a step's trace (request and response, keys redacted). */
  saveTrace?(trace: StepTrace): Promise<void>;
  /** The user's interface language, named in the system prompt (none: the prompt names none). */
  getLanguage?(): Promise<Locale>;
  events: AgentEvents;
  /** Keeps the background alive while a run goes on; returns the function that lets it go. */
  keepAlive?(): () => void;
  /** Makes an observer of each run's loop (the benchmark's step timer). */
  observe?(): LoopObserver;
  /** A run is about to start from this history (the approval gate learns what it involved). */
  beforeRun?(conversation: Conversation, history: StoredMessage[]): void;
}

/** How often streamed text is written to IndexedDB while it arrives. */
const STREAM_SAVE_INTERVAL_MS = 250;

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The tokens one run has used, and its budget: shared by the run's own loop and the model
 * clients its tools use (sub-agents, summaries), so they count against the same budget.
 */
export interface RunMeter {
  used: number;
  limit?: number;
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
  /** The token meter of each running conversation's run. */
  private readonly meters = new Map<string, RunMeter>();

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

  /**
   * A model client for a tool of the conversation's run (a sub-agent, a summary): its tokens count
   * against the run's budget, and once the budget is reached it refuses further requests.
   */
  metered(conversationId: string | undefined, client: ModelClient): ModelClient {
    if (!conversationId) return client;
    const meters = this.meters;
    return {
      ...client,
      config: client.config,
      async *stream(request) {
        const meter = meters.get(conversationId);
        if (meter?.limit !== undefined && meter.used >= meter.limit) {
          throw new ProviderError(runError('bad_request', 'errors.run.budget', { used: meter.used, limit: meter.limit }));
        }
        for await (const event of client.stream(request)) {
          if (event.type === 'finish' && meter) meter.used += (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0);
          yield event;
        }
      },
    };
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
      await this.setStatus(conversationId, { ...patch, status: 'running', error: undefined, budget: undefined });
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

  private async setStatus(conversationId: string, patch: Partial<Conversation>): Promise<Conversation> {
    const conversation = await this.deps.store.update(conversationId, patch);
    this.deps.events.conversation(conversation);
    return conversation;
  }

  private async run(conversationId: string, signal: AbortSignal): Promise<void> {
    try {
      await this.runSteps(conversationId, signal);
    } catch (error) {
      // Storage failed or a bug: the conversation must not stay "running" forever.
      const message = error instanceof Error ? error.message : String(error);
      await this.setStatus(conversationId, {
        status: 'error',
        error: runError('unknown', 'errors.run.internal', { detail: message }),
      }).catch(() => undefined);
      throw error;
    }
  }

  private async runSteps(conversationId: string, signal: AbortSignal): Promise<void> {
    let client: ModelClient;
    let maxSteps: number;
    let tokenBudget: number | undefined;
    try {
      client = await this.deps.getClient(conversationId);
      maxSteps = await this.deps.getMaxSteps();
      tokenBudget = await this.deps.getRunBudget?.();
    } catch (error) {
      const info = error instanceof ProviderError ? error.info : describeProviderError(error, '');
      await this.setStatus(conversationId, { status: 'error', error: info });
      return;
    }
    const language = await this.deps.getLanguage?.().catch(() => undefined);
    const conversation = await this.setStatus(conversationId, { model: client.config.model });
    const meter: RunMeter = { used: 0, limit: tokenBudget };
    this.meters.set(conversationId, meter);
    try {
      await this.loop(conversationId, signal, client, maxSteps, meter, conversation, language);
    } finally {
      this.meters.delete(conversationId);
    }
  }

  /** The run's loop over the stored history, and the conversation's status from how it ended. */
  private async loop(conversationId: string, signal: AbortSignal, client: ModelClient, maxSteps: number, meter: RunMeter, conversation: Conversation, language?: Locale): Promise<void> {
    const { store, registry, events } = this.deps;
    const history = await store.messages(conversationId);
    this.deps.beforeRun?.(conversation, history);
    const outcome = await runAgentLoop({
      client,
      registry,
      transcript: storeTranscript(store, events, conversationId, this.deps.saveTrace),
      history,
      system: systemPrompt(new Date(), language),
      maxSteps,
      meter,
      signal,
      toolContext: { conversationId },
      onStreaming: (message) => {
        if (message) this.streaming.set(conversationId, message);
        else this.streaming.delete(conversationId);
      },
      observer: this.deps.observe?.(),
    });
    switch (outcome.status) {
      case 'done':
        await this.setStatus(conversationId, { status: 'idle' });
        break;
      case 'stopped':
        await this.setStatus(conversationId, { status: 'stopped' });
        break;
      case 'error':
        await this.setStatus(conversationId, { status: 'error', error: outcome.error });
        break;
      case 'step_limit':
        await this.setStatus(conversationId, { status: 'step_limit' });
        break;
      case 'budget':
        await this.setStatus(conversationId, { status: 'budget', budget: { used: outcome.used, limit: outcome.limit } });
        break;
    }
  }
}

/**
 * Where one agent loop keeps its messages. The main chat writes them to IndexedDB and tells the
 * open pages; a sub-agent keeps them in memory and forwards them to its parent as events.
 */
export interface Transcript {
  /** The id its messages carry (a sub-agent's own id for a sub-agent). */
  readonly conversationId: string;
  /** Gives a message its id, place and time without saving it. */
  prepare<M extends StoredMessage>(message: NewMessage<M>): Promise<M>;
  /** Saves messages (several in one transaction). */
  save(messages: StoredMessage[]): Promise<void>;
  /** Tells whoever listens that a message is new or changed. */
  announce(message: StoredMessage): void;
  /** A piece of streamed text; `offset` is the length of the message's text before it. */
  delta(messageId: string, text: string, offset: number): void;
  /** One of this transcript's tool calls reported live activity. */
  toolActivity?(toolMessage: ToolMessage, event: unknown): void;
  /** Keeps the trace of the step that produced this answer (the main chat; sub-agents keep none). */
  saveTrace?(answer: AssistantMessage, trace: TraceSink, secrets: Array<string | undefined>): Promise<void>;
}

/** The main chat's transcript: IndexedDB plus the live events to the extension's pages. */
export function storeTranscript(
  store: ConversationStore,
  events: AgentEvents,
  conversationId: string,
  saveTrace?: (trace: StepTrace) => Promise<void>,
): Transcript {
  return {
    saveTrace: saveTrace && (async (answer, trace, secrets) => {
      if (!trace.request) return;
      const clean = scrubSecrets({ attempts: trace.attempts, request: trace.request, response: trace.response }, secrets);
      await saveTrace({ messageId: answer.id, conversationId, at: Date.now(), ...clean });
    }),
    conversationId,
    prepare: (message) => store.prepare(message),
    save: (messages) => (messages.length === 1 ? store.put(messages[0]!) : store.putMany(messages)),
    announce: (message) => events.message(message),
    delta: (messageId, text, offset) => events.delta(conversationId, messageId, text, offset),
    toolActivity: (toolMessage, event) => events.toolActivity?.(conversationId, toolMessage.toolCallId, toolMessage.toolName, event),
  };
}

/** How a loop ended: with a final answer, stopped by the user, a provider error, or the step limit. */
export type LoopOutcome =
  | { status: 'done'; answer: AssistantMessage }
  | { status: 'stopped' }
  | { status: 'error'; error: RunError }
  | { status: 'step_limit'; lastText: string }
  | { status: 'budget'; used: number; limit: number };

export interface LoopOptions {
  client: ModelClient;
  registry: ToolRegistry;
  transcript: Transcript;
  /** The conversation so far; the loop appends what it adds. */
  history: StoredMessage[];
  system: string;
  maxSteps: number;
  /**
   * Input + output tokens this loop may use: checked after each answer, before the next request;
   * reaching it ends the loop with `budget`. Undefined: no budget.
   */
  tokenBudget?: number;
  /** The run's shared token meter (its `limit` is the budget); made from `tokenBudget` when absent. */
  meter?: RunMeter;
  signal: AbortSignal;
  /** Narrows the tools, both those listed to the model and those that may run (sub-agent types). */
  allow?: (spec: ToolSpec) => boolean;
  /**
   * Checks (and may complete) a call's input before it runs, e.g. binding a sub-agent to its tab.
   * Throwing refuses the call; the message goes to the model as the tool's error.
   */
  checkCall?: (name: string, input: unknown) => unknown;
  /** What every tool call gets besides its signal (the conversation, a bound tab, a sub-agent's label). */
  toolContext?: Pick<ToolContext, 'conversationId' | 'tabId' | 'agentLabel'>;
  /** The answer being streamed now (undefined once it is saved). */
  onStreaming?(message: AssistantMessage | undefined): void;
  /** Told the marks of each step (the benchmark's step timer); optional. */
  observer?: LoopObserver;
}

/** How often a tool message with live activity is written while its tool works. */
const ACTIVITY_SAVE_INTERVAL_MS = 500;

/**
 * One agent loop: stream the model's answer, run the tools it asks for, append the results, and
 * repeat until it answers without tools, the signal aborts, a provider error, or the step limit.
 * Every step is saved through the transcript before the next one starts. Used by the main chat
 * (`AgentRunner`) and by sub-agents (in-memory transcript, narrowed tools).
 */
export async function runAgentLoop(options: LoopOptions): Promise<LoopOutcome> {
  const { client, registry, transcript, history, system, maxSteps, signal, observer } = options;
  const conversationId = transcript.conversationId;
  // The previous step's writes, still under way: the next request waits for them (`beforeSend`)
  // but building it overlaps them.
  let pendingWrite: Promise<unknown> | undefined;
  let lastText = '';
  const meter = options.meter ?? { used: 0, limit: options.tokenBudget };

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
    transcript.announce(assistant);
    options.onStreaming?.(assistant);
    const saver = new ThrottledSaver(transcript, STREAM_SAVE_INTERVAL_MS);
    const timings: RequestTimings = {};
    const trace: TraceSink | undefined = transcript.saveTrace ? { attempts: 0 } : undefined;
    let failure: RunError | undefined;
    try {
      for await (const event of client.stream({
        prompt: toModelPrompt(system, history),
        tools: registry.listTools(options.allow, await offeredTabs(registry, history, options.toolContext?.tabId)),
        signal,
        timings,
        beforeSend: pendingWrite,
        trace,
      })) {
        if (event.type === 'text') {
          const offset = assistant.text.length;
          assistant.text += event.text;
          transcript.delta(assistant.id, event.text, offset);
          saver.schedule(assistant);
        } else if (event.type === 'tool-call') {
          assistant.toolCalls.push({ id: event.id, name: event.name, input: event.input, invalid: event.invalid });
        } else if (event.type === 'finish') {
          assistant.usage = withCost(event.usage, client.config.pricing);
          meter.used += (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0);
        }
      }
    } catch (error) {
      if (!signal.aborted) failure = describeProviderError(error, client.config.baseUrl);
    }
    if (observer) {
      observer.requestSent(timings.requestSentAt);
      observer.streamEnded(timings.lastByteAt, performance.now());
    }
    options.onStreaming?.(undefined);
    // Kept beside the answer, off the step's path (a failed write loses only the trace).
    if (trace) void transcript.saveTrace!(assistant, trace, [client.config.apiKey]).catch((error) => console.warn('[sidequest] could not keep a step trace', error));
    await saver.flush();
    // A failed write of the last step ends the run as an internal error (the caller catches it).
    await pendingWrite;

    if (signal.aborted || failure) {
      assistant.status = signal.aborted ? 'stopped' : 'error';
      await transcript.save([assistant]);
      transcript.announce(assistant);
      return signal.aborted ? { status: 'stopped' } : { status: 'error', error: failure! };
    }

    // The finished answer and its tool calls (announced as running) go in one write.
    assistant.status = 'complete';
    if (assistant.text) lastText = assistant.text;
    const toolMessages: ToolMessage[] = [];
    for (const call of assistant.toolCalls) {
      const spec = registry.describe(call.name);
      toolMessages.push(
        await transcript.prepare<ToolMessage>({
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
    const stepWrite = transcript.save([assistant, ...toolMessages]);
    observer?.stepPersisted(performance.now());
    transcript.announce(assistant);
    history.push(assistant);
    if (!toolMessages.length) {
      await stepWrite;
      return { status: 'done', answer: assistant };
    }

    // Written in order; the next request waits for all of them before it leaves.
    const writes: Promise<unknown>[] = [stepWrite];
    const runOne = async (index: number) => {
      const call = assistant.toolCalls[index]!;
      const toolMessage = toolMessages[index]!;
      transcript.announce(toolMessage);
      const startedAt = performance.now();
      observer?.toolStarted(startedAt);
      const result = await runToolCall(options, call, toolMessage);
      const endedAt = performance.now();
      observer?.toolEnded(endedAt);
      toolMessage.status = result.ok ? 'done' : 'error';
      toolMessage.result = result;
      toolMessage.durationMs = Math.round(endedAt - startedAt);
      writes.push(transcript.save([toolMessage]));
      transcript.announce(toolMessage);
    };
    // Tools run one by one in the order asked, except that consecutive calls of a concurrent
    // tool (sub-agents) run together.
    for (const batch of batches(assistant.toolCalls.map((call) => Boolean(registry.describe(call.name)?.concurrent)))) {
      if (batch.length === 1) await runOne(batch[0]!);
      else await Promise.all(batch.map(runOne));
      for (const index of batch) history.push(toolMessages[index]!);
      if (signal.aborted) {
        await Promise.all(writes);
        await abandon(transcript, toolMessages.slice(batch.at(-1)! + 1));
        return { status: 'stopped' };
      }
    }
    pendingWrite = Promise.all(writes).then(() => observer?.writesDone(performance.now()));
  }
  await pendingWrite;
  return { status: 'step_limit', lastText };
}

/** The usage with its estimated cost, where the profile has prices. */
export function withCost(usage: Usage | undefined, pricing: Pricing | undefined): Usage | undefined {
  if (!usage || !pricing) return usage;
  const cost = ((usage.inputTokens ?? 0) * pricing.inputPerMTok + (usage.outputTokens ?? 0) * pricing.outputPerMTok) / 1_000_000;
  return { ...usage, costUsd: cost };
}

/** Groups call indexes: each call alone, except runs of consecutive concurrent calls together. */
export function batches(concurrent: boolean[]): number[][] {
  const out: number[][] = [];
  concurrent.forEach((isConcurrent, index) => {
    const last = out.at(-1);
    if (isConcurrent && last && concurrent[last[0]!]) last.push(index);
    else out.push([index]);
  });
  return out;
}

/** Runs one tool call through the registry; its live activity (if any) is kept on its tool message. */
async function runToolCall(options: LoopOptions, call: ToolCall, toolMessage: ToolMessage): Promise<ToolResult> {
  const { registry, transcript, signal } = options;
  if (call.invalid) {
    // Capped like the registry's errors: the model's own arguments can be huge.
    return { ok: false, code: 'invalid_input', error: capError(`Invalid parameters for tool ${call.name}: ${call.invalid}.`) };
  }
  let input = call.input;
  if (options.checkCall) {
    try {
      input = options.checkCall(call.name, call.input);
    } catch (error) {
      return { ok: false, code: 'invalid_input', error: capError(errorMessage(error)) };
    }
  }
  const conversationId = options.toolContext?.conversationId ?? transcript.conversationId;
  // The user's say-so, for the main agent and sub-agents alike; asked only about calls that can run.
  const gate = registry.gate;
  let gated: GatedCall | undefined;
  let note: unknown;
  // An address on the user's own network the user allowed for this call (the gate asked).
  let approvedUrl: string | undefined;
  let pinnedTab: number | undefined;
  if (gate) {
    const refused = registry.refusal(call.name, input, options.allow);
    if (refused) return refused;
    const spec = registry.describe(call.name)!;
    // Judged by what this call does (a sandbox script reaches no page), where the tool says.
    const annotations = spec.annotations.forCall ? await registry.callAnnotations(call.name, input, options.toolContext?.tabId) : spec.annotations;
    const target = spec.annotations.target ? await registry.callTarget(call.name, input, options.toolContext?.tabId) : undefined;
    gated = {
      name: call.name,
      input,
      spec: annotations === spec.annotations || !annotations ? spec : { ...spec, annotations },
      conversationId,
      toolCallId: call.id,
      tabId: options.toolContext?.tabId,
      agent: options.toolContext?.agentLabel,
      target,
    };
    const verdict = await gate.check(gated, signal);
    if (!verdict.ok) return verdict.result;
    note = verdict.note;
    approvedUrl = verdict.approvedUrl;
    // A tab's tool that named no tab runs on the tab the approval card showed.
    if (verdict.tabId !== undefined && options.toolContext?.tabId === undefined) pinnedTab = verdict.tabId;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<unknown> = Promise.resolve();
  const reduce = registry.activityReducer(call.name);
  const reportActivity = reduce && ((event: unknown) => {
    toolMessage.activity = reduce(toolMessage.activity, event);
    transcript.toolActivity?.(toolMessage, event);
    timer ??= setTimeout(() => {
      timer = undefined;
      saving = saving.then(() => transcript.save([toolMessage])).catch(() => undefined);
    }, ACTIVITY_SAVE_INTERVAL_MS);
  });
  try {
    const result = await registry.invoke(call.name, input, {
      signal,
      allow: options.allow,
      context: {
        ...options.toolContext,
        conversationId,
        toolCallId: call.id,
        reportActivity,
        ...(approvedUrl ? { approvedUrl } : {}),
        ...(pinnedTab !== undefined ? { tabId: pinnedTab } : {}),
        // Addresses the call reaches on its way (redirect hops, a server on the user's network) go to the same gate.
        ...(gate?.reach && gated ? { reach: (url: string, how: ReachHow, callSignal?: AbortSignal) => gate.reach!(gated!, note, url, how, callSignal ?? signal) } : {}),
      },
    });
    if (gated) gate?.record?.(gated, note, result);
    return result;
  } finally {
    clearTimeout(timer);
    await saving;
  }
}

/** Marks tool calls that will not run now that the run was stopped. */
async function abandon(transcript: Transcript, messages: ToolMessage[]): Promise<void> {
  for (const message of messages) {
    message.status = 'error';
    message.result = { ok: false, code: 'aborted', error: 'Not run: the user stopped the run.' };
    await transcript.save([message]);
    transcript.announce(message);
  }
}

/** Writes a streaming message at most once per interval, without holding up the stream. */
class ThrottledSaver {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last: Promise<unknown> = Promise.resolve();
  private pending: AssistantMessage | undefined;

  constructor(
    private readonly transcript: Transcript,
    private readonly intervalMs: number,
  ) {}

  schedule(message: AssistantMessage): void {
    this.pending = message;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const snapshot = this.pending && { ...this.pending, toolCalls: [...this.pending.toolCalls] };
      this.pending = undefined;
      if (snapshot) this.last = this.last.then(() => this.transcript.save([snapshot])).catch(() => undefined);
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

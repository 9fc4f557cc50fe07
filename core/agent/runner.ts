import type { ToolRegistry } from '@/core/registry/registry';
import type { ToolGate } from '@/core/registry/types';
import type { ConversationStore } from '@/core/storage/conversations';
import { DEFAULT_TITLE, newConversation, titleFrom, type BegunRun } from '@/core/storage/conversations';
import type { AssistantMessage, Conversation, StoredMessage, UserMessage } from '@/core/storage/db';
import { describeProviderError, ProviderError, runError } from './errors';
import { runAgentLoop, type RunMeter } from './loop';
import { systemPrompt } from './prompt';
import type { Locale } from '@/core/i18n/locales';
import type { ModelClient } from './provider';
import type { RunError } from './errors';
import type { LoopObserver } from './step-timing';
import { storeTranscript, type AgentEvents } from './transcript';

export type { AgentEvents } from './transcript';

export interface AgentDeps {
  store: ConversationStore;
  registry: ToolRegistry;
  /**
   * The approval gate each run's calls pass, handed to its loop. Without one, every call the user
   * would have to allow is refused (see `LoopOptions.gate`).
   */
  gate?: ToolGate;
  /** Builds the model client for the conversation from the current settings; throws `ProviderError` if it cannot. */
  getClient(conversationId?: string): Promise<ModelClient>;
  getMaxSteps(): Promise<number>;
  /** The token budget of one run (input + output tokens of its answers); undefined: none. */
  getRunBudget?(): Promise<number | undefined>;
  /** Keeps each step's trace (request and response, keys redacted), written with the step's messages. */
  keepTraces?: boolean;
  /** The user's interface language, named in the system prompt (none: the prompt names none). */
  getLanguage?(): Promise<Locale>;
  events: AgentEvents;
  /** Keeps the background alive while a run goes on; returns the function that lets it go. */
  keepAlive?(): () => void;
  /** Makes an observer of each run's loop (the benchmark's step timer). */
  observe?(): LoopObserver;
  /** A run is about to start from this history (the approval gate learns what it involved). */
  beforeRun?(conversation: Conversation, history: StoredMessage[]): void;
  /**
   * The conversation's run has ended, however it ended (done, stopped, failed, a limit), after its
   * status was written and the conversation is no longer running.
   */
  afterRun?(conversationId: string): void;
  /**
   * A user message was saved: a plugin may claim it and drive the run (`RunDriver`). Undefined:
   * the model answers, as always. A claim that throws counts as none.
   */
  claim?(conversationId: string, text: string): Promise<RunDriver | undefined>;
  /**
   * What plugins add to the system prompt for this run (`PluginContext.instructions`), each a
   * paragraph after the core's; read once when the run starts, so every step's prompt is the same.
   */
  instructions?(conversation: Conversation): Promise<string[]>;
}

/**
 * Drives a run in place of the model, or before it: a plugin that claimed the user's message
 * (`AgentDeps.claim`; a skill's `/name` replays its steps). Its client goes through the same loop,
 * gate, registry and transcript as the model's; it may hand over to `real` at any step.
 */
export interface RunDriver {
  /**
   * The client for this run. `real` is the conversation's model client, or undefined with
   * `realError` when none can be made (no provider set up): a driver that needs no model still runs.
   */
  client(real: ModelClient | undefined, realError: RunError | undefined): ModelClient;
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

type Settled<T> = { value: T } | { error: unknown };
const settled = <T>(work: Promise<T>): Promise<Settled<T>> => work.then((value) => ({ value }), (error: unknown) => ({ error }));
/** The run's client, step limit, token budget and language, each read or failed. */
type RunReads = [Settled<ModelClient>, Settled<number>, Settled<number | undefined>, Settled<Locale | undefined>];
/** What a send's one write left: the conversation as marked running and its history, the user's message last. */
type Begun = Pick<BegunRun<UserMessage>, 'conversation' | 'history'>;
/** A run's start clears what the previous run left on the conversation. */
const RUNNING: Partial<Omit<Conversation, 'id'>> = { status: 'running', error: undefined, budget: undefined, loop: undefined };

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

  /** How many runs, streamed answers and meters it holds now (`core/retained.ts`); each empties when its run ends. */
  retainedSizes(): { runs: number; streaming: number; meters: number } {
    return { runs: this.runs.size, streaming: this.streaming.size, meters: this.meters.size };
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
    return (await this.begin(conversationId, text)).message;
  }

  /**
   * Starts a new conversation with the user's first message: the conversation is written with the
   * message, in one transaction (nothing is created if that fails), and its run starts. `prepare`
   * runs first (a model picked for "new" moves to it). `id`: the new conversation's (one that
   * exists fails the write). `trusted`: it starts with "act without asking" on (the approval mode's
   * default for new conversations). Resolves to the conversation as stored (running).
   */
  async startConversation(id: string, text: string, prepare?: () => Promise<void>, trusted?: Promise<boolean>): Promise<Conversation> {
    if (!text.trim()) throw new Error('The message is empty.');
    const conversation = newConversation(DEFAULT_TITLE, id);
    await prepare?.();
    if (await trusted) conversation.actWithoutAsking = true;
    return (await this.begin(conversation.id, text, conversation)).conversation;
  }

  /**
   * The user's message saved and the conversation marked running in one write (which also reads
   * the history back), while the run's settings are read; then the run starts from what that
   * write read. The run is held from the first moment, so a second send waits its turn.
   */
  private async begin(conversationId: string, text: string, create?: Conversation): Promise<BegunRun<UserMessage>> {
    const clean = text.trim();
    if (!clean) throw new Error('The message is empty.');
    if (this.isRunning(conversationId)) {
      throw new Error('The agent is still working in this conversation: wait for it or press Stop first.');
    }
    const { store, events } = this.deps;
    const run = this.hold(conversationId);
    // Read while the message is saved: each is a storage read, and the first request waits for all of them.
    const reads = this.readSettings(conversationId);
    let begun: BegunRun<UserMessage>;
    try {
      begun = await store.beginRun<UserMessage>(
        { role: 'user', conversationId, text: clean },
        (conversation) => ({ ...(!conversation.titleEdited && conversation.title === DEFAULT_TITLE ? { title: titleFrom(clean) } : {}), ...RUNNING }),
        { create },
      );
    } catch (error) {
      this.runs.delete(conversationId);
      throw error;
    }
    events.message(begun.message);
    events.conversation(begun.conversation);
    const driver = await this.deps.claim?.(conversationId, clean).catch((error: unknown) => {
      console.warn('[sidequest] a plugin failed to claim a message', error);
      return undefined;
    });
    this.launch(conversationId, run, reads, driver, { conversation: begun.conversation, history: begun.history });
    return begun;
  }

  /** Continues a run that was stopped, interrupted or failed, from what was saved. */
  async resume(conversationId: string): Promise<void> {
    if (this.isRunning(conversationId)) return;
    // Held at once; marking it running fails (and lets go) if the conversation is gone.
    const run = this.hold(conversationId);
    try {
      await this.setStatus(conversationId, RUNNING);
    } catch (error) {
      this.runs.delete(conversationId);
      throw error;
    }
    this.launch(conversationId, run, this.readSettings(conversationId));
  }

  /** Stops the conversation's run; what was streamed so far is kept. */
  stop(conversationId: string): boolean {
    const run = this.runs.get(conversationId);
    if (!run) return false;
    run.controller.abort(new Error('Stopped by the user.'));
    return true;
  }

  /** Holds the conversation's run (it counts as running from now on). */
  private hold(conversationId: string): Run {
    const run: Run = { controller: new AbortController(), done: Promise.resolve() };
    this.runs.set(conversationId, run);
    return run;
  }

  /** The run's settings and client, each read at once and settled (the run decides what a failure means). */
  private readSettings(conversationId: string): Promise<RunReads> {
    return Promise.all([
      settled(this.deps.getClient(conversationId)),
      settled(this.deps.getMaxSteps()),
      settled(this.deps.getRunBudget?.() ?? Promise.resolve(undefined)),
      settled(this.deps.getLanguage?.() ?? Promise.resolve(undefined)),
    ]);
  }

  /** Starts the held run, once its conversation is marked running. */
  private launch(conversationId: string, run: Run, reads: Promise<RunReads>, driver?: RunDriver, begun?: Begun): void {
    const release = this.deps.keepAlive?.();
    run.done = this.run(conversationId, run.controller.signal, reads, driver, begun)
      .catch((error) => console.error('[sidequest] agent run failed unexpectedly', error))
      .finally(() => {
        this.runs.delete(conversationId);
        // A loop that threw mid-answer never said the stream ended.
        this.streaming.delete(conversationId);
        release?.();
        try {
          this.deps.afterRun?.(conversationId);
        } catch (error) {
          console.warn('[sidequest] a run-end listener failed', error);
        }
      });
  }

  private async setStatus(conversationId: string, patch: Partial<Conversation>): Promise<Conversation> {
    const conversation = await this.deps.store.update(conversationId, patch);
    this.deps.events.conversation(conversation);
    return conversation;
  }

  private async run(conversationId: string, signal: AbortSignal, reads: Promise<RunReads>, driver?: RunDriver, begun?: Begun): Promise<void> {
    try {
      await this.runSteps(conversationId, signal, reads, driver, begun);
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

  private async runSteps(conversationId: string, signal: AbortSignal, reads: Promise<RunReads>, driver?: RunDriver, begun?: Begun): Promise<void> {
    let client: ModelClient;
    let maxSteps: number;
    let tokenBudget: number | undefined;
    const failed = (error: unknown): RunError => (error instanceof ProviderError ? error.info : describeProviderError(error, ''));
    // A send read the history as it saved the message; a resume reads it beside the settings.
    const [[clientRead, maxRead, budgetRead, languageRead], historyRead] = await Promise.all([
      reads,
      begun ? { value: begun.history } : settled(this.deps.store.messages(conversationId)),
    ]);
    try {
      if (driver) {
        client = driver.client('error' in clientRead ? undefined : clientRead.value, 'error' in clientRead ? failed(clientRead.error) : undefined);
      } else {
        if ('error' in clientRead) throw clientRead.error;
        client = clientRead.value;
      }
      if ('error' in maxRead) throw maxRead.error;
      maxSteps = maxRead.value;
      if ('error' in budgetRead) throw budgetRead.error;
      tokenBudget = budgetRead.value;
    } catch (error) {
      await this.setStatus(conversationId, { status: 'error', error: failed(error) });
      return;
    }
    const language = 'error' in languageRead ? undefined : languageRead.value;
    const model = client.config.model;
    let conversation: Conversation;
    if (!begun) conversation = model ? await this.setStatus(conversationId, { model }) : await this.deps.store.getOrThrow(conversationId);
    else {
      conversation = begun.conversation;
      if (model && model !== conversation.model) {
        // Written beside the first request, not before it: one transaction that IndexedDB orders
        // before the run's later writes of the conversation (`ConversationStore.update`).
        conversation = { ...conversation, model };
        void this.setStatus(conversationId, { model }).catch((error: unknown) => console.warn('[sidequest] could not note the run\'s model', error));
      }
    }
    const meter: RunMeter = { used: 0, limit: tokenBudget };
    this.meters.set(conversationId, meter);
    try {
      // The history read above, unless it failed (then read again, failing the run as before).
      const history = 'error' in historyRead ? await this.deps.store.messages(conversationId) : historyRead.value;
      await this.loop(conversationId, signal, client, maxSteps, meter, conversation, history, language);
    } finally {
      this.meters.delete(conversationId);
    }
  }

  /** The run's loop over the stored history, and the conversation's status from how it ended. */
  private async loop(conversationId: string, signal: AbortSignal, client: ModelClient, maxSteps: number, meter: RunMeter, conversation: Conversation, history: StoredMessage[], language?: Locale): Promise<void> {
    const { store, registry, gate, events } = this.deps;
    this.deps.beforeRun?.(conversation, history);
    const sections = (await this.deps.instructions?.(conversation)) ?? [];
    const outcome = await runAgentLoop({
      client,
      registry,
      gate,
      transcript: storeTranscript(store, events, conversationId, this.deps.keepTraces),
      history,
      system: [systemPrompt(new Date(), language), ...sections].join('\n\n'),
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
      case 'loop':
        await this.setStatus(conversationId, { status: 'loop', loop: outcome.notice });
        break;
    }
  }
}

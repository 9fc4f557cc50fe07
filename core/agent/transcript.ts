import type { ConversationStore, NewMessage } from '@/core/storage/conversations';
import type { AssistantMessage, Conversation, StoredMessage, ToolMessage } from '@/core/storage/db';
import { scrubSecrets, type StepTrace, type TraceSink } from '@/core/data/trace';

/** What the loop tells the UI while it works. */
export interface AgentEvents {
  conversation(conversation: Conversation): void;
  message(message: StoredMessage): void;
  /** `offset` is the length of the message's text before this piece. */
  delta(conversationId: string, messageId: string, text: string, offset: number): void;
  /** The tool call `toolCallId` reported live activity (see `ToolContext.reportActivity`). */
  toolActivity?(conversationId: string, toolCallId: string, toolName: string, event: unknown): void;
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
  /**
   * Keeps the trace of the step that produced this answer (the main chat; sub-agents keep none),
   * in a write of its own that no step waits for.
   */
  keepTrace?(answer: AssistantMessage, trace: TraceSink, secrets: Array<string | undefined>): Promise<void>;
}

/** The main chat's transcript: IndexedDB plus the live events to the extension's pages. */
export function storeTranscript(store: ConversationStore, events: AgentEvents, conversationId: string, keepTraces = false): Transcript {
  return {
    keepTrace: keepTraces
      ? async (answer, trace, secrets) => {
          if (!trace.request) return;
          const clean = scrubSecrets({ attempts: trace.attempts, request: trace.request, response: trace.response }, secrets);
          const kept: StepTrace = { messageId: answer.id, conversationId, at: Date.now(), ...clean };
          await store.putTraces([kept]);
        }
      : undefined,
    conversationId,
    prepare: (message) => store.prepare(message),
    save: (messages) => store.putMany(messages),
    announce: (message) => events.message(message),
    delta: (messageId, text, offset) => events.delta(conversationId, messageId, text, offset),
    toolActivity: (toolMessage, event) => events.toolActivity?.(conversationId, toolMessage.toolCallId, toolMessage.toolName, event),
  };
}

/**
 * Why a tool call the model asked for did not run: the model reads it as the call's error.
 * `interrupted`: a call left without a result message (its run ended before it started).
 */
export const NOT_RUN = {
  interrupted: 'This tool call did not run: the run was stopped or interrupted before it started.',
  stopped: 'Not run: the user stopped the run.',
  loop: 'Not run: the run was stopped because it kept repeating itself.',
  brokenOff: "Not run: the model's answer broke off before it was complete.",
} as const;

/** Marks a tool call that will not run (the caller writes it). */
export function notRun(message: ToolMessage, why: (typeof NOT_RUN)[keyof typeof NOT_RUN]): ToolMessage {
  message.status = 'error';
  message.result = { ok: false, code: 'aborted', error: why };
  return message;
}

/**
 * The writes of one step, in as few transactions as can be. What the step changes is marked and
 * goes out with the step's next write: `flush` writes everything marked in one transaction (the
 * answer and the results of quick tools: one per step); `later` makes sure nothing marked waits
 * longer than `delayMs` (a slow tool's answer and call are on disk while it runs).
 */
export class StepWriter {
  private readonly marked = new Map<string, StoredMessage>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writes: Promise<void>[] = [];

  constructor(
    private readonly transcript: Transcript,
    private readonly delayMs: number,
  ) {}

  mark(...messages: StoredMessage[]): void {
    for (const message of messages) this.marked.set(message.id, message);
  }

  /** Writes what is marked within `delayMs`, unless a `flush` comes first. */
  later(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, this.delayMs);
  }

  /** Writes what is marked now, in one transaction; resolves once every write of the step has committed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.marked.size) {
      const write = this.transcript.save([...this.marked.values()]);
      // Seen by whoever awaits `flush`; never an unhandled rejection meanwhile.
      write.catch(() => undefined);
      this.writes.push(write);
      this.marked.clear();
    }
    return Promise.all(this.writes).then(() => undefined);
  }
}

/**
 * Announcements of changed messages, sent together: a message announced twice before they go out
 * is sent once, as it is then (a quick tool's "running" and "done" become one event). The loop
 * sends them when the next request has left, before a streamed piece or live activity, at its end,
 * or after a short wait (`soon`), so the pages' work never stands between a step and the next
 * request. Other work that can wait (`defer`: keeping a step's trace) goes out with them.
 */
export class Announcements {
  private readonly queued = new Map<string, StoredMessage>();
  private deferred: Array<() => void> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly transcript: Transcript) {}

  add(message: StoredMessage, soonMs?: number): void {
    this.queued.delete(message.id);
    this.queued.set(message.id, message);
    if (soonMs !== undefined) this.soon(soonMs);
  }

  /** Sends what is queued within `ms`, unless it goes earlier. */
  soon(ms: number): void {
    this.timer ??= setTimeout(() => this.send(), ms);
  }

  /** Runs `work` when the announcements go out. */
  defer(work: () => void): void {
    this.deferred.push(work);
  }

  send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queued.size) {
      const messages = [...this.queued.values()];
      this.queued.clear();
      for (const message of messages) this.transcript.announce(message);
    }
    if (this.deferred.length) {
      const work = this.deferred;
      this.deferred = [];
      for (const run of work) run();
    }
  }
}

/** Writes a streaming message at most once per interval, without holding up the stream. */
export class ThrottledSaver {
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

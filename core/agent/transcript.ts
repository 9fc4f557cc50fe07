import type { ConversationStore, NewMessage } from '@/core/storage/conversations';
import type { AssistantMessage, StoredMessage, ToolMessage } from '@/core/storage/db';
import { scrubSecrets, type StepTrace, type TraceSink } from '@/core/data/trace';
import type { AgentEvents } from './runner';

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

/** Marks tool calls that will not run now that the run was stopped. */
export async function abandon(transcript: Transcript, messages: ToolMessage[]): Promise<void> {
  for (const message of messages) {
    message.status = 'error';
    message.result = { ok: false, code: 'aborted', error: 'Not run: the user stopped the run.' };
    await transcript.save([message]);
    transcript.announce(message);
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

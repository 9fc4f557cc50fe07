/** A question of the agent's waiting for the user's answer in the sidebar. */
export interface PendingQuestion {
  id: string;
  /** The conversation whose run asked it, and the tool call it answers. */
  conversationId?: string;
  toolCallId?: string;
  question: string;
  /** With options, a choice (several with `multiple`); without, free text. */
  options?: string[];
  multiple: boolean;
  askedAt: number;
  /** When the question is withdrawn with `{answer: null, reason: "timeout"}`. */
  expiresAt: number;
}

/** What `ask_user` returns: the answer, or null with the reason there is none. */
export type AskOutcome = { answer: string | string[] } | { answer: null; reason: 'timeout' | 'skipped' };

export type QuestionChange =
  | { type: 'asked'; question: PendingQuestion }
  | { type: 'closed'; id: string; conversationId?: string; reason: 'answered' | 'skipped' | 'timeout' | 'withdrawn' };

/** No answer within this time: the question is withdrawn and the model told so. */
export const ASK_TIMEOUT_MS = 5 * 60_000;
export const MAX_ANSWER_CHARS = 10_000;

interface Waiting {
  question: PendingQuestion;
  settle(outcome: AskOutcome): void;
  cancel(): void;
}

/**
 * The questions the agent is waiting on. They live in the background, which holds the waiting
 * tool call: a sidebar that opens later (or another window's) asks for the list and shows them.
 * Each question ends exactly once: answered, skipped, timed out, or withdrawn when its run stops.
 */
export class QuestionDesk {
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<(change: QuestionChange) => void>();

  constructor(private readonly timeoutMs = ASK_TIMEOUT_MS) {}

  /** Asks and waits. Resolves with the answer or `{answer: null, reason}`; rejects when `signal` aborts. */
  ask(
    input: { question: string; options?: string[]; multiple?: boolean; conversationId?: string; toolCallId?: string },
    signal?: AbortSignal,
  ): Promise<AskOutcome> {
    const text = input.question.trim();
    if (!text) return Promise.reject(new Error('The question is empty: say what you want to know.'));
    const options = input.options?.map((o) => o.trim());
    if (options) {
      if (options.some((o) => !o)) return Promise.reject(new Error('An option is empty: every option needs some text.'));
      if (new Set(options).size !== options.length) return Promise.reject(new Error('Two options are the same: make each option different.'));
    }
    if (input.multiple && !options?.length) {
      return Promise.reject(new Error('multiple only applies to a choice: give options, or leave multiple out for a free-text answer.'));
    }
    if (signal?.aborted) return Promise.reject(new Error('The run was stopped before the question was asked.'));
    const now = Date.now();
    const question: PendingQuestion = {
      id: crypto.randomUUID(),
      conversationId: input.conversationId,
      toolCallId: input.toolCallId,
      question: text,
      ...(options?.length ? { options } : {}),
      multiple: Boolean(input.multiple && options?.length),
      askedAt: now,
      expiresAt: now + this.timeoutMs,
    };
    return new Promise<AskOutcome>((resolve, reject) => {
      const close = (reason: Extract<QuestionChange, { type: 'closed' }>['reason']) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(question.id);
        this.emit({ type: 'closed', id: question.id, conversationId: question.conversationId, reason });
      };
      const onAbort = () => {
        close('withdrawn');
        reject(new Error('The question was withdrawn: the run was stopped.'));
      };
      const timer = setTimeout(() => {
        close('timeout');
        resolve({ answer: null, reason: 'timeout' });
      }, this.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(question.id, {
        question,
        settle: (outcome) => {
          close(outcome.answer === null ? 'skipped' : 'answered');
          resolve(outcome);
        },
        cancel: onAbort,
      });
      this.emit({ type: 'asked', question });
    });
  }

  /**
   * The user's answer from the sidebar: text for a free question, one option for a choice, a list
   * of options for a multiple choice, or null to skip. Throws a readable error when it does not fit.
   */
  answer(id: string, answer: string | string[] | null): void {
    const entry = this.waiting.get(id);
    if (!entry) throw new Error('This question is no longer waiting for an answer (it was answered, timed out or withdrawn).');
    entry.settle(answer === null ? { answer: null, reason: 'skipped' } : { answer: checkAnswer(entry.question, answer) });
  }

  /** The questions waiting now, oldest first. */
  list(): PendingQuestion[] {
    return [...this.waiting.values()].map((w) => ({ ...w.question })).sort((a, b) => a.askedAt - b.askedAt);
  }

  /** Withdraws a conversation's questions (it was deleted). */
  withdraw(conversationId: string): void {
    for (const w of [...this.waiting.values()]) if (w.question.conversationId === conversationId) w.cancel();
  }

  onChange(listener: (change: QuestionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: QuestionChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        console.error('[sidequest] question listener failed', error);
      }
    }
  }
}

/** Checks an answer against the question's kind and returns it cleaned. */
export function checkAnswer(question: Pick<PendingQuestion, 'options' | 'multiple'>, answer: string | string[]): string | string[] {
  const options = question.options;
  if (!options) {
    if (typeof answer !== 'string') throw new Error('This question wants a text answer.');
    const text = answer.trim();
    if (!text) throw new Error('The answer is empty.');
    if (text.length > MAX_ANSWER_CHARS) throw new Error(`The answer is too long (at most ${MAX_ANSWER_CHARS} characters).`);
    return text;
  }
  if (question.multiple) {
    const picked = Array.isArray(answer) ? answer : [answer];
    if (!picked.length) throw new Error('Pick at least one option (or skip the question).');
    for (const p of picked) if (!options.includes(p)) throw new Error(`"${p}" is not one of the options.`);
    // In the order the options were offered, each once.
    return options.filter((o) => picked.includes(o));
  }
  if (typeof answer !== 'string' || !options.includes(answer)) throw new Error('Pick one of the options.');
  return answer;
}

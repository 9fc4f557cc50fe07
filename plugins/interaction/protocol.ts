import type { PendingQuestion } from './questions';

declare module '@/core/messaging/protocol' {
  interface ProtocolMap {
    /** The ask_user questions waiting for an answer, in every conversation. */
    listQuestions(): PendingQuestion[];
    /** Answers a question: text, one option, several options (multiple), or null to skip it. */
    answerQuestion(data: { id: string; answer: string | string[] | null }): void;
  }
  interface UiEventMap {
    /** A question waits for the user. */
    question: { question: PendingQuestion };
    /** A question closed (answered, skipped, timed out, withdrawn). */
    'question-closed': { id: string; conversationId?: string };
  }
}

export {};

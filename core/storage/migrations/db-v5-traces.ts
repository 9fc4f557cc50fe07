import type { DbStep } from './db-step';

/**
 * v5: the trace of each agent step (the request as sent, the response as received, keys
 * redacted), keyed by the answer's message id and found by conversation (deleted with it).
 * Nothing older to move: conversations, messages and everything else stay as they were.
 */
export const dbV5: DbStep = {
  version: 5,
  stores: { traces: 'messageId, conversationId' },
};

import type { DbStep } from './db-step';

/** The first schema: conversations, their messages, and secrets (API keys). */
export const dbV1: DbStep = {
  version: 1,
  stores: {
    conversations: 'id, updatedAt, status',
    messages: 'id, conversationId, [conversationId+seq], role',
    secrets: 'key',
  },
};

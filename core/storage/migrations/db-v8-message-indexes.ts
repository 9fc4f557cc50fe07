import type { DbStep } from './db';

/**
 * v8: `messages` keeps one index, `[conversationId+seq]`, which every read of a conversation and
 * its deletion use. v1's `conversationId` index said the same thing a second time, and `role` was
 * read only by the v2 upgrade (which runs before this step); each was kept up to date on every
 * write of a message, on the agent's path between two requests. Nothing else changes.
 */
export const dbV8: DbStep = {
  version: 8,
  stores: {
    messages: 'id, [conversationId+seq]',
  },
};

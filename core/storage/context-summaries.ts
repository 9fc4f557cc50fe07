import type { SummaryMemory } from '@/core/agent/context-window';
import type { SidequestDb } from './db';

/**
 * Where the context window keeps each conversation's summary: the conversation's record
 * (`Conversation.contextSummary`), written alone in one transaction (the rest of the record and
 * its `updatedAt` stay as they are). No record, nothing kept: a sub-agent's messages carry its own
 * id, which names no conversation.
 */
export function conversationSummaries(db: SidequestDb): SummaryMemory {
  return {
    load: async (conversationId) => (await db.conversations.get(conversationId))?.contextSummary,
    save: async (conversationId, summary) => {
      await db.conversations.update(conversationId, { contextSummary: summary });
    },
  };
}

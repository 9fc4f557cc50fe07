import type { ConversationStore } from '@/core/storage/conversations';
import type { Conversation, SidequestDb } from '@/core/storage/db';
import { rowsFor } from '@/core/storage/search-index';
import { ImportError, makeArchive, type Archive, type ArchiveEntry } from './archive';

/** The archive of one conversation, or of all of them (most recent first). */
export async function exportConversations(store: ConversationStore, conversationId?: string): Promise<Archive> {
  const conversations = conversationId ? [await store.getOrThrow(conversationId)] : await store.list();
  const entries: ArchiveEntry[] = [];
  for (const conversation of conversations) entries.push({ conversation, messages: await store.messages(conversation.id) });
  return makeArchive(entries);
}

export interface ImportOutcome {
  /** The conversations added. */
  added: Conversation[];
  /** Conversations of the file that were here already (same id): left as they are. */
  skipped: number;
}

/**
 * Writes a parsed archive (`parseArchive`) in one transaction: all of it or nothing. A
 * conversation that exists already (same id) is skipped, not duplicated; a message id that
 * another conversation here already uses refuses the whole file.
 */
export async function importArchive(db: SidequestDb, archive: Archive): Promise<ImportOutcome> {
  return db.transaction('rw', [db.conversations, db.messages, db.searchIndex], async () => {
    const ids = archive.conversations.map((e) => e.conversation.id);
    const existing = new Set((await db.conversations.bulkGet(ids)).flatMap((c) => (c ? [c.id] : [])));
    const fresh = archive.conversations.filter((e) => !existing.has(e.conversation.id));
    const messages = fresh.flatMap((e) => e.messages);
    const taken = (await db.messages.bulkGet(messages.map((m) => m.id))).find(Boolean);
    if (taken) {
      throw new ImportError('errors.import.messageTaken', { id: taken.id });
    }
    await db.conversations.bulkAdd(fresh.map((e) => e.conversation));
    await db.messages.bulkAdd(messages);
    // Searchable at once: the index's rows go in with the conversations, all or nothing.
    await db.searchIndex.bulkPut(fresh.flatMap((e) => rowsFor(e.conversation, e.messages)));
    return { added: fresh.map((e) => e.conversation), skipped: existing.size };
  });
}

/** Every table of the extension's database, emptied in one transaction. */
export async function clearDatabase(db: SidequestDb): Promise<void> {
  await db.transaction('rw', db.tables, async () => {
    for (const table of db.tables) await table.clear();
  });
}


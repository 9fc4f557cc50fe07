import type { DbStep } from './db-step';

/**
 * v7: the search index (`core/storage/search-index.ts`) and the list's page order.
 * - `searchIndex`: one row per conversation title and per 50 messages, `{conversationId, part,
 *   tokens}`; `*tokens` (multiEntry) is the inverted index token → rows.
 * - `searchMeta`: the index's state: built yet (and how far), and its watermark.
 * - `conversations` gains `[updatedAt+id]`, so the list reads a page at a time with a cursor
 *   that ties cannot break.
 * The upgrade writes no index rows: it marks the index as not built, and the background builds
 * it after start in batches of conversations, newest first (`SearchIndex.resume`), so a large
 * history does not hold up the first use of the sidebar. Until then search scans as before.
 */
export const dbV7: DbStep = {
  version: 7,
  stores: {
    conversations: 'id, updatedAt, status, [updatedAt+id]',
    searchIndex: '[conversationId+part], *tokens',
    searchMeta: 'key',
  },
  async upgrade(tx) {
    // Nothing to build in a database without conversations.
    const built = (await tx.table('conversations').count()) === 0;
    await tx.table('searchMeta').put({ key: 'state', built, watermark: Date.now() });
  },
};

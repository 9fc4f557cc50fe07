import Dexie from 'dexie';
import type { Conversation, SearchMeta, SearchRow, SidequestDb, StoredMessage } from './db';
import { findConversations, listed } from './search-query';
import { queryTerms, tokenize } from './search-tokens';

/** Messages per row of the index: a saved message rewrites the row of its 50, not the conversation's. */
export const PART_SIZE = 50;
/** The row of a conversation's title. */
export const TITLE_PART = -1;
/** How long saved messages wait before they are indexed (together with whatever else lands). */
export const INDEX_DELAY_MS = 1000;
/** Conversations a build or catch-up step indexes in one transaction. */
export const BATCH = 40;
/** Changes this close before the watermark are indexed again at start (a save whose note came late). */
export const WATERMARK_MARGIN_MS = 10_000;
const META_KEY = 'state';

/** The index's rows for one conversation, from its title and the text of its messages (not tool results). */
export function rowsFor(conversation: Pick<Conversation, 'id' | 'title'>, messages: StoredMessage[]): SearchRow[] {
  const parts = new Map<number, Set<string>>();
  for (const m of messages) {
    if (m.role === 'tool' || !m.text) continue;
    const part = Math.floor(m.seq / PART_SIZE);
    let set = parts.get(part);
    if (!set) parts.set(part, (set = new Set()));
    tokenize(m.text, set);
  }
  const rows: SearchRow[] = [{ conversationId: conversation.id, part: TITLE_PART, tokens: [...tokenize(conversation.title)] }];
  for (const [part, set] of parts) rows.push({ conversationId: conversation.id, part, tokens: [...set] });
  return rows;
}

/**
 * The search index: which conversations hold which words (`search-tokens.ts`). One row per
 * conversation title and per 50 messages, `{conversationId, part, tokens}`, in the `searchIndex`
 * store; its `tokens` index (multiEntry) is the inverted index token → rows, kept by IndexedDB.
 *
 * Kept off the agent's hot path: a save only notes which rows changed (`noteMessages`, a set and
 * a timer); a second later the rows are rebuilt from what is on disk. The watermark (`searchMeta`)
 * is the time up to which every change is indexed: if the background stops before a batch is
 * written, the next start indexes again every conversation changed since (their `updatedAt` moves
 * at each run's start and end, and a run cut short is marked interrupted at start-up) and every
 * one still marked running. A database migrated from v6 is built in batches after start
 * (`resume`), newest conversations first; until it is done, `search` answers null and the caller
 * scans the messages as before.
 */
export class SearchIndex {
  private dirty = new Map<string, Set<number> | 'all'>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private built: boolean | undefined;

  constructor(private readonly db: SidequestDb) {}

  /** Notes saved messages (after their transaction committed); indexed a moment later. */
  noteMessages(messages: readonly StoredMessage[]): void {
    for (const m of messages) {
      if (m.role === 'tool') continue;
      this.note(m.conversationId, Math.floor(m.seq / PART_SIZE));
    }
  }

  /** Notes a conversation whose title changed (or all of it, `part` omitted). */
  noteConversation(conversationId: string, part?: number): void {
    this.note(conversationId, part);
  }

  private note(conversationId: string, part?: number): void {
    const had = this.dirty.get(conversationId);
    if (part === undefined) this.dirty.set(conversationId, 'all');
    else if (had !== 'all') this.dirty.set(conversationId, (had ?? new Set()).add(part));
    this.timer ??= setTimeout(() => void this.flush().catch((error) => console.warn('The search index could not be updated:', error)), INDEX_DELAY_MS);
  }

  /** Forgets what was noted of a conversation (it was deleted: its rows went with it). */
  forget(conversationId: string): void {
    this.dirty.delete(conversationId);
  }

  /** Writes every noted change now; resolves when the index holds everything saved before the call. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const work = this.dirty;
    this.dirty = new Map();
    const startedAt = Date.now();
    this.running = this.running.catch(() => undefined).then(async () => {
      if (!work.size) return;
      const built = await this.isBuilt();
      const entries = [...work];
      for (let i = 0; i < entries.length; i += BATCH) {
        await this.db.transaction('rw', [this.db.conversations, this.db.messages, this.db.searchIndex], async () => {
          for (const [id, parts] of entries.slice(i, i + BATCH)) {
            // Until the first build is done a conversation is indexed whole (older rows may be missing).
            if (parts === 'all' || !built) await this.indexConversation(id);
            else for (const part of parts) await this.indexPart(id, part);
          }
        });
      }
      await this.setMeta({ watermark: startedAt });
    });
    return this.running;
  }

  /** Whether the whole index is there (no build from v6 under way). */
  async isBuilt(): Promise<boolean> {
    this.built ??= (await this.meta()).built;
    return this.built;
  }

  /**
   * At start: goes on with the build (after the v7 migration) in batches, newest first, then
   * catches up with whatever changed since the watermark. The catch-up only notes those
   * conversations, as a save does: they are indexed a moment later (`INDEX_DELAY_MS`), or before
   * a search that comes first. Indexing them at once held the conversations and messages for
   * 25–35 ms (a long conversation: longer), and the send that woke the background waited for it
   * (bench/README.md, round 7 of issue 22). Resolves when the build is done and the catch-up
   * noted; the background does not wait for it.
   */
  async resume(): Promise<void> {
    let meta = await this.meta();
    while (!meta.built) {
      const next = meta.cursor
        ? this.db.conversations.where('[updatedAt+id]').below(meta.cursor)
        : this.db.conversations.orderBy('[updatedAt+id]');
      const batch = await next.reverse().limit(BATCH).toArray();
      await this.db.transaction('rw', [this.db.conversations, this.db.messages, this.db.searchIndex], async () => {
        for (const c of batch) await this.indexConversation(c.id);
      });
      const last = batch.at(-1);
      meta = await this.setMeta(last && batch.length === BATCH ? { cursor: [last.updatedAt, last.id] } : { built: true, cursor: undefined });
      this.built = meta.built;
      // Let other work (the pages' requests) run between batches.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const since = meta.watermark - WATERMARK_MARGIN_MS;
    const changed = await this.db.conversations.where('updatedAt').aboveOrEqual(since).primaryKeys();
    const running = await this.db.conversations.where('status').equals('running').primaryKeys();
    for (const id of new Set([...changed, ...running])) this.note(id);
  }

  /**
   * The conversations that hold every term of the query (title or message text), most recently
   * active first, without their context summaries (`search-query.ts`); null while the index is
   * still being built.
   */
  async find(query: string, limit: number): Promise<Conversation[] | null> {
    const terms = queryTerms(query);
    if (!terms.length) return [];
    if (this.dirty.size) await this.flush();
    else await this.running;
    if (!(await this.isBuilt())) return null;
    if (!this.db.isOpen()) await this.db.open();
    return (await findConversations(this.db.backendDB(), terms, limit)).map(listed);
  }

  /** Ids of what `find` finds. */
  async search(query: string, limit: number): Promise<string[] | null> {
    return (await this.find(query, limit))?.map((c) => c.id) ?? null;
  }

  private async indexConversation(id: string): Promise<void> {
    const conversation = await this.db.conversations.get(id);
    const range = this.db.searchIndex.where('[conversationId+part]').between([id, Dexie.minKey], [id, Dexie.maxKey]);
    await range.delete();
    if (!conversation) return;
    const messages = await this.db.messages
      .where('[conversationId+seq]')
      .between([id, Dexie.minKey], [id, Dexie.maxKey])
      .toArray();
    await this.db.searchIndex.bulkPut(rowsFor(conversation, messages));
  }

  private async indexPart(id: string, part: number): Promise<void> {
    if (part === TITLE_PART) {
      const conversation = await this.db.conversations.get(id);
      if (!conversation) return void (await this.db.searchIndex.delete([id, TITLE_PART]));
      await this.db.searchIndex.put({ conversationId: id, part, tokens: [...tokenize(conversation.title)] });
      return;
    }
    const messages = await this.db.messages
      .where('[conversationId+seq]')
      .between([id, part * PART_SIZE], [id, (part + 1) * PART_SIZE], true, false)
      .toArray();
    const tokens = new Set<string>();
    for (const m of messages) if (m.role !== 'tool' && m.text) tokenize(m.text, tokens);
    if (tokens.size) await this.db.searchIndex.put({ conversationId: id, part, tokens: [...tokens] });
    else await this.db.searchIndex.delete([id, part]);
  }

  private async meta(): Promise<SearchMeta> {
    // No row: a database made at v7 (nothing to build) or emptied by Delete all data.
    return (await this.db.searchMeta.get(META_KEY)) ?? { key: META_KEY, built: true, watermark: 0 };
  }

  private async setMeta(patch: Partial<Omit<SearchMeta, 'key'>>): Promise<SearchMeta> {
    return this.db.transaction('rw', this.db.searchMeta, async () => {
      const next: SearchMeta = { ...(await this.meta()), ...patch };
      if (!next.cursor) delete next.cursor;
      await this.db.searchMeta.put(next);
      return next;
    });
  }

  /** Forgets what it keeps in memory (after Delete all data). */
  reset(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty.clear();
    this.built = undefined;
  }
}

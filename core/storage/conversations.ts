import Dexie from 'dexie';
import { setBounded } from '@/core/retained';
import { DEFAULT_TITLE } from './default-title';
import { SearchIndex, TITLE_PART } from './search-index';
import { listed } from './search-query';
import type {
  AssistantMessage,
  Conversation,
  SidequestDb,
  StoredMessage,
  ToolMessage,
} from './db';
import type { StepTrace } from '@/core/data/trace';

export { DEFAULT_TITLE };

/** A page of the conversation list: after the last one of the page before, if any. */
export interface ListPageRequest {
  after?: { updatedAt: number; id: string };
  limit: number;
}

export interface ListPage {
  conversations: Conversation[];
  /** How many conversations there are in all. */
  total: number;
}

const MAX_TITLE = 80;

/** The stores the raw transactions write (`ConversationStore.transact`). */
type StoreName = 'conversations' | 'messages' | 'traces';

/** A conversation that is not there, as every reader and writer says it. */
const missing = (id: string) => new Error(`Conversation ${id} does not exist (it may have been deleted).`);

/** Conversations whose next message number is kept in memory (the rest read it from the database). */
export const MAX_KNOWN_SEQ = 256;

/** A message before the store has given it an id, a place and a time. */
export type NewMessage<M extends StoredMessage = StoredMessage> = M extends StoredMessage
  ? Omit<M, 'id' | 'seq' | 'createdAt'> & Partial<Pick<M, 'id'>>
  : never;

/** Gives a new message its id (unless it has one), its place `seq` and its time. */
export function stampMessage<M extends StoredMessage>(message: NewMessage<M>, seq: number): M {
  return { ...message, id: message.id ?? crypto.randomUUID(), seq, createdAt: Date.now() } as unknown as M;
}

/** Makes a short title from the first thing the user wrote. */
export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return DEFAULT_TITLE;
  return line.length > MAX_TITLE ? `${line.slice(0, MAX_TITLE - 1).trimEnd()}…` : line;
}

/** A conversation not yet stored: `create` writes one, `beginRun({ create })` writes one with its first message. */
export function newConversation(title = DEFAULT_TITLE, id: string = crypto.randomUUID()): Conversation {
  const now = Date.now();
  return { id, title: title.trim().slice(0, MAX_TITLE) || DEFAULT_TITLE, createdAt: now, updatedAt: now, status: 'idle' };
}

/** What `beginRun` wrote and read: the user's message as stored, the conversation as marked, and its history with that message last. */
export interface BegunRun<M extends StoredMessage> {
  message: M;
  conversation: Conversation;
  history: StoredMessage[];
}

/**
 * Conversations and their messages in IndexedDB. The background is the only writer, so it keeps
 * the next message number of each conversation in memory instead of reading it at every append.
 */
export class ConversationStore {
  private readonly nextSeq = new Map<string, number>();
  /** Titles and message text by word; kept up to date off the hot path (`search-index.ts`). */
  readonly index: SearchIndex;

  /** How many conversations' next numbers are kept (`core/retained.ts`): the most recently written, at most `MAX_KNOWN_SEQ`. */
  get knownSeqs(): number {
    return this.nextSeq.size;
  }

  constructor(readonly db: SidequestDb) {
    this.index = new SearchIndex(db);
  }

  async create(title = DEFAULT_TITLE): Promise<Conversation> {
    const conversation = newConversation(title);
    await this.db.conversations.add(conversation);
    setBounded(this.nextSeq, conversation.id, 0, MAX_KNOWN_SEQ);
    this.index.noteConversation(conversation.id, TITLE_PART);
    return conversation;
  }

  /** All conversations, most recently active first. */
  async list(): Promise<Conversation[]> {
    return this.db.conversations.orderBy('updatedAt').reverse().toArray();
  }

  /**
   * One page of the list, most recently active first: the `limit` conversations after `after`
   * (the last one of the page before; none: from the top), read with a cursor on
   * `[updatedAt+id]`, and how many there are in all.
   */
  async listPage({ after, limit }: ListPageRequest): Promise<ListPage> {
    const from = after ? this.db.conversations.where('[updatedAt+id]').below([after.updatedAt, after.id]) : this.db.conversations.orderBy('[updatedAt+id]');
    const [conversations, total] = await Promise.all([from.reverse().limit(limit).toArray(), this.db.conversations.count()]);
    // The pages never use a conversation's context summary (up to kilobytes each).
    return { conversations: conversations.map(listed), total };
  }

  get(id: string): Promise<Conversation | undefined> {
    return this.db.conversations.get(id);
  }

  async getOrThrow(id: string): Promise<Conversation> {
    const conversation = await this.get(id);
    if (!conversation) throw missing(id);
    return conversation;
  }

  /** The messages of a conversation in order. */
  messages(conversationId: string): Promise<StoredMessage[]> {
    return this.db.messages
      .where('[conversationId+seq]')
      .between([conversationId, Dexie.minKey], [conversationId, Dexie.maxKey])
      .toArray();
  }

  /**
   * Changes a conversation: read and written in one transaction, so IndexedDB orders two updates
   * (or an update and any later write of the conversation) as they were called.
   */
  update(id: string, patch: Partial<Omit<Conversation, 'id'>>): Promise<Conversation> {
    return this.transact('conversations', 'conversation', (tx, fail) => {
      const table = tx.objectStore('conversations');
      let next: Conversation | undefined;
      let retitled = false;
      const read = table.get(id);
      read.onsuccess = () => {
        const conversation = read.result as Conversation | undefined;
        if (!conversation) return fail(missing(id));
        next = { ...conversation, ...patch, updatedAt: patch.updatedAt ?? Date.now() };
        retitled = patch.title !== undefined && patch.title !== conversation.title;
        table.put(next);
      };
      return () => {
        if (retitled) this.index.noteConversation(id, TITLE_PART);
        return next!;
      };
    });
  }

  async rename(id: string, title: string): Promise<Conversation> {
    const clean = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE);
    if (!clean) throw new Error('A conversation needs a title.');
    return this.update(id, { title: clean, titleEdited: true });
  }

  async delete(id: string): Promise<void> {
    await this.db.transaction('rw', [this.db.conversations, this.db.messages, this.db.traces, this.db.searchIndex], async () => {
      await this.db.messages.where('conversationId').equals(id).delete();
      await this.db.traces.where('conversationId').equals(id).delete();
      await this.db.searchIndex.where('[conversationId+part]').between([id, Dexie.minKey], [id, Dexie.maxKey]).delete();
      await this.db.conversations.delete(id);
    });
    this.nextSeq.delete(id);
    this.index.forget(id);
  }

  /** Forgets what it keeps in memory (after Delete all data). */
  reset(): void {
    this.nextSeq.clear();
    this.index.reset();
  }

  /**
   * Ids of conversations that hold every word of `query` (as word prefixes, case and diacritics
   * ignored; `search-tokens.ts`) in their title or message text, most recently active first,
   * from the search index. While the index is still being built after an upgrade, the messages
   * are scanned instead (`scan`).
   */
  async search(query: string, limit = 200): Promise<string[]> {
    if (!query.trim()) return [];
    return (await this.index.search(query, limit)) ?? this.scan(query, limit);
  }

  /** What `search` finds, as the list shows it (without context summaries). */
  async searchConversations(query: string, limit = 200): Promise<Conversation[]> {
    if (!query.trim()) return [];
    const found = await this.index.find(query, limit);
    if (found) return found;
    return (await this.db.conversations.bulkGet(await this.scan(query, limit))).flatMap((c) => (c ? [listed(c)] : []));
  }

  /** The search without the index: title or message text containing `query`, one read of every message. */
  async scan(query: string, limit = 200): Promise<string[]> {
    const needle = query.trim().toLowerCase();
    if (!needle) return [];
    const conversations = await this.list();
    const hits = new Set(conversations.filter((c) => c.title.toLowerCase().includes(needle)).map((c) => c.id));
    await this.db.messages.each((m) => {
      if (hits.has(m.conversationId)) return;
      const text = m.role === 'tool' ? '' : m.text;
      if (text && text.toLowerCase().includes(needle)) hits.add(m.conversationId);
    });
    return conversations.filter((c) => hits.has(c.id)).slice(0, limit).map((c) => c.id);
  }

  /** Adds a message at the end of its conversation and returns it as stored. */
  async append<M extends StoredMessage>(message: NewMessage<M>): Promise<M> {
    const stored = await this.prepare(message);
    await this.db.messages.add(stored);
    this.index.noteMessages([stored]);
    return stored;
  }

  /**
   * Gives a message its id, place and time without writing it: the agent loop writes several
   * prepared messages in one transaction with `putMany`.
   */
  async prepare<M extends StoredMessage>(message: NewMessage<M>): Promise<M> {
    return stampMessage(message, await this.allocateSeq(message.conversationId));
  }

  /** Writes a message again after it changed (streamed text, a tool result). */
  put(message: StoredMessage): Promise<void> {
    return this.putMany([message]);
  }

  /**
   * Writes several messages in one transaction. This is the agent loop's hot path (one call per
   * step: the answer with its tool results), so it talks to IndexedDB directly (Dexie's own
   * promise scheduling costs milliseconds a write here); IndexedDB keeps it in order with every
   * Dexie transaction on the same database.
   */
  putMany(messages: StoredMessage[]): Promise<void> {
    const written = this.transact('messages', 'messages', (tx) => {
      const table = tx.objectStore('messages');
      for (const message of messages) table.put(message);
      return () => undefined;
    }, { writesOnly: true });
    // Indexed for search a moment later, off this path (a set and a timer there); the step's
    // promise is not held up by it.
    void written.then(() => this.index.noteMessages(messages), () => undefined);
    return written;
  }

  /**
   * Keeps steps' traces, in a transaction of their own (no step waits for it, and its scope is
   * not the messages'). A trace that cannot be written is logged and costs only itself.
   */
  putTraces(traces: readonly StepTrace[]): Promise<void> {
    return this.transact('traces', 'traces', (tx) => {
      const table = tx.objectStore('traces');
      for (const trace of traces) table.put(trace);
      return () => undefined;
    }, { writesOnly: true }).catch((error: unknown) => console.warn('[sidequest] could not keep a step trace', error));
  }

  /**
   * The start of a run from a user's message, in one transaction (`AgentRunner.send`): reads the
   * conversation and its messages, adds the message after them, and writes the conversation with
   * `mark(conversation)` applied (its status, a title), so the message is stored and the
   * conversation marked before the run's first request is built. `create`: a new conversation
   * (`newConversation`), written in the same transaction. Rejects, writing nothing, if the
   * conversation does not exist (or `create`'s does).
   */
  beginRun<M extends StoredMessage>(
    message: NewMessage<M>,
    mark: (conversation: Conversation) => Partial<Omit<Conversation, 'id'>>,
    { create }: { create?: Conversation } = {},
  ): Promise<BegunRun<M>> {
    const id = message.conversationId;
    // Not `writesOnly` even for a new conversation (its requests are all writes): with an early
    // commit the send measured slower, never faster (bench/README.md, round 5 of issue 22).
    return this.transact(['conversations', 'messages'], 'message', (tx, fail) => {
      let begun: BegunRun<M> | undefined;
      let retitled = false;
      const conversations = tx.objectStore('conversations');
      const messages = tx.objectStore('messages');
      const write = (conversation: Conversation | undefined, history: StoredMessage[]) => {
        try {
          if (!conversation) return fail(missing(id));
          const seq = this.nextSeq.get(id) ?? (history.length ? history[history.length - 1]!.seq + 1 : 0);
          const stored = stampMessage(message, seq);
          const patch = mark(conversation);
          const next: Conversation = { ...conversation, ...patch, updatedAt: patch.updatedAt ?? Date.now() };
          messages.add(stored);
          if (create) conversations.add(next);
          else conversations.put(next);
          history.push(stored);
          retitled = Boolean(create) || (patch.title !== undefined && patch.title !== conversation.title);
          begun = { message: stored as M, conversation: next, history };
        } catch (error) {
          fail(error);
        }
      };
      // A new conversation has no history to read: its writes are issued at once. One that exists
      // already fails the `add`, which aborts the transaction.
      if (create) {
        write(create, []);
      } else {
        const found = conversations.get(id);
        const read = messages.index('[conversationId+seq]').getAll(IDBKeyRange.bound([id, -Infinity], [id, Infinity]));
        read.onsuccess = () => write(found.result as Conversation | undefined, read.result as StoredMessage[]);
      }
      return () => {
        setBounded(this.nextSeq, id, begun!.message.seq + 1, MAX_KNOWN_SEQ);
        if (retitled) this.index.noteConversation(id, TITLE_PART);
        this.index.noteMessages([begun!.message]);
        return begun!;
      };
    });
  }

  /**
   * A raw readwrite transaction, off Dexie (the step's and the send's hot path), with relaxed
   * durability (it still survives a stopped worker). `requests` issues the writes; a request's
   * callback that finds the write must not happen calls `fail`, which aborts it with that error.
   * `requests` returns what to do once committed, whose value the promise resolves to. `what` names
   * what was being saved in the errors. `writesOnly`: `requests` issues every request at once (no
   * read to wait for), so the transaction is committed at once (`commit()`) instead of after the
   * requests' results have come back.
   */
  private transact<T>(
    stores: StoreName | StoreName[],
    what: string,
    requests: (tx: IDBTransaction, fail: (error: unknown) => void) => () => T,
    { writesOnly = false } = {},
  ): Promise<T> {
    if (!this.db.isOpen()) return this.db.open().then(() => this.transact(stores, what, requests, { writesOnly }));
    const idb = this.db.backendDB();
    return new Promise<T>((resolve, reject) => {
      const tx = idb.transaction(stores, 'readwrite', { durability: 'relaxed' });
      let failure: Error | undefined;
      let committed: () => T = () => undefined as T;
      const fail = (error: unknown) => {
        failure = error instanceof Error ? error : new Error(String(error));
        tx.abort();
      };
      tx.oncomplete = () => resolve(committed());
      tx.onerror = () => reject(failure ?? tx.error ?? new Error(`The ${what} could not be saved.`));
      tx.onabort = () => reject(failure ?? tx.error ?? new Error(`Saving the ${what} was aborted.`));
      try {
        committed = requests(tx, fail);
        if (writesOnly && !failure) tx.commit?.();
      } catch (error) {
        fail(error);
      }
    });
  }

  private async allocateSeq(conversationId: string): Promise<number> {
    let next = this.nextSeq.get(conversationId);
    if (next === undefined) {
      const last = await this.db.messages
        .where('[conversationId+seq]')
        .between([conversationId, Dexie.minKey], [conversationId, Dexie.maxKey])
        .last();
      next = last ? last.seq + 1 : 0;
    }
    // A bounded cache: a conversation not written for a long while reads its last number again.
    setBounded(this.nextSeq, conversationId, next + 1, MAX_KNOWN_SEQ);
    return next;
  }

  /**
   * After the browser stopped the background mid-run: every conversation still marked running
   * (and not running now) is marked interrupted, and so are its unfinished messages. The text
   * streamed so far and every finished tool result stay as they were saved. `runningNow` is asked
   * inside each conversation's transaction, so a run started meanwhile (a send handled before
   * this finished) is left alone: its own write is ordered after this one, or it counts as running.
   */
  async recoverInterrupted(runningNow: ReadonlySet<string> | ((conversationId: string) => boolean) = new Set()): Promise<Conversation[]> {
    const running = typeof runningNow === 'function' ? runningNow : (id: string) => runningNow.has(id);
    const stale = (await this.db.conversations.where('status').equals('running').toArray()).filter((c) => !running(c.id));
    const recovered: Conversation[] = [];
    for (const stored of stale) {
      await this.db.transaction('rw', this.db.conversations, this.db.messages, async () => {
        const conversation = await this.db.conversations.get(stored.id);
        if (conversation?.status !== 'running' || running(conversation.id)) return;
        const messages = await this.messages(conversation.id);
        for (const message of messages) {
          if (message.role === 'assistant' && message.status === 'streaming') {
            const next: AssistantMessage = { ...message, status: 'interrupted' };
            await this.db.messages.put(next);
          } else if (message.role === 'tool' && message.status === 'running') {
            const next: ToolMessage = {
              ...message,
              status: 'interrupted',
              result: { ok: false, code: 'aborted', error: 'The browser stopped the extension while this tool was running; it did not finish.' },
            };
            await this.db.messages.put(next);
          }
        }
        const next: Conversation = { ...conversation, status: 'interrupted', updatedAt: Date.now() };
        await this.db.conversations.put(next);
        recovered.push(next);
      });
    }
    return recovered;
  }
}

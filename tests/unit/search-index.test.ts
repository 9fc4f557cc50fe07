// The conversation search index (core/storage/search-index.ts, search-tokens.ts) and the list read
// a page at a time (ConversationStore.listPage, stores/conversation-pages.ts): mechanisms, not speed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { importArchive } from '@/core/data/store';
import { makeArchive } from '@/core/data/archive';
import { ConversationStore } from '@/core/storage/conversations';
import { openDb, type Conversation, type SidequestDb, type StoredMessage } from '@/core/storage/db';
import { INDEX_DELAY_MS, PART_SIZE } from '@/core/storage/search-index';
import { findConversations } from '@/core/storage/search-query';
import { MAX_QUERY_TERMS, queryTerms, tokenize } from '@/core/storage/search-tokens';
import { useConversationPages } from '@/stores/conversation-pages';

let n = 0;
const freshDb = () => openDb(`test-search-${++n}-${Math.random()}`);

afterEach(() => vi.useRealTimers());

describe('search tokens', () => {
  it('folds case, compatibility forms and diacritics; splits on anything but letters and digits', () => {
    expect([...tokenize('Ünïcode ZEBRA-needle, Ｆｕｌｌ width; Tiếng Việt đã xong; Straße')]).toEqual([
      'unicode', 'zebra', 'needle', 'full', 'width', 'tieng', 'viet', 'da', 'xong', 'strasse',
    ]);
    // Hebrew points and Armenian letters: the words as written, without the points.
    expect([...tokenize('שָׁלוֹם עולם')]).toEqual(['שלום', 'עולם']);
    expect([...tokenize('Բարեւ Աշխարհ')]).toEqual(['բարեւ', 'աշխարհ']);
  });

  it('indexes Chinese, Japanese and Korean runs as character pairs plus the last character', () => {
    expect([...tokenize('搜索对话')]).toEqual(['搜索', '索对', '对话', '话']);
    expect([...tokenize('中')]).toEqual(['中']);
    expect([...tokenize('한국어 text')]).toEqual(['한국', '국어', '어', 'text']);
    // A run inside a word of another script is split out.
    expect([...tokenize('abc中文def')]).toEqual(['abc', '中文', '文', 'def']);
  });

  it('a query: word prefixes, one-letter words whole, CJK pairs exact, one CJK character a prefix', () => {
    expect(queryTerms('Hol Ä')).toEqual([{ from: 'hol', to: 'hol\uffff' }, { from: 'a', to: 'a' }]);
    expect(queryTerms('对话记录')).toEqual([{ from: '对话', to: '对话' }, { from: '话记', to: '话记' }, { from: '记录', to: '记录' }]);
    expect(queryTerms('话')).toEqual([{ from: '话', to: '话\uffff' }]);
    expect(queryTerms('  -- ')).toEqual([]);
  });

  it('a pasted page as a query: only its first MAX_QUERY_TERMS terms count', () => {
    const words = Array.from({ length: 500 }, (_, i) => `word${i}`);
    const terms = queryTerms(words.join(' '));
    expect(terms).toHaveLength(MAX_QUERY_TERMS);
    expect(terms.at(-1)).toEqual({ from: `word${MAX_QUERY_TERMS - 1}`, to: `word${MAX_QUERY_TERMS - 1}\uffff` });
    expect(queryTerms('中文'.repeat(200))).toHaveLength(2);
  });
});

async function conversationWith(store: ConversationStore, title: string, texts: string[]): Promise<Conversation> {
  const c = await store.create(title);
  for (const text of texts) await store.append({ role: 'user', conversationId: c.id, text });
  return store.getOrThrow(c.id);
}

describe('the search index', () => {
  it('finds titles and message text by word prefix, diacritics and CJK too; updated, renamed and deleted conversations follow', async () => {
    const store = new ConversationStore(freshDb());
    const a = await conversationWith(store, 'Holiday plans', ['Flights to Lisbon']);
    const b = await conversationWith(store, 'Work', ['Café menu for the 搜索对话 team, to go']);
    expect(await store.search('lis')).toEqual([a.id]);
    expect(await store.search('CAFE')).toEqual([b.id]);
    expect(await store.search('对话')).toEqual([b.id]);
    expect(await store.search('搜索对话')).toEqual([b.id]);
    expect(await store.search('holiday flights')).toEqual([a.id]);
    expect(await store.search('holiday menu')).toEqual([]);
    // A message written again (streamed text that grew) replaces its words.
    const [m] = (await store.messages(a.id)) as Array<Extract<StoredMessage, { role: 'user' }>>;
    await store.put({ ...m!, text: 'Trains to Porto' });
    expect(await store.search('lisbon')).toEqual([]);
    expect(await store.search('porto')).toEqual([a.id]);
    // Renamed: the new title's words, not the old one's.
    await store.rename(b.id, 'Lunch');
    expect(await store.search('work')).toEqual([]);
    expect(await store.search('lunch')).toEqual([b.id]);
    // Most recently active first.
    await store.update(a.id, {});
    expect(await store.search('to')).toEqual([a.id, b.id]);
    // Deleted: its rows go with it.
    await store.delete(a.id);
    expect(await store.db.searchIndex.where('[conversationId+part]').between([a.id, -Infinity], [a.id, Infinity]).count()).toBe(0);
    expect(await store.search('porto')).toEqual([]);
  });

  it('a save only notes the change: the index is written a moment later in one batch, or at once when searched', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const store = new ConversationStore(freshDb());
    const c = await store.create('Notes');
    const messages = await Promise.all(Array.from({ length: PART_SIZE + 2 }, () => store.prepare({ role: 'user', conversationId: c.id, text: 'zebra' })));
    await store.putMany(messages);
    // Nothing written yet for the messages: the title row only (from create, after the delay too).
    expect(await store.db.searchIndex.count()).toBe(0);
    await vi.advanceTimersByTimeAsync(INDEX_DELAY_MS + 10);
    await store.index.flush();
    // The title and two parts of 50 messages.
    expect((await store.db.searchIndex.toArray()).map((r) => r.part).sort()).toEqual([-1, 0, 1]);
    expect((await store.db.searchMeta.get('state'))?.watermark).toBeGreaterThan(0);
  });

  /** A save whose note never became a write (the background stopped before the batch ran); then the next start: a new store on the same database. */
  async function lostSave(): Promise<{ db: SidequestDb; id: string; next: ConversationStore }> {
    const db = freshDb();
    const store = new ConversationStore(db);
    const c = await conversationWith(store, 'Old', ['before']);
    await store.index.flush();
    const lost = await store.prepare({ role: 'user', conversationId: c.id, text: 'quokka' });
    await db.messages.put(lost);
    await store.update(c.id, { status: 'interrupted' });
    return { db, id: c.id, next: new ConversationStore(db) };
  }

  it('a change whose indexing was lost (the background stopped) is caught up at the next start from the watermark', async () => {
    const { id, next } = await lostSave();
    await next.index.resume();
    expect(await next.search('quokka')).toEqual([id]);
  });

  it('the catch-up at start only notes what it found: nothing is written until a moment later or a search, so the send that woke the background does not wait for it', async () => {
    const { db, id, next } = await lostSave();
    const rowsBefore = await db.searchIndex.toArray();
    await next.index.resume();
    expect(await db.searchIndex.toArray()).toEqual(rowsBefore);
    // A search comes first: it indexes what was noted before it answers.
    expect(await next.search('quokka')).toEqual([id]);
    expect((await db.searchIndex.toArray()).some((row) => row.tokens.includes('quokka'))).toBe(true);
  });

  it('a database upgraded with conversations is built in batches, newest first, resuming where it stopped; search scans meanwhile', async () => {
    const db = freshDb();
    const store = new ConversationStore(db);
    const made: Conversation[] = [];
    for (let i = 0; i < 45; i++) made.push(await conversationWith(store, `Chat ${i}`, [i === 3 ? 'platypus here' : 'nothing']));
    await store.index.flush();
    // As the v7 migration leaves it: no rows, not built.
    await db.searchIndex.clear();
    await db.searchMeta.put({ key: 'state', built: false, watermark: Date.now() });
    const fresh = new ConversationStore(db);
    // Not built: the scan answers (today's semantics: a substring).
    expect(await fresh.search('latypu')).toEqual([made[3]!.id]);
    await fresh.index.resume();
    expect((await db.searchMeta.get('state'))?.built).toBe(true);
    expect(await fresh.search('platypus')).toEqual([made[3]!.id]);
    expect(new Set((await db.searchIndex.toArray()).map((r) => r.conversationId)).size).toBe(45);
  });

  it('an archive import indexes what it imports, in the same transaction', async () => {
    const db = freshDb();
    const conversation: Conversation = { id: 'imp', title: 'Imported', createdAt: 1, updatedAt: 2, status: 'idle' };
    const messages: StoredMessage[] = [{ id: 'imp-1', conversationId: 'imp', seq: 0, createdAt: 1, role: 'user', text: 'wombat burrow' }];
    await importArchive(db, makeArchive([{ conversation, messages }]));
    expect(await new ConversationStore(db).search('wombat')).toEqual(['imp']);
  });
});

describe('the list a page at a time', () => {
  it('listPage reads newest first after a cursor, ties kept apart by id; the pages hold a contiguous head', async () => {
    const store = new ConversationStore(freshDb());
    for (let i = 0; i < 7; i++) await store.db.conversations.add({ id: `c${i}`, title: `C${i}`, createdAt: 0, updatedAt: i < 4 ? 100 : 100 + i, status: 'idle' });
    const first = await store.listPage({ limit: 3 });
    expect(first.total).toBe(7);
    expect(first.conversations.map((c) => c.id)).toEqual(['c6', 'c5', 'c4']);
    const last = first.conversations.at(-1)!;
    const second = await store.listPage({ limit: 3, after: { updatedAt: last.updatedAt, id: last.id } });
    expect(second.conversations.map((c) => c.id)).toEqual(['c3', 'c2', 'c1']);

    const pages = useConversationPages((request) => store.listPage(request));
    await pages.refresh();
    expect(pages.loaded.value).toHaveLength(7);
    const small = useConversationPages((request) => store.listPage({ ...request, limit: Math.min(request.limit, 2) }));
    await small.refresh();
    expect(small.loaded.value.map((c) => c.id)).toEqual(['c6', 'c5']);
    expect(small.more.value).toBe(true);
    // An old conversation changed elsewhere (below the head) waits aside, still found.
    small.upsert({ id: 'c0', title: 'Renamed', createdAt: 0, updatedAt: 100, status: 'idle' });
    expect(small.loaded.value.map((c) => c.id)).toEqual(['c6', 'c5']);
    expect(small.find('c0')?.title).toBe('Renamed');
    // A new one goes on top and counts.
    small.upsert({ id: 'c9', title: 'New', createdAt: Date.now(), updatedAt: Date.now(), status: 'idle' });
    expect(small.loaded.value[0]!.id).toBe('c9');
    expect(small.total.value).toBe(8);
    await small.loadMore(2);
    await small.loadMore(2);
    expect(small.loaded.value.map((c) => c.id)).toEqual(['c9', 'c6', 'c5', 'c4', 'c3', 'c2', 'c1']);
    // The page that brings the one kept aside puts it in its place.
    await small.loadMore(2);
    expect(small.loaded.value.map((c) => c.id)).toEqual(['c9', 'c6', 'c5', 'c4', 'c3', 'c2', 'c1', 'c0']);
    expect(small.loaded.value.at(-1)!.title).toBe('C0');
    small.drop('c3');
    expect(small.total.value).toBe(7);
  });
});

describe('the search query (search-query.ts): every path gives what a plain scan gives', () => {
  it('few or many candidates, common terms checked on the rows, every term common walked newest first; limits and ties kept', async () => {
    const db = freshDb();
    const entries = [];
    for (let i = 0; i < 40; i++) {
      // alpha in all, beta in every other, gamma in every fifth, delta in one; ties of updatedAt by id.
      const text = ['alpha', i % 2 ? 'beta' : '', i % 5 === 0 ? 'gamma' : '', i === 17 ? 'delta' : ''].join(' ');
      const conversation: Conversation = { id: `c${String(i).padStart(2, '0')}`, title: `T${i}`, createdAt: 0, updatedAt: 1000 + Math.floor(i / 3), status: 'idle' };
      const messages: StoredMessage[] = [{ id: `m${i}`, conversationId: conversation.id, seq: 0, createdAt: 0, role: 'user', text }];
      entries.push({ conversation, messages, text });
    }
    await importArchive(db, makeArchive(entries.map(({ conversation, messages }) => ({ conversation, messages }))));
    await db.conversations.update('c03', { contextSummary: { text: 'sum', count: 1, upTo: 'x', digest: 'd', at: 0 } });
    const newest = [...entries].sort((a, b) => b.conversation.updatedAt - a.conversation.updatedAt || (a.conversation.id < b.conversation.id ? 1 : -1));
    const expected = (query: string, limit: number) =>
      newest.filter((e) => query.split(' ').every((w) => e.text.split(' ').some((t) => t.startsWith(w)))).slice(0, limit).map((e) => e.conversation.id);
    if (!db.isOpen()) await db.open();
    const idb = db.backendDB();
    const tunings = [
      { common: 2000, few: 400, batch: 100 },
      { common: 3, few: 400, batch: 7 }, // alpha, beta, gamma common: checked on rows or walked
      { common: 25, few: 5, batch: 4 }, // beta, gamma rare with many candidates: placed by the walk
      { common: 0, few: 0, batch: 1 },
    ];
    for (const tuning of tunings) {
      for (const query of ['alpha', 'bet', 'beta gam', 'gamma alpha', 'delta alpha', 'alp beta', 'zeta', 'alpha beta gamma delta']) {
        for (const limit of [3, 200]) {
          const found = await findConversations(idb, queryTerms(query), limit, tuning);
          expect(found.map((c) => c.id), `${query} ${limit} ${JSON.stringify(tuning)}`).toEqual(expected(query, limit));
        }
      }
    }
    // The list and the search hand out conversations without their context summaries.
    const store = new ConversationStore(db);
    expect((await store.searchConversations('alpha')).find((c) => c.id === 'c03')).not.toHaveProperty('contextSummary');
    const page = await store.listPage({ limit: 100 });
    expect(page.conversations.find((c) => c.id === 'c03')).toEqual(expect.not.objectContaining({ contextSummary: expect.anything() }));
    expect((await store.get('c03'))?.contextSummary?.text).toBe('sum');
  });
});

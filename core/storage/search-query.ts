import type { Conversation, SearchRow } from './db';
import type { QueryTerm } from './search-tokens';

/** A term with more index rows than this is not read whole: candidates are checked against it instead. */
export const COMMON_ROWS = 1000;
/** Candidates up to this many are read one get() each and sorted in memory; more are placed by the recency order. */
export const FEW = 400;
/** Conversations the walk down the recency order takes at a time. */
export const WALK_BATCH = 100;

/** The thresholds above (the tests make them small to take every path). */
export interface SearchTuning {
  common: number;
  few: number;
  batch: number;
}

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

/** A conversation as the list and the search show it: without its context summary (up to kilobytes the pages never use). */
export function listed(conversation: Conversation): Conversation {
  if (!('contextSummary' in conversation)) return conversation;
  const { contextSummary: _derived, ...rest } = conversation;
  return rest;
}

/** Newest first; ties by id, descending (the `[updatedAt+id]` index read backwards). */
function newer(a: Conversation, b: Conversation): number {
  return a.updatedAt !== b.updatedAt ? b.updatedAt - a.updatedAt : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The conversations that hold every term, most recently active first, at most `limit`, read in
 * one transaction. Chromium's IndexedDB is slow at handing over many keys (about 10 µs each on a
 * busy machine: a word in every one of 10,000 conversations took 170 ms, the recency order of all
 * of them 60 ms; counting a word's rows costs as much as reading them), so no read here is
 * proportional to the whole history:
 * - each term's rows are read up to `common` + 1: a term with more is common;
 * - the terms with few rows (their conversation ids) are intersected: the candidates;
 *   the common terms are checked on the candidates' own index rows;
 * - a few candidates are read one get() each and sorted; many are placed by the recency order
 *   (a cursor with the records, so the hits need no second read);
 * - when every term is common, the recency order is walked from the newest, a batch at a time,
 *   each conversation checked on its index rows, until `limit` match.
 */
export async function findConversations(
  idb: IDBDatabase,
  terms: QueryTerm[],
  limit: number,
  { common: commonRows, few, batch }: SearchTuning = { common: COMMON_ROWS, few: FEW, batch: WALK_BATCH },
): Promise<Conversation[]> {
  const tx = idb.transaction(['searchIndex', 'conversations'], 'readonly');
  const rowsStore = tx.objectStore('searchIndex');
  const tokens = rowsStore.index('tokens');
  const conversations = tx.objectStore('conversations');
  const range = (t: QueryTerm) => IDBKeyRange.bound(t.from, t.to);
  // Each term's rows, at most `commonRows` + 1 of them: more, and the term is common.
  const probes = (await Promise.all(terms.map((t) => request(tokens.getAllKeys(range(t), commonRows + 1))))) as unknown as Array<Array<[string, number]>>;
  if (probes.some((keys) => keys.length === 0)) return [];
  const rare = terms.filter((_, i) => probes[i]!.length <= commonRows);
  const common = terms.filter((_, i) => probes[i]!.length > commonRows);

  /** Whether a conversation's index rows hold every one of `wanted`. */
  const holds = async (id: string, wanted: QueryTerm[]): Promise<boolean> => {
    if (!wanted.length) return true;
    const rows = (await request(rowsStore.getAll(IDBKeyRange.bound([id, -Infinity], [id, Infinity])))) as SearchRow[];
    return wanted.every((t) => rows.some((r) => r.tokens.some((token) => token >= t.from && token <= t.to)));
  };
  const getEach = async (ids: string[]) =>
    ((await Promise.all(ids.map((id) => request(conversations.get(id))))) as Array<Conversation | undefined>).filter((c) => c !== undefined);

  if (!rare.length) return walkNewest(conversations.index('[updatedAt+id]'), (ids) => Promise.all(ids.map((id) => holds(id, common))), limit, batch);

  const sets = probes
    .filter((keys) => keys.length <= commonRows)
    .map((keys) => new Set(keys.map((k) => k[0])))
    .sort((a, b) => a.size - b.size);
  let candidates = [...sets[0]!].filter((id) => sets.every((s) => s.has(id)));
  if (candidates.length <= few) {
    if (common.length) {
      const ok = await Promise.all(candidates.map((id) => holds(id, common)));
      candidates = candidates.filter((_, i) => ok[i]);
    }
    return (await getEach(candidates)).sort(newer).slice(0, limit);
  }
  // Many candidates: the newest of them by the recency order, then the common terms on those.
  const set = new Set(candidates);
  return walkNewest(
    conversations.index('[updatedAt+id]'),
    async (ids) => {
      return Promise.all(ids.map((id) => (set.has(id) ? holds(id, common) : false)));
    },
    limit,
    batch,
  );
}

/**
 * Walks the `[updatedAt+id]` index from the newest, `batch` conversations at a time (records and
 * all: the hits are then read already), keeping those `match` accepts, until `limit` are kept or
 * the list ends.
 */
async function walkNewest(index: IDBIndex, match: (ids: string[]) => Promise<boolean[]>, limit: number, batch: number): Promise<Conversation[]> {
  const hits: Conversation[] = [];
  const cursor = index.openCursor(null, 'prev');
  let ended = false;
  const next = (n: number) =>
    new Promise<Conversation[]>((resolve, reject) => {
      const out: Conversation[] = [];
      cursor.onerror = () => reject(cursor.error);
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c) {
          ended = true;
          return resolve(out);
        }
        out.push(c.value as Conversation);
        if (out.length >= n) return resolve(out);
        c.continue();
      };
      if (cursor.readyState === 'done') cursor.result!.continue();
    });
  while (!ended && hits.length < limit) {
    const records = await next(batch);
    const ok = await match(records.map((c) => c.id));
    for (let i = 0; i < records.length && hits.length < limit; i++) if (ok[i]) hits.push(records[i]!);
  }
  return hits;
}

import { ref, shallowRef } from 'vue';
import type { ListPage, ListPageRequest } from '@/core/storage/conversations';
import type { Conversation } from '@/core/storage/db';

/** The first page: a screen of titles and some to scroll into. */
export const FIRST_PAGE = 50;
/** Each page after it. */
export const NEXT_PAGE = 200;

/** Newest first; ties by id, descending (the order of the background's `[updatedAt+id]` cursor). */
function before(a: Conversation, b: Conversation): boolean {
  return a.updatedAt !== b.updatedAt ? a.updatedAt > b.updatedAt : a.id > b.id;
}

/**
 * The conversation list as the pages hold it: the first pages of the background's list (most
 * recently active first), read as the user scrolls, never all of it at once. `loaded` is always a
 * contiguous head of the whole list, so the next page starts after its last one. A conversation
 * that an event brings and that sorts below that head (an old one opened from a search) is kept
 * aside (`find` still finds it) until its page comes.
 */
export function useConversationPages(fetchPage: (request: ListPageRequest) => Promise<ListPage>) {
  const loaded = shallowRef<Conversation[]>([]);
  /** How many conversations there are in all (the background's count at the last page, kept up to date by events). */
  const total = ref(0);
  const more = ref(false);
  const aside = new Map<string, Conversation>();
  let loading: Promise<void> | undefined;
  let generation = 0;
  let since = 0;

  /** Reads the first page again (at start, after a reconnect or an import). */
  async function refresh(): Promise<void> {
    const mine = ++generation;
    since = Date.now();
    const page = await fetchPage({ limit: FIRST_PAGE });
    if (mine !== generation) return;
    aside.clear();
    loading = undefined;
    loaded.value = page.conversations;
    total.value = page.total;
    more.value = page.conversations.length < page.total;
  }

  /** Reads the next page (one at a time: a second call while one is read waits for it). */
  function loadMore(limit = NEXT_PAGE): Promise<void> {
    if (!more.value) return Promise.resolve();
    loading ??= (async () => {
      const mine = generation;
      const last = loaded.value.at(-1);
      const page = await fetchPage({ limit, ...(last ? { after: { updatedAt: last.updatedAt, id: last.id } } : {}) });
      if (mine !== generation) return;
      const have = new Set(loaded.value.map((c) => c.id));
      const fresh = page.conversations.filter((c) => !have.has(c.id));
      for (const c of fresh) aside.delete(c.id);
      loaded.value = [...loaded.value, ...fresh];
      total.value = Math.max(page.total, loaded.value.length);
      more.value = page.conversations.length === limit;
    })().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  /** Reads pages until the list holds at least `count` conversations (or all of them). */
  async function ensure(count: number): Promise<void> {
    while (more.value && loaded.value.length < count) await loadMore(Math.max(NEXT_PAGE, Math.min(1000, count - loaded.value.length)));
  }

  function find(id: string | null): Conversation | undefined {
    if (!id) return undefined;
    return loaded.value.find((c) => c.id === id) ?? aside.get(id);
  }

  /** A conversation new or changed: in its place in the list (or aside, if below the pages read). */
  function upsert(conversation: Conversation): void {
    const known = aside.delete(conversation.id) || loaded.value.some((c) => c.id === conversation.id);
    const list = loaded.value.filter((c) => c.id !== conversation.id);
    // One made since the list was read is one more in all.
    if (!known && conversation.createdAt >= since) total.value++;
    const last = list.at(-1);
    if (more.value && last && !before(conversation, last)) {
      aside.set(conversation.id, conversation);
      loaded.value = list;
      return;
    }
    let i = list.findIndex((c) => before(conversation, c));
    if (i < 0) i = list.length;
    loaded.value = list.toSpliced(i, 0, conversation);
  }

  function drop(id: string): void {
    const known = aside.delete(id) || loaded.value.some((c) => c.id === id);
    if (known || total.value > loaded.value.length) total.value = Math.max(0, total.value - 1);
    loaded.value = loaded.value.filter((c) => c.id !== id);
  }

  return { loaded, total, more, refresh, loadMore, ensure, find, upsert, drop };
}

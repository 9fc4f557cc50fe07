import { errorText } from '@/core/ui/i18n';
import { defineStore } from 'pinia';
import { computed, ref, shallowReactive, shallowRef } from 'vue';
import type { ProviderCheck } from '@/core/agent/provider';
import { sendMessage, type UiEvent, type UiEventOf } from '@/core/messaging/protocol';
import type { Usage } from '@/core/agent/provider';
import type { Conversation, StoredMessage, ToolMessage } from '@/core/storage/db';
import { activeConversationId, sidebarRequest } from '@/core/storage/settings';
import { subscribe } from '@/core/ui/events';
import { toolCard } from '@/core/ui/plugins';
import { useConversationPages } from './conversation-pages';

/**
 * The sidebar's view of conversations. The background owns the data (IndexedDB) and runs the
 * agent; this store mirrors it from request replies and the live event stream.
 */
export const useChatStore = defineStore('chat', () => {
  /** The list, a page at a time (`conversation-pages.ts`): `conversations` is the head read so far. */
  const pages = useConversationPages((request) => sendMessage('listConversationPage', request));
  const conversations = pages.loaded;
  const activeId = ref<string | null>(null);
  /**
   * User and assistant messages in order. A shallow ref replaced on each change, with message
   * objects replaced (never mutated) when they change: a new event re-renders only the message it
   * touches. (In Firefox the sidebar shares a thread with the background, so this is agent speed.)
   */
  const messages = shallowRef<Array<Exclude<StoredMessage, ToolMessage>>>([]);
  const loaded = ref(false);
  const providerCheck = shallowRef<ProviderCheck | null>(null);
  /** A failure of a request the page itself made (the background's run errors live on the conversation). */
  const requestError = ref<string | null>(null);

  const active = computed(() => pages.find(activeId.value) ?? null);
  /** Whether the open conversation's agent is working: its status is the one source. */
  const running = computed(() => active.value?.status === 'running');
  /** Tool results by tool call id; reactive per key, so a result re-renders only its own card. */
  const toolResults = shallowReactive(new Map<string, ToolMessage>());
  /**
   * The text of answers still streaming, by message id, where the pieces have taken it past the
   * message's own: reactive per key, so a piece renders that answer's view again and nothing else
   * (a new message list would run the chat view and patch every message in it, each piece). The
   * answer's next message event takes over (`upsertMessage`). Read it through `textOf` (or the
   * chat view's `MESSAGE_TEXT`, which a message view calls on every piece: a store action is
   * wrapped by Pinia, a plain read of this map is not).
   */
  const streamed = shallowReactive(new Map<string, string>());
  const visibleMessages = computed(() =>
    messages.value.filter((m) => m.role === 'user' || m.text !== '' || m.toolCalls.length > 0 || m.status === 'streaming'),
  );
  /**
   * Each answer's run totals, by message id: a run is the answers after one user message (a
   * Continue after a stop adds to it). A run whose totals did not change keeps its object, so a
   * new step re-renders the answers of its own run, not every answer above it.
   */
  let lastRuns = new Map<string, RunUsage>();
  const runUsage = computed(() => {
    const byMessage = new Map<string, RunUsage>();
    const runs: Array<{ run: RunUsage; ids: string[] }> = [];
    for (const m of messages.value) {
      if (m.role === 'user') {
        runs.push({ run: { answers: 0, inputTokens: 0, outputTokens: 0 }, ids: [] });
        continue;
      }
      if (m.notice) continue;
      if (!runs.length) runs.push({ run: { answers: 0, inputTokens: 0, outputTokens: 0 }, ids: [] });
      const current = runs.at(-1)!;
      current.run.answers++;
      addUsage(current.run, m.usage);
      current.ids.push(m.id);
    }
    for (const { run, ids } of runs) {
      if (!ids.length) continue;
      const before = lastRuns.get(ids[0]!);
      const same = before && sameUsage(before, run) ? before : run;
      for (const id of ids) byMessage.set(id, same);
    }
    lastRuns = byMessage;
    return byMessage;
  });

  /** A conversation the sidebar's Send is creating: its events show before it is the open one. */
  let starting: string | null = null;
  /** That Send's request, until it is answered: a reload waits for it (`refresh`). */
  let startRequest: Promise<unknown> | undefined;
  /** Whether a conversation's events belong in view: the open one, or the one being started. */
  const inView = (conversationId: string): boolean => conversationId === (activeId.value ?? starting);

  let unsubscribe: (() => void) | undefined;
  let unwatchRequests: (() => void) | undefined;

  async function init(): Promise<void> {
    unsubscribe = subscribe(onEvent, () => void refresh());
    unwatchRequests = sidebarRequest.watch((request) => {
      if (request && request.conversationId !== activeId.value) void open(request.conversationId);
    });
    await refresh();
    loaded.value = true;
  }

  function dispose(): void {
    unsubscribe?.();
    unwatchRequests?.();
  }

  /** Reloads everything from the background (at start and after a reconnect). */
  async function refresh(): Promise<void> {
    // The worker came back while Send was creating a conversation: reloading now would leave the
    // new conversation out of view (it is not stored as the open one yet). Once the Send is
    // answered, it is, and the reload opens it with what it holds by then.
    while (startRequest) await startRequest.catch(() => undefined);
    await pages.refresh();
    // Opened even when it is not on the first page (getConversation says if it is gone).
    const stored = await activeConversationId.getValue();
    await open(stored ?? null, { persist: false });
  }

  async function open(id: string | null, { persist = true } = {}): Promise<void> {
    activeId.value = id;
    starting = null;
    requestError.value = null;
    if (persist) await activeConversationId.setValue(id);
    if (!id) {
      setMessages([]);
      return;
    }
    const view = await sendMessage('getConversation', { id });
    if (activeId.value !== id) return;
    if (!view) {
      activeId.value = null;
      setMessages([]);
      return;
    }
    upsertConversation(view.conversation);
    setMessages(view.messages);
  }

  /**
   * Asks the sidebar to show a conversation (null: a new one), from another page (the popup):
   * read by a sidebar that opens now, watched by one that is already open.
   */
  async function showInSidebar(conversationId: string | null): Promise<void> {
    await activeConversationId.setValue(conversationId);
    await sidebarRequest.setValue({ conversationId, at: Date.now() });
  }

  /** Starts an empty conversation; it is created in the background when the first message is sent. */
  async function startNew(): Promise<void> {
    await open(null);
  }

  /** Sends a message; resolves true when the background accepted it (the draft may be cleared). */
  async function send(text: string): Promise<boolean> {
    requestError.value = null;
    try {
      const id = activeId.value;
      if (!id) {
        // One round trip: the background creates it with the message and starts the run. Its id is
        // chosen here and shown at once, so the run's events (the message, the answer) land in view.
        // It becomes the open one once it exists (its model pick has moved to it by then).
        const newId = crypto.randomUUID();
        starting = newId;
        const request = (async () => {
          const conversation = await sendMessage('startConversation', { id: newId, text });
          upsertConversation(conversation);
          if (starting === newId && !activeId.value) {
            activeId.value = newId;
            await activeConversationId.setValue(newId);
          }
        })();
        startRequest = request;
        try {
          await request;
          return true;
        } finally {
          if (startRequest === request) startRequest = undefined;
          if (starting === newId) starting = null;
        }
      }
      // Sent first: the page's own update of the list waits for no one.
      const sent = sendMessage('sendMessage', { conversationId: id, text });
      markRunning(id);
      await sent;
      return true;
    } catch (error) {
      void refresh();
      requestError.value = errorText(error);
      return false;
    }
  }

  async function stop(): Promise<void> {
    if (activeId.value) await sendMessage('stopRun', { conversationId: activeId.value });
  }

  async function resume(): Promise<void> {
    if (!activeId.value) return;
    markRunning(activeId.value);
    await sendMessage('resumeRun', { conversationId: activeId.value });
  }

  /** Shows the run as started at once; the background's `conversation` event confirms it. */
  function markRunning(id: string): void {
    const conversation = pages.find(id);
    if (conversation) upsertConversation({ ...conversation, status: 'running', error: undefined });
  }

  async function rename(id: string, title: string): Promise<void> {
    upsertConversation(await sendMessage('renameConversation', { id, title }));
  }

  async function remove(id: string): Promise<void> {
    await sendMessage('deleteConversation', { id });
    dropConversation(id);
  }

  /** The open conversation's "act without asking" switch (the approval gate asks nothing while on). */
  async function setActWithoutAsking(on: boolean): Promise<void> {
    const id = activeId.value;
    if (!id) return;
    try {
      upsertConversation(await sendMessage('setActWithoutAsking', { conversationId: id, on }));
    } catch (error) {
      requestError.value = errorText(error);
    }
  }

  async function checkProvider(): Promise<void> {
    providerCheck.value = await sendMessage('checkProvider').catch((error: Error) => ({ ok: false, model: '', message: error.message }));
  }

  function upsertConversation(conversation: Conversation): void {
    pages.upsert(conversation);
  }

  function dropConversation(id: string): void {
    pages.drop(id);
    if (activeId.value === id) void open(null);
  }

  function setMessages(all: StoredMessage[]): void {
    toolResults.clear();
    streamed.clear();
    const list: Array<Exclude<StoredMessage, ToolMessage>> = [];
    for (const m of all) {
      if (m.role === 'tool') toolResults.set(m.toolCallId, m);
      else list.push(m);
    }
    messages.value = list;
  }

  function upsertMessage(message: StoredMessage): void {
    if (message.role === 'tool') {
      toolResults.set(message.toolCallId, message);
      return;
    }
    // A message event mid-stream that does not hold all the text streamed yet keeps the rest.
    const live = streamed.get(message.id);
    if (live !== undefined && !(message.role === 'assistant' && message.status === 'streaming' && live.length > message.text.length && live.startsWith(message.text))) streamed.delete(message.id);
    const list = messages.value;
    const at = list.findIndex((m) => m.id === message.id);
    if (at >= 0) {
      messages.value = list.with(at, message);
      return;
    }
    // Usually the newest; keep the order by seq either way.
    let i = list.length;
    while (i > 0 && list[i - 1]!.seq > message.seq) i--;
    messages.value = list.toSpliced(i, 0, message);
  }

  /**
   * A piece of streamed text: the background sends at most one per answer per half frame, joined
   * (`core/background/delta-coalescer.ts`), so each is applied at once: the Markdown view renders
   * at its next frame, and waiting here for another task would only put the text behind whatever
   * else is queued (in Firefox, the background's work shares this thread). The longer text goes
   * to `streamed`, not into the message list: only that answer's view renders again.
   */
  function applyDelta(event: UiEventOf<'delta'>): void {
    if (!inView(event.conversationId)) return;
    const list = messages.value;
    // The answer being streamed is almost always the last message.
    const message = list.findLast((m) => m.id === event.messageId);
    if (!message || message.role !== 'assistant') return;
    // The snapshot may already hold part of this piece, or miss an earlier one; the final
    // message event always brings the whole text.
    const text = textOf(message);
    const have = text.length;
    if (have < event.offset || have >= event.offset + event.text.length) return;
    streamed.set(message.id, text + event.text.slice(have - event.offset));
  }

  /** A message's text as shown: what has streamed of it so far, while it streams. */
  function textOf(message: { id: string; text: string }): string {
    return shownText(streamed, message);
  }

  /** Conversations whose title or text holds the query's words (the background's index). */
  function search(query: string): Promise<Conversation[]> {
    return sendMessage('searchConversations', { query });
  }

  /** One conversation's archive, for its Export buttons. */
  function exportConversation(id: string) {
    return sendMessage('exportConversations', { conversationId: id });
  }

  function onEvent(event: UiEvent): void {
    switch (event.type) {
      case 'conversation':
        upsertConversation(event.conversation);
        break;
      case 'conversation-deleted':
        dropConversation(event.id);
        break;
      case 'data-reset':
        // Everything was deleted or imported: the list, the open conversation and the provider.
        void refresh();
        void checkProvider();
        break;
      case 'message':
        if (inView(event.message.conversationId)) upsertMessage(event.message);
        break;
      case 'delta':
        applyDelta(event);
        break;
      case 'tool-activity': {
        if (!inView(event.conversationId)) break;
        const tool = toolResults.get(event.toolCallId);
        const reduce = toolCard(event.toolName)?.reduceActivity;
        if (!tool || !reduce) break;
        // Reducers return a new record (they never change the one given), so views of it update.
        toolResults.set(event.toolCallId, { ...tool, activity: reduce(tool.activity, event.event) });
        break;
      }
    }
  }

  return {
    conversations,
    conversationTotal: pages.total,
    moreConversations: pages.more,
    loadMoreConversations: pages.loadMore,
    ensureConversations: pages.ensure,
    activeId,
    active,
    messages,
    visibleMessages,
    runUsage,
    search,
    exportConversation,
    toolResults,
    streamed,
    textOf,
    running,
    loaded,
    providerCheck,
    requestError,
    init,
    dispose,
    open,
    startNew,
    showInSidebar,
    send,
    stop,
    resume,
    rename,
    remove,
    setActWithoutAsking,
    checkProvider,
  };
});

/** Token totals of one run. */
export interface RunUsage {
  answers: number;
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, read from the provider's prompt cache: set when an answer's provider said some. */
  cachedInputTokens?: number;
  /** Of `inputTokens`, written to the provider's prompt cache: set when an answer's provider said some. */
  cacheWriteTokens?: number;
  /** Set when at least one answer had a cost estimate. */
  costUsd?: number;
}

/** A message's text as shown, given the store's `streamed` map: the one rule `textOf` and the chat view's `MESSAGE_TEXT` share. */
export function shownText(streamed: ReadonlyMap<string, string>, message: { id: string; text: string }): string {
  return streamed.get(message.id) ?? message.text;
}

function sameUsage(a: RunUsage, b: RunUsage): boolean {
  return (
    a.answers === b.answers &&
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.cachedInputTokens === b.cachedInputTokens &&
    a.cacheWriteTokens === b.cacheWriteTokens &&
    a.costUsd === b.costUsd
  );
}

function addUsage(total: RunUsage, usage: Usage | undefined): void {
  if (!usage) return;
  total.inputTokens += usage.inputTokens ?? 0;
  total.outputTokens += usage.outputTokens ?? 0;
  if (usage.cachedInputTokens) total.cachedInputTokens = (total.cachedInputTokens ?? 0) + usage.cachedInputTokens;
  if (usage.cacheWriteTokens) total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + usage.cacheWriteTokens;
  if (usage.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + usage.costUsd;
}

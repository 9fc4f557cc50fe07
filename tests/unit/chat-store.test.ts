import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { UiEvent } from '@/core/messaging/protocol';
import type { AssistantMessage, Conversation, StoredMessage, ToolMessage, UserMessage } from '@/core/storage/db';
import { activeConversationId, sidebarRequest } from '@/core/storage/settings';

// The store's two boundaries with the background: requests, and the live event port. The real
// ones are exercised end to end in tests/e2e; here a small in-memory background answers.
const background = vi.hoisted(() => ({
  conversations: [] as Conversation[],
  messages: new Map<string, StoredMessage[]>(),
  onEvent: undefined as undefined | ((event: UiEvent) => void),
  onReconnect: undefined as undefined | (() => void),
  failSend: false,
  /** Holds the answer to startConversation until it resolves. */
  holdStart: undefined as undefined | Promise<void>,
}));

vi.mock('@/core/ui/events', () => ({
  subscribe: (onEvent: (event: UiEvent) => void, onReconnect?: () => void) => {
    background.onEvent = onEvent;
    background.onReconnect = onReconnect;
    return () => undefined;
  },
}));

vi.mock('@/core/messaging/protocol', () => ({
  sendMessage: async (type: string, data: any) => {
    switch (type) {
      case 'listConversationPage': {
        const sorted = [...background.conversations].sort((a, b) => b.updatedAt - a.updatedAt || (b.id > a.id ? 1 : -1));
        const from = data.after ? sorted.findIndex((c) => c.updatedAt < data.after.updatedAt || (c.updatedAt === data.after.updatedAt && c.id < data.after.id)) : 0;
        return { conversations: from < 0 ? [] : sorted.slice(from, from + data.limit), total: sorted.length };
      }
      case 'getConversation': {
        const conversation = background.conversations.find((c) => c.id === data.id);
        return conversation ? { conversation, messages: background.messages.get(data.id) ?? [], running: false } : null;
      }
      case 'createConversation': {
        const conversation = conv('new-one', 'New conversation', 50);
        background.conversations.push(conversation);
        return conversation;
      }
      case 'startConversation': {
        // Stored as its run left it (done); the reply has it running.
        const conversation = conv(data.id, data.text, 50);
        background.conversations.push(conversation);
        // The run's events can reach the page before the reply does.
        const first: StoredMessage = { id: 'first', seq: 0, conversationId: data.id, createdAt: 0, role: 'user', text: data.text };
        background.messages.set(data.id, [first]);
        background.onEvent?.({ type: 'message', message: first });
        await background.holdStart;
        return { ...conversation, status: 'running' };
      }
      case 'sendMessage':
        if (background.failSend) throw new Error('The agent is still working in this conversation.');
        return undefined;
      case 'renameConversation':
        return { ...background.conversations.find((c) => c.id === data.id)!, title: data.title };
      default:
        return undefined;
    }
  },
}));

const { useChatStore } = await import('@/stores/chat');

function conv(id: string, title: string, updatedAt: number): Conversation {
  return { id, title, createdAt: 0, updatedAt, status: 'idle' };
}
const base = { conversationId: 'a', createdAt: 0 };
const user = (id: string, seq: number, text: string): UserMessage => ({ ...base, id, seq, role: 'user', text });
const assistant = (id: string, seq: number, text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  ...base, id, seq, role: 'assistant', text, status: 'complete', toolCalls: [], ...extra,
});

describe('chat store', () => {
  beforeEach(async () => {
    setActivePinia(createPinia());
    background.conversations = [conv('a', 'Alpha', 10), conv('b', 'Beta', 20)];
    background.messages = new Map([['a', [user('u1', 0, 'hi'), assistant('m1', 1, 'hello')]]]);
    background.failSend = false;
    background.holdStart = undefined;
    await activeConversationId.setValue('a');
  });

  it('opens the conversation the sidebar showed last, newest conversations first', async () => {
    const chat = useChatStore();
    await chat.init();
    expect(chat.conversations.map((c) => c.id)).toEqual(['b', 'a']);
    expect(chat.activeId).toBe('a');
    expect(chat.visibleMessages.map((m) => m.id)).toEqual(['u1', 'm1']);
  });

  it('applies streamed pieces by offset: no gap, no repeat', async () => {
    const chat = useChatStore();
    await chat.init();
    const emit = background.onEvent!;
    emit({ type: 'message', message: assistant('m2', 2, '', { status: 'streaming' }) });
    emit({ type: 'delta', conversationId: 'a', messageId: 'm2', text: 'Hel', offset: 0 });
    emit({ type: 'delta', conversationId: 'a', messageId: 'm2', text: 'lo', offset: 3 });
    emit({ type: 'delta', conversationId: 'a', messageId: 'm2', text: 'lo', offset: 3 }); // repeated
    emit({ type: 'delta', conversationId: 'a', messageId: 'm2', text: 'lo w', offset: 3 }); // overlaps
    emit({ type: 'delta', conversationId: 'a', messageId: 'm2', text: '!', offset: 42 }); // a gap: wait for the final message
    emit({ type: 'delta', conversationId: 'b', messageId: 'm2', text: 'other', offset: 6 }); // another conversation
    // Applied at once (the background already joins pieces to one event a frame).
    expect(chat.textOf(chat.visibleMessages.at(-1)!)).toBe('Hello w');
    emit({ type: 'message', message: assistant('m2', 2, 'Hello world!') });
    expect(chat.textOf(chat.visibleMessages.at(-1)!)).toBe('Hello world!');
    expect((chat.visibleMessages.at(-1) as AssistantMessage).text).toBe('Hello world!');
  });

  it('a streamed piece leaves the message list as it was (only the view of the answer renders again)', async () => {
    const chat = useChatStore();
    await chat.init();
    const emit = background.onEvent!;
    emit({ type: 'message', message: assistant('m2', 2, 'He', { status: 'streaming' }) });
    const list = chat.messages;
    const visible = chat.visibleMessages;
    emit({ type: 'delta', conversationId: 'a', messageId: 'm2', text: 'llo', offset: 2 });
    expect(chat.messages).toBe(list);
    expect(chat.visibleMessages).toBe(visible);
    expect(chat.textOf(list.at(-1)!)).toBe('Hello');
    // A message event mid-stream with less than was streamed keeps the rest; one with all of it takes over.
    emit({ type: 'message', message: assistant('m2', 2, 'Hel', { status: 'streaming' }) });
    expect(chat.textOf(chat.messages.at(-1)!)).toBe('Hello');
    emit({ type: 'delta', conversationId: 'a', messageId: 'm2', text: ' you', offset: 5 });
    expect(chat.textOf(chat.messages.at(-1)!)).toBe('Hello you');
    emit({ type: 'message', message: assistant('m2', 2, 'Hello you.', { status: 'stopped' }) });
    expect(chat.textOf(chat.messages.at(-1)!)).toBe('Hello you.');
    // A stopped answer's message is the text, even one shorter than what streamed.
    emit({ type: 'message', message: assistant('m2', 2, 'Hello', { status: 'stopped' }) });
    expect(chat.textOf(chat.messages.at(-1)!)).toBe('Hello');
  });

  it("a run's totals keep their object while they do not change: a new step does not re-render earlier runs' answers", async () => {
    const chat = useChatStore();
    await chat.init();
    const emit = background.onEvent!;
    const usage = (inputTokens: number) => ({ usage: { inputTokens, outputTokens: 1 } });
    emit({ type: 'message', message: assistant('m1', 1, 'hello', usage(10)) });
    emit({ type: 'message', message: user('u2', 2, 'again') });
    emit({ type: 'message', message: assistant('m3', 3, 'step one', usage(20)) });
    const first = chat.runUsage.get('m1')!;
    const second = chat.runUsage.get('m3')!;
    expect(first).toMatchObject({ answers: 1, inputTokens: 10, outputTokens: 1 });
    expect(second).toMatchObject({ answers: 1, inputTokens: 20 });
    emit({ type: 'message', message: assistant('m4', 4, 'step two', usage(30)) });
    expect(chat.runUsage.get('m1')).toBe(first);
    expect(chat.runUsage.get('m3')).not.toBe(second);
    expect(chat.runUsage.get('m3')).toBe(chat.runUsage.get('m4'));
    expect(chat.runUsage.get('m4')).toMatchObject({ answers: 2, inputTokens: 50, outputTokens: 2 });
  });

  it("a run's totals add up the prompt cache's tokens where answers reported them", async () => {
    const chat = useChatStore();
    await chat.init();
    const emit = background.onEvent!;
    emit({ type: 'message', message: assistant('m1', 1, 'step one', { usage: { inputTokens: 1200, outputTokens: 1, cacheWriteTokens: 1000 } }) });
    expect(chat.runUsage.get('m1')).toEqual({ answers: 1, inputTokens: 1200, outputTokens: 1, cacheWriteTokens: 1000 });
    emit({ type: 'message', message: assistant('m2', 2, 'step two', { usage: { inputTokens: 1300, outputTokens: 1, cachedInputTokens: 1000, cacheWriteTokens: 100 } }) });
    expect(chat.runUsage.get('m2')).toEqual({ answers: 2, inputTokens: 2500, outputTokens: 2, cachedInputTokens: 1000, cacheWriteTokens: 1100 });
  });

  it('a sidebar opened mid-stream shows the whole text: its snapshot, then the joined deltas from the background', async () => {
    const { DeltaCoalescer } = await import('@/core/background/delta-coalescer');
    let time = 0;
    const timers: Array<{ at: number; fn: () => void }> = [];
    const clock = { now: () => time, setTimeout: (fn: () => void, ms: number) => timers.push({ at: time + ms, fn }), clearTimeout: (t: unknown) => { const i = (t as number) - 1; if (timers[i]) timers[i] = { at: Infinity, fn: () => undefined }; } };
    const runDue = () => { for (const t of timers) if (t.at <= time) { t.at = Infinity; t.fn(); } };
    // The page is not open yet: what the coalescer sends goes nowhere until it subscribes.
    let page: ((event: UiEvent) => void) | undefined;
    const coalescer = new DeltaCoalescer((event) => page?.(event), 16, clock);
    const streaming = assistant('m2', 2, '', { status: 'streaming' });
    background.messages.set('a', [user('u1', 0, 'hi'), streaming]);
    const words = 'Streamed text arrives in small pieces, joined by the background into one event a frame. '.repeat(8).match(/.{1,5}/gs)!;
    const chat = useChatStore();
    for (const [i, piece] of words.entries()) {
      time = i * 3;
      runDue();
      const offset = streaming.text.length;
      streaming.text += piece; // the loop's message (what getConversation returns) grows first
      coalescer.push({ type: 'delta', conversationId: 'a', messageId: 'm2', text: piece, offset });
      if (i === 30) {
        // The sidebar opens: it subscribes, then asks for the conversation (the snapshot).
        const opening = chat.init();
        page = background.onEvent;
        background.messages.set('a', [user('u1', 0, 'hi'), { ...streaming }]);
        await opening;
      }
    }
    time += 100;
    runDue();
    expect(chat.textOf(chat.visibleMessages.at(-1)!)).toBe(words.join(''));
  });

  it('keeps messages in order and files tool results by call id', async () => {
    const chat = useChatStore();
    await chat.init();
    const emit = background.onEvent!;
    const late = assistant('m4', 4, 'later');
    emit({ type: 'message', message: late });
    emit({ type: 'message', message: assistant('m3', 3, 'earlier', { toolCalls: [{ id: 'c1', name: 'list_tabs', input: {} }] }) });
    const tool: ToolMessage = { ...base, id: 't1', seq: 5, role: 'tool', toolCallId: 'c1', toolName: 'list_tabs', input: {}, status: 'done', result: { ok: true, output: [] } };
    emit({ type: 'message', message: tool });
    expect(chat.visibleMessages.map((m) => m.id)).toEqual(['u1', 'm1', 'm3', 'm4']);
    expect(chat.toolResults.get('c1')).toEqual(tool);
  });

  it('creates the conversation with the first message in one request, shows its events, and keeps the error when sending fails', async () => {
    await activeConversationId.setValue(null);
    const chat = useChatStore();
    await chat.init();
    expect(chat.activeId).toBeNull();
    expect(await chat.send('First words')).toBe(true);
    const id = chat.activeId!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await activeConversationId.getValue()).toBe(id);
    expect(chat.active?.title).toBe('First words');
    // The user's message came as an event before the reply, and it is in view.
    expect(chat.visibleMessages.map((m) => m.id)).toEqual(['first']);

    background.failSend = true;
    expect(await chat.send('Second words')).toBe(false);
    expect(chat.requestError).toMatch(/still working/);
    expect(chat.running).toBe(false);
  });

  it('a reconnect while Send creates a conversation (the worker came back) leaves the new conversation open, with its events in view', async () => {
    await activeConversationId.setValue(null);
    const chat = useChatStore();
    await chat.init();
    let answered!: () => void;
    background.holdStart = new Promise((resolve) => (answered = resolve));
    const sent = chat.send('First words');
    await vi.waitFor(() => expect(chat.visibleMessages.map((m) => m.id)).toEqual(['first']));
    // The events port came back before the Send was answered: the page reloads.
    background.onReconnect!();
    answered();
    expect(await sent).toBe(true);
    const id = chat.activeId!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await vi.waitFor(() => expect(chat.visibleMessages.map((m) => m.id)).toEqual(['first']));
    // The run's answer lands in view.
    background.onEvent!({ type: 'message', message: { ...assistant('answer', 1, 'Hello'), conversationId: id } });
    await vi.waitFor(() => expect(chat.visibleMessages.map((m) => m.id)).toEqual(['first', 'answer']));
    expect(await activeConversationId.getValue()).toBe(id);
  });

  it('follows the conversation status and removes deleted conversations', async () => {
    const chat = useChatStore();
    await chat.init();
    const emit = background.onEvent!;
    emit({ type: 'conversation', conversation: { ...conv('a', 'Alpha', 99), status: 'running' } });
    expect(chat.running).toBe(true);
    expect(chat.conversations[0]!.id).toBe('a');
    emit({ type: 'conversation-deleted', id: 'a' });
    await vi.waitFor(() => expect(chat.activeId).toBeNull());
    expect(chat.conversations.map((c) => c.id)).toEqual(['b']);
  });

  it('switches when the popup asks for a conversation', async () => {
    const chat = useChatStore();
    await chat.init();
    await sidebarRequest.setValue({ conversationId: 'b', at: Date.now() });
    await vi.waitFor(() => expect(chat.activeId).toBe('b'));
  });
});

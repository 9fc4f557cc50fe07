import type { AssistantMessage, Conversation, ToolCall, ToolMessage, UserMessage } from '@/core/storage/db';

// Stored records as the chat components receive them, with only what a test is about to be given.

export function userMessage(text: string): UserMessage {
  return { id: 'u1', conversationId: 'c1', seq: 0, createdAt: 0, role: 'user', text };
}

export function assistantMessage(fields: Partial<AssistantMessage> = {}): AssistantMessage {
  return { id: 'a1', conversationId: 'c1', seq: 1, createdAt: 0, role: 'assistant', text: '', status: 'complete', toolCalls: [], ...fields };
}

export function toolCall(fields: Partial<ToolCall> = {}): ToolCall {
  return { id: 'call-1', name: 'get_tab_content', input: { tabId: 3 }, ...fields };
}

export function toolMessage(fields: Partial<ToolMessage> = {}): ToolMessage {
  return {
    id: 't1', conversationId: 'c1', seq: 2, createdAt: 0, role: 'tool',
    toolCallId: 'call-1', toolName: 'get_tab_content', input: { tabId: 3 }, status: 'done',
    result: { ok: true, output: { title: 'Example' } },
    ...fields,
  };
}

export function conversation(fields: Partial<Conversation> = {}): Conversation {
  return { id: 'c1', title: 'A conversation', createdAt: 0, updatedAt: Date.now(), status: 'idle', ...fields };
}

/**
 * Loads the parts of an answer the sidebar fetches after it shows (the Markdown view, the Usage ·
 * Trace row: components/chat/lazy-parts.ts), so that every mount in the file shows them at once.
 * Call it in `beforeAll`.
 */
export async function loadAnswerParts(): Promise<void> {
  const { BaseMarkdown, ChatMessageDetails } = await import('@/components/chat/lazy-parts');
  for (const part of [BaseMarkdown, ChatMessageDetails]) await (part as { __asyncLoader?: () => Promise<unknown> }).__asyncLoader?.();
}

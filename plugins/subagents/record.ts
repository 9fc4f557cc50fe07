import type { AssistantMessage, StoredMessage } from '@/core/storage/db';

/**
 * What a sub-agent reports while it works, as the `agent` tool's live activity. The sub-agent's
 * own messages are conversation messages of its in-memory transcript (`conversationId` is the
 * sub-agent's id).
 */
export type SubAgentEvent =
  | {
      type: 'start';
      agentId: string;
      agentType: string;
      description?: string;
      prompt: string;
      tabId?: number;
      model?: string;
    }
  | { type: 'message'; agentId: string; message: StoredMessage }
  /** A piece of streamed text; `offset` is where it starts in the message's text. */
  | { type: 'delta'; agentId: string; messageId: string; text: string; offset: number }
  | { type: 'end'; agentId: string; status: 'done' | 'error' | 'stopped' | 'step_limit'; error?: string };

/** A sub-agent's run as the parent conversation keeps it on the tool message (`activity`). */
export interface SubAgentRecord {
  agentId: string;
  agentType: string;
  description?: string;
  prompt: string;
  tabId?: number;
  model?: string;
  status: 'running' | 'done' | 'error' | 'stopped' | 'step_limit';
  error?: string;
  /** The sub-agent's own transcript: its prompt, answers and tool results, in order. */
  messages: StoredMessage[];
}

/**
 * Folds one event into the record kept on the parent's tool message. The background (which
 * persists the record) and the sidebar (which mirrors it live) use this same function, so both
 * always agree. It never changes the record it is given: it returns a new one (or the same one
 * when the event does not apply).
 */
export function applySubAgentEvent(record: SubAgentRecord | undefined, event: SubAgentEvent): SubAgentRecord | undefined {
  if (event.type === 'start') {
    return {
      agentId: event.agentId,
      agentType: event.agentType,
      description: event.description,
      prompt: event.prompt,
      tabId: event.tabId,
      model: event.model,
      status: 'running',
      messages: [],
    };
  }
  if (!record || record.agentId !== event.agentId) return record;
  switch (event.type) {
    case 'message':
      return { ...record, messages: upsertBySeq(record.messages, event.message) };
    case 'delta': {
      const at = record.messages.findIndex((m) => m.id === event.messageId && m.role === 'assistant');
      const message = record.messages[at] as AssistantMessage | undefined;
      if (!message) return record;
      // As in the main chat: a piece may overlap what is there, or come after a gap the next
      // full message event fills.
      let text = message.text;
      if (text.length === event.offset) text += event.text;
      else if (text.length > event.offset && text.length < event.offset + event.text.length) {
        text += event.text.slice(text.length - event.offset);
      } else return record;
      return { ...record, messages: record.messages.with(at, { ...message, text }) };
    }
    case 'end':
      return { ...record, status: event.status, error: event.error };
  }
}

/** The reducer as the core's activity channel calls it. */
export const reduceSubAgentActivity = (record: unknown, event: unknown): unknown =>
  applySubAgentEvent(record as SubAgentRecord | undefined, event as SubAgentEvent);

function upsertBySeq(list: StoredMessage[], message: StoredMessage): StoredMessage[] {
  // Messages are plain data; a copy keeps later changes by the sender out of the record.
  const copy = JSON.parse(JSON.stringify(message)) as StoredMessage;
  const at = list.findIndex((m) => m.id === message.id);
  if (at >= 0) return list.with(at, copy);
  let i = list.length;
  while (i > 0 && list[i - 1]!.seq > message.seq) i--;
  return list.toSpliced(i, 0, copy);
}

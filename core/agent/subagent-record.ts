import type { SubAgentEvent } from '@/core/registry/types';
import type { AssistantMessage, StoredMessage, SubAgentRecord } from '@/core/storage/db';

/**
 * Applies one `sub_agent_event` to the record kept on the parent's tool message. The background
 * (which persists the record) and the sidebar (which mirrors it live) use this same function, so
 * both always agree. Returns the record (a new one for `start`, else the same one changed).
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
      upsertBySeq(record.messages, event.message);
      break;
    case 'delta': {
      const message = record.messages.find((m): m is AssistantMessage => m.id === event.messageId && m.role === 'assistant');
      if (!message) break;
      // As in the main chat: a piece may overlap what is there, or come after a gap the next
      // full message event fills.
      if (message.text.length === event.offset) message.text += event.text;
      else if (message.text.length > event.offset && message.text.length < event.offset + event.text.length) {
        message.text += event.text.slice(message.text.length - event.offset);
      }
      break;
    }
    case 'end':
      record.status = event.status;
      record.error = event.error;
      break;
  }
  return record;
}

function upsertBySeq(list: StoredMessage[], message: StoredMessage): void {
  const copy = structuredCloneSafe(message);
  const at = list.findIndex((m) => m.id === message.id);
  if (at >= 0) {
    list.splice(at, 1, copy);
    return;
  }
  let i = list.length;
  while (i > 0 && list[i - 1]!.seq > message.seq) i--;
  list.splice(i, 0, copy);
}

/** Messages are plain data; a copy keeps later changes by the sender out of the record. */
function structuredCloneSafe<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

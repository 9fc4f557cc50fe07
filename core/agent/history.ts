import type { JSONValue, ModelMessage, ToolResultPart } from 'ai';
import type { AssistantMessage, StoredMessage, ToolMessage } from '@/core/storage/db';

const NOT_RUN = 'This tool call did not run: the run was stopped or interrupted before it started.';

/**
 * Turns the stored conversation into the messages the model is sent. Every tool call gets a
 * result right after the assistant message that made it (providers refuse a history where one
 * is missing): calls the run never got to are answered with an error saying so.
 */
export function toModelMessages(messages: readonly StoredMessage[]): ModelMessage[] {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);

  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.text });
    } else if (m.role === 'assistant') {
      const assistant = toAssistant(m);
      if (!assistant) continue;
      out.push(assistant);
      if (m.toolCalls.length) {
        out.push({ role: 'tool', content: m.toolCalls.map((call) => toResultPart(call.id, call.name, results.get(call.id))) });
      }
    }
    // Tool messages were placed right after their assistant message above.
  }
  return out;
}

function toAssistant(m: AssistantMessage): ModelMessage | null {
  const content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
  if (m.text) content.push({ type: 'text', text: m.text });
  for (const call of m.toolCalls) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input ?? {} });
  }
  return content.length ? { role: 'assistant', content } : null;
}

function toResultPart(toolCallId: string, toolName: string, message: ToolMessage | undefined): ToolResultPart {
  const result = message?.result;
  if (!result) return { type: 'tool-result', toolCallId, toolName, output: { type: 'error-text', value: NOT_RUN } };
  if (!result.ok) return { type: 'tool-result', toolCallId, toolName, output: { type: 'error-text', value: result.error } };
  const value = (result.output === undefined ? null : result.output) as JSONValue;
  return { type: 'tool-result', toolCallId, toolName, output: { type: 'json', value } };
}

import type { JSONValue, LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import type { AssistantMessage, StoredMessage, ToolMessage } from '@/core/storage/db';

const NOT_RUN = 'This tool call did not run: the run was stopped or interrupted before it started.';

/**
 * Turns the stored conversation into the prompt the model is sent (the AI SDK's provider-level
 * format, which every provider package accepts). Every tool call gets a result right after the
 * assistant message that made it (providers refuse a history where one is missing): calls the run
 * never got to are answered with an error saying so.
 */
export function toModelPrompt(system: string, messages: readonly StoredMessage[]): LanguageModelV3Prompt {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);

  const out: LanguageModelV3Prompt = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: [{ type: 'text', text: m.text }] });
    } else if (m.role === 'assistant' && !m.notice) {
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

function toAssistant(m: AssistantMessage): LanguageModelV3Message | null {
  const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
  if (m.text) content.push({ type: 'text', text: m.text });
  for (const call of m.toolCalls) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input ?? {} });
  }
  return content.length ? { role: 'assistant', content } : null;
}

function toResultPart(toolCallId: string, toolName: string, message: ToolMessage | undefined): LanguageModelV3ToolResultPart {
  const result = message?.result;
  if (!result) return { type: 'tool-result', toolCallId, toolName, output: { type: 'error-text', value: NOT_RUN } };
  if (!result.ok) return { type: 'tool-result', toolCallId, toolName, output: { type: 'error-text', value: result.notice ? `${result.error}\n\n${result.notice}` : result.error } };
  const value = withNotice((result.output === undefined ? null : result.output) as JSONValue, result.notice);
  if (result.attachments?.length) {
    // Images beside the output: the provider's client keeps them where it can show them (tool-images.ts).
    return {
      type: 'tool-result',
      toolCallId,
      toolName,
      output: { type: 'content', value: [{ type: 'text', text: JSON.stringify(value) }, ...result.attachments.map((a) => ({ type: 'image-data' as const, data: a.data, mediaType: a.mediaType }))] },
    };
  }
  return { type: 'tool-result', toolCallId, toolName, output: { type: 'json', value } };
}

/** A result with Sidequest's own line after it (loop-guard.ts): appended to a text, else beside the output. */
function withNotice(value: JSONValue, notice: string | undefined): JSONValue {
  if (!notice) return value;
  return typeof value === 'string' ? `${value}\n\n${notice}` : { result: value, notice };
}

import type {
  JSONValue,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderMetadata,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { AssistantMessage, StoredMessage, ToolCallMetadata, ToolMessage, UserMessage } from '@/core/storage/db';
import { contextTimer } from './context-timing';

const NOT_RUN = 'This tool call did not run: the run was stopped or interrupted before it started.';

/**
 * Turns the stored conversation into the prompt the model is sent (the AI SDK's provider-level
 * format, which every provider package accepts). Every tool call gets a result right after the
 * assistant message that made it (providers refuse a history where one is missing): calls the run
 * never got to are answered with an error saying so.
 *
 * Called before every request of a run with the same, growing history: each stored message's
 * model messages are kept (by the message object, checked against what they were made from) and
 * handed out again, the same objects, so only new or changed messages are converted and the
 * context window (`context-window.ts`) keeps its measures of them.
 */
export function toModelPrompt(system: string, messages: readonly StoredMessage[], to?: ModelOf): LanguageModelV3Prompt {
  const started = contextTimer.on ? performance.now() : 0;
  const results = new Map<string, ToolMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  const toKey = to ? `${to.type}\n${to.model}` : '';

  const out: LanguageModelV3Prompt = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push(cachedUser(m));
    } else if (m.role === 'assistant' && !m.notice) {
      for (const message of cachedAssistant(m, results, to, toKey)) out.push(message);
    }
    // Tool messages were placed right after their assistant message above.
  }
  if (contextTimer.on) contextTimer.convertMs = performance.now() - started;
  return out;
}

/**
 * The stored message a model message was made from (a tool message: the assistant message whose
 * calls it answers); undefined for one `toModelPrompt` did not make. The context window ties its
 * summary to the stored messages it stands for with it.
 */
export function sourceOf(message: LanguageModelV3Message | undefined): StoredMessage | undefined {
  return message && sources.get(message);
}

const sources = new WeakMap<LanguageModelV3Message, StoredMessage>();

interface UserEntry {
  text: string;
  message: LanguageModelV3Message;
}
interface AssistantEntry {
  /** What it was made from: the text, the calls, the model it goes to, and each call's result (the object and its state). */
  text: string;
  calls: number;
  to: string;
  results: Array<ToolMessage | undefined>;
  states: Array<unknown>;
  messages: LanguageModelV3Message[];
}
const users = new WeakMap<StoredMessage, UserEntry>();
const assistants = new WeakMap<StoredMessage, AssistantEntry>();

/** The conversions themselves, one stored message each (an object, so a test can count them). */
export const convert = {
  user(m: UserMessage): LanguageModelV3Message {
    return { role: 'user', content: [{ type: 'text', text: m.text }] };
  },
  assistant(m: AssistantMessage, results: ReadonlyMap<string, ToolMessage>, to: ModelOf | undefined): LanguageModelV3Message[] {
    const assistant = toAssistant(m, to);
    if (!assistant) return [];
    if (!m.toolCalls.length) return [assistant];
    return [assistant, { role: 'tool', content: m.toolCalls.map((call) => toResultPart(call.id, call.name, results.get(call.id))) }];
  },
};

function cachedUser(m: UserMessage): LanguageModelV3Message {
  const entry = users.get(m);
  if (entry && entry.text === m.text) return entry.message;
  const message = convert.user(m);
  users.set(m, { text: m.text, message });
  sources.set(message, m);
  return message;
}

/** What a result's conversion depends on besides the object: its state (a running call's result lands later). */
function stateOf(message: ToolMessage | undefined): unknown {
  return message && (message.result ?? message.status);
}

function cachedAssistant(m: AssistantMessage, results: ReadonlyMap<string, ToolMessage>, to: ModelOf | undefined, toKey: string): LanguageModelV3Message[] {
  const entry = assistants.get(m);
  if (entry && entry.text === m.text && entry.calls === m.toolCalls.length && entry.to === toKey && sameResults(entry, m, results)) return entry.messages;
  const messages = convert.assistant(m, results, to);
  const own = m.toolCalls.map((call) => results.get(call.id));
  assistants.set(m, { text: m.text, calls: m.toolCalls.length, to: toKey, results: own, states: own.map(stateOf), messages });
  for (const message of messages) sources.set(message, m);
  return messages;
}

function sameResults(entry: AssistantEntry, m: AssistantMessage, results: ReadonlyMap<string, ToolMessage>): boolean {
  for (let i = 0; i < m.toolCalls.length; i++) {
    const result = results.get(m.toolCalls[i]!.id);
    if (result !== entry.results[i] || stateOf(result) !== entry.states[i]) return false;
  }
  return true;
}

/** The provider type and model a request goes to: tool calls' provider metadata goes back to its own only. */
export interface ModelOf {
  type: string;
  model: string;
}

/** Provider metadata larger than this is not kept (a thought signature is a few kilobytes). */
const MAX_METADATA_CHARS = 65_536;

/** A tool call's provider metadata as stored: tagged with the provider type and model that gave it. */
export function callMetadata(from: ModelOf, value: SharedV3ProviderMetadata | undefined): ToolCallMetadata | undefined {
  if (!value || !Object.keys(value).length) return undefined;
  let size: number;
  try {
    size = JSON.stringify(value).length;
  } catch {
    return undefined;
  }
  return size <= MAX_METADATA_CHARS ? { type: from.type, model: from.model, value } : undefined;
}

function toAssistant(m: AssistantMessage, to: ModelOf | undefined): LanguageModelV3Message | null {
  const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
  if (m.text) content.push({ type: 'text', text: m.text });
  for (const call of m.toolCalls) {
    const meta = call.providerMetadata;
    const own = meta && to && meta.type === to.type && meta.model === to.model;
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: call.input ?? {},
      ...(own && { providerOptions: meta.value as SharedV3ProviderOptions }),
    });
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

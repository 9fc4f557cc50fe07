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
import { NOT_RUN } from './transcript';

/**
 * Turns the stored conversation into the prompt the model is sent (the AI SDK's provider-level
 * format, which every provider package accepts). Every tool call gets a result right after the
 * assistant message that made it (providers refuse a history where one is missing): calls the run
 * never got to are answered with an error saying so.
 *
 * Called before every request of a run with the same, growing history: each stored message's
 * model messages are kept (by the message object, checked against what they were made from) and
 * handed out again, the same objects, so only new or changed messages are converted and the
 * context window (`context-window.ts`) keeps its measures of them. The last prompt built from a
 * history array is kept too: when the array has only grown since (the same messages in the same
 * places, in the same state), its beginning is taken as it was and only the new messages are
 * looked at.
 */
export function toModelPrompt(system: string, messages: readonly StoredMessage[], to?: ModelOf): LanguageModelV3Prompt {
  const started = contextTimer.on ? performance.now() : 0;
  const toKey = to ? `${to.type}\n${to.model}` : '';
  const previous = builds.get(messages);
  const build = (previous && grown(previous, system, toKey, messages)) ?? fromStart(system, toKey, messages);
  const out = build.out.slice();
  for (let i = build.at.length; i < messages.length; i++) {
    const m = messages[i]!;
    const converted =
      m.role === 'user' ? cachedUser(m) : m.role === 'assistant' && !m.notice ? cachedAssistant(m, build.results, to, toKey) : undefined;
    build.at.push({ source: m, converted });
    // Tool messages are placed right after their assistant message.
    if (converted) for (const message of converted.messages) out.push(message);
  }
  build.out = out;
  builds.set(messages, build);
  if (contextTimer.on) contextTimer.convertMs = performance.now() - started;
  return out;
}

/** What the last prompt built from a history array was made of, by position. */
interface Build {
  system: string;
  toKey: string;
  /** Each stored message and what it was converted to (tool messages and notices: nothing). */
  at: Array<{ source: StoredMessage; converted: UserEntry | AssistantEntry | undefined }>;
  /** The tool messages among them, by call id (the last one wins). */
  results: Map<string, ToolMessage>;
  out: LanguageModelV3Prompt;
}
const builds = new WeakMap<readonly StoredMessage[], Build>();

/** A new build of the whole history: its tool messages, nothing converted yet. */
function fromStart(system: string, toKey: string, messages: readonly StoredMessage[]): Build {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  return { system, toKey, at: [], results, out: [{ role: 'system', content: system }] };
}

/**
 * The last build, to go on from, when the history has only grown since: the same messages in the
 * same places and the same state, and no new tool message answering an earlier call.
 */
function grown(build: Build, system: string, toKey: string, messages: readonly StoredMessage[]): Build | undefined {
  if (build.system !== system || build.toKey !== toKey || messages.length < build.at.length) return undefined;
  for (let i = 0; i < build.at.length; i++) {
    const { source, converted } = build.at[i]!;
    if (source !== messages[i] || (converted && !unchanged(converted, source))) return undefined;
  }
  for (let i = build.at.length; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'tool') continue;
    if (build.results.has(m.toolCallId)) return undefined;
    build.results.set(m.toolCallId, m);
  }
  return build;
}

/** Whether a stored message is as it was when converted (its results: the same objects in the same state). */
function unchanged(entry: UserEntry | AssistantEntry, m: StoredMessage): boolean {
  if (m.role === 'user') return entry.text === m.text;
  if (m.role !== 'assistant') return true;
  const { calls, results, states } = entry as AssistantEntry;
  if (entry.text !== m.text || calls !== m.toolCalls.length) return false;
  for (let i = 0; i < results.length; i++) {
    // A call that had no result yet: one may have come among the new messages.
    if (!results[i] || stateOf(results[i]) !== states[i]) return false;
  }
  return true;
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
  messages: [LanguageModelV3Message];
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

function cachedUser(m: UserMessage): UserEntry {
  const entry = users.get(m);
  if (entry && entry.text === m.text) return entry;
  const message = convert.user(m);
  const made: UserEntry = { text: m.text, messages: [message] };
  users.set(m, made);
  sources.set(message, m);
  return made;
}

/** What a result's conversion depends on besides the object: its state (a running call's result lands later). */
function stateOf(message: ToolMessage | undefined): unknown {
  return message && (message.result ?? message.status);
}

function cachedAssistant(m: AssistantMessage, results: ReadonlyMap<string, ToolMessage>, to: ModelOf | undefined, toKey: string): AssistantEntry {
  const entry = assistants.get(m);
  if (entry && entry.text === m.text && entry.calls === m.toolCalls.length && entry.to === toKey && sameResults(entry, m, results)) return entry;
  const messages = convert.assistant(m, results, to);
  const own = m.toolCalls.map((call) => results.get(call.id));
  const made = { text: m.text, calls: m.toolCalls.length, to: toKey, results: own, states: own.map(stateOf), messages };
  assistants.set(m, made);
  for (const message of messages) sources.set(message, m);
  return made;
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
  if (!result) return { type: 'tool-result', toolCallId, toolName, output: { type: 'error-text', value: NOT_RUN.interrupted } };
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

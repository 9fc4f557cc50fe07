import type { LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import { said, type Said } from '@/core/i18n/catalog';
import type { ToolSpec } from '@/core/registry/types';
import { ProviderError, type RunError } from './errors';
import type { ModelClient, ModelEvent, ModelRequest } from './provider';
import { contentOutputValue } from './tool-images';

// Tool calls for models without native tool calling: the tools are described in the system
// prompt, the model answers with a fenced JSON block, Sidequest parses it (tolerantly) into the
// same `tool-call` events native tool calling gives, and results go back as ordinary messages.

/** The fence tag the model is asked to use. Other tags, bare fences and `<tool_call>` tags are read too. */
const FENCE = 'tool_call';

/** What the conversation says when a model is switched to prompted tool calls. */
export const PROMPTED_NOTICE: Said = said('notices.promptedTools');

/** True when the provider refused the request because of its `tools` (Ollama's "does not support tools", a 400 naming tools). */
export function refusesTools(info: RunError): boolean {
  const words = `${info.detail ?? ''} ${info.kind === 'bad_request' ? info.message : ''}`;
  return (
    (info.status === 400 || info.status === 422 || info.status === 501) &&
    /does not support tools|tools? (are|is) not supported|tool use is not supported|function calling is not (enabled|supported)|\btools?\b|tool_choice|function.?call/i.test(
      words,
    )
  );
}

/** The system prompt's tool section: each tool's name, description and argument schema. */
export function toolInstructions(tools: readonly ToolSpec[]): string {
  const list = tools
    .map((t) => `### ${t.name}\n${t.description.trim()}\nArguments (JSON Schema): ${JSON.stringify(t.inputSchema)}`)
    .join('\n\n');
  return [
    '# Tools',
    'You can use the tools below. To call one, answer with a fenced block tagged tool_call that holds one JSON object with the tool name and its arguments, for example:',
    '```tool_call',
    `{"name": ${JSON.stringify(tools[0]?.name ?? 'tool_name')}, "arguments": {}}`,
    '```',
    'You may call several tools, one block each. After your blocks, stop and wait: the results come back in the next message, starting with "Tool result". When you need no tool, answer normally, without a tool_call block.',
    '',
    list,
  ].join('\n');
}

/**
 * The prompt for a model without tool calling: tools described in the system message, earlier
 * tool calls written back as the blocks the model wrote, tool results as user messages.
 */
export function toPromptedPrompt(prompt: LanguageModelV3Prompt, tools: readonly ToolSpec[]): LanguageModelV3Prompt {
  const out: LanguageModelV3Prompt = [];
  let systemDone = false;
  for (const message of prompt) {
    if (message.role === 'system') {
      out.push(systemDone ? message : { role: 'system', content: `${message.content}\n\n${toolInstructions(tools)}` });
      systemDone = true;
    } else if (message.role === 'assistant') {
      const text = message.content
        .map((part) => {
          if (part.type === 'text') return part.text;
          if (part.type === 'tool-call') return `\n\`\`\`${FENCE}\n${JSON.stringify({ name: part.toolName, arguments: part.input ?? {} })}\n\`\`\``;
          return '';
        })
        .join('')
        .trim();
      if (text) out.push({ role: 'assistant', content: [{ type: 'text', text }] });
    } else if (message.role === 'tool') {
      const results = message.content.filter((part): part is LanguageModelV3ToolResultPart => part.type === 'tool-result');
      const text = results.map((part) => `Tool result (${part.toolName}):\n\`\`\`json\n${resultText(part)}\n\`\`\``).join('\n\n');
      // Images the model is to see (`tool-images.ts` left them in the results) follow the text.
      const images = results.flatMap((part) =>
        part.output.type === 'content'
          ? part.output.value.flatMap((p) => (p.type === 'image-data' ? [{ type: 'file' as const, mediaType: p.mediaType, data: p.data }] : []))
          : [],
      );
      if (text) out.push({ role: 'user', content: [{ type: 'text', text }, ...images] });
    } else {
      out.push(message as LanguageModelV3Message);
    }
  }
  if (!systemDone) out.unshift({ role: 'system', content: toolInstructions(tools) });
  return out;
}

function resultText(part: LanguageModelV3ToolResultPart): string {
  const output = part.output;
  switch (output.type) {
    case 'text':
      return output.value;
    case 'error-text':
      return JSON.stringify({ error: output.value });
    case 'json':
      return JSON.stringify(output.value);
    case 'error-json':
      return JSON.stringify({ error: output.value });
    case 'execution-denied':
      return JSON.stringify({ error: output.reason ?? 'The user denied this call.' });
    case 'content':
      // Images are not sent as text: they follow the results as image parts.
      return JSON.stringify(contentOutputValue(output));
    default:
      return JSON.stringify(output);
  }
}

/** A tool call read from a model's text. */
export interface ParsedCall {
  name: string;
  input: unknown;
  invalid?: string;
}

const BLOCK = /```[ \t]*([\w-]*)[^\n]*\n([\s\S]*?)(?:```|$)|<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

/**
 * Finds the tool calls in a model's answer: fenced blocks (tagged tool_call, json, or nothing),
 * `<tool_call>` tags, or an answer that is only a JSON object. Reads JSON tolerantly (trailing
 * commas, a missing closing brace, `args`/`parameters`/`input` for `arguments`, a `function`
 * wrapper, arrays of calls, arguments given as a JSON string). Blocks naming no known tool stay
 * text. Returns the calls and the text without them.
 */
export function parseToolCalls(text: string, toolNames: ReadonlySet<string>): { text: string; calls: ParsedCall[] } {
  const calls: ParsedCall[] = [];
  let rest = text.replace(BLOCK, (whole, tag: string | undefined, fenced: string | undefined, tagged: string | undefined) => {
    const body = fenced ?? tagged ?? '';
    if (fenced !== undefined && tag && !/^(tool_?call|tool|json|function|)$/i.test(tag)) return whole;
    const found = readCalls(body, toolNames);
    if (!found.length) return whole;
    calls.push(...found);
    return '';
  });
  if (!calls.length) {
    const bare = text.trim();
    if (bare.startsWith('{') || bare.startsWith('[')) {
      const found = readCalls(bare, toolNames);
      if (found.length) {
        calls.push(...found);
        rest = '';
      }
    }
  }
  return { text: rest.replace(/\n{3,}/g, '\n\n').trim(), calls };
}

function readCalls(body: string, toolNames: ReadonlySet<string>): ParsedCall[] {
  const value = looseJson(body);
  const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const out: ParsedCall[] = [];
  for (const item of items) {
    if (!item || typeof item !== 'object') continue;
    const record = item as Record<string, unknown>;
    const inner = (record.function && typeof record.function === 'object' ? record.function : record) as Record<string, unknown>;
    const name = [inner.name, record.name, record.tool, record.tool_name, typeof record.function === 'string' ? record.function : undefined].find(
      (n): n is string => typeof n === 'string',
    );
    if (!name || !toolNames.has(name)) continue;
    let input: unknown = inner.arguments ?? inner.args ?? inner.parameters ?? inner.input ?? record.arguments ?? record.args ?? record.parameters ?? record.input ?? {};
    let invalid: string | undefined;
    if (typeof input === 'string') {
      const parsed = looseJson(input);
      if (parsed === undefined) invalid = 'the arguments are not valid JSON';
      else input = parsed;
    }
    out.push({ name, input, invalid });
  }
  return out;
}

/** JSON.parse with the usual slips of small models repaired; undefined when nothing readable. */
export function looseJson(text: string): unknown {
  const attempts = [text.trim()];
  const start = text.search(/[{[]/);
  if (start > 0) attempts.push(text.slice(start).trim());
  for (const attempt of attempts) {
    const noTrailing = attempt.replace(/,\s*([}\]])/g, '$1');
    for (const candidate of [attempt, noTrailing, closeBrackets(noTrailing)]) {
      try {
        return JSON.parse(candidate);
      } catch {
        // try the next repair
      }
    }
  }
  return undefined;
}

/** Adds the closing brackets a cut-off answer lacks (outside strings). */
function closeBrackets(text: string): string {
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') stack.pop();
  }
  return text + stack.reverse().join('');
}

/** Where a block that may be a tool call starts, or could start with the next characters. */
function holdFrom(text: string): number {
  const fence = text.indexOf('```');
  const tag = text.indexOf('<tool_call>');
  const starts = [fence, tag].filter((i) => i >= 0);
  if (starts.length) return Math.min(...starts);
  // A marker may be cut between two pieces: keep back a possible beginning of one.
  for (let keep = Math.min(10, text.length); keep > 0; keep--) {
    const tail = text.slice(-keep);
    if ('```'.startsWith(tail) || '<tool_call>'.startsWith(tail)) return text.length - keep;
  }
  return text.length;
}

let counter = 0;

/**
 * Streams one answer with prompted tool calls: text is passed on as it comes until something
 * that may be a tool call block starts; at the end, the blocks become `tool-call` events and the
 * rest is passed on as text.
 */
export async function* promptedStream(client: ModelClient, request: ModelRequest): AsyncGenerator<ModelEvent> {
  // A call of a tool not offered (still in the catalogue) is read too: it runs, and is offered next.
  const names = new Set((request.callable ?? request.tools).map((t) => t.name));
  let text = '';
  let emitted = 0;
  let finish: ModelEvent | undefined;
  for await (const event of client.stream({ ...request, prompt: toPromptedPrompt(request.prompt, request.tools), tools: [] })) {
    if (event.type === 'text') {
      text += event.text;
      let safe = emitted + holdFrom(text.slice(emitted));
      // Whitespace waits for what follows it: before a tool call block it is dropped.
      while (safe > emitted && /\s/.test(text[safe - 1]!)) safe--;
      if (safe > emitted) {
        yield { type: 'text', text: text.slice(emitted, safe) };
        emitted = safe;
      }
    } else if (event.type === 'finish') {
      finish = event;
    } else {
      yield event;
    }
  }
  const held = text.slice(emitted);
  const { text: rest, calls } = parseToolCalls(held, names);
  if (rest) yield { type: 'text', text: emitted ? `${/^\s*/.exec(held)![0]}${rest}` : rest };
  for (const call of calls) {
    yield { type: 'tool-call', id: `prompted_${Date.now().toString(36)}_${++counter}`, name: call.name, input: call.input, invalid: call.invalid };
  }
  if (finish) yield finish.type === 'finish' && calls.length ? { ...finish, finishReason: 'tool-calls' } : finish;
}

export interface PromptedToolsOptions {
  /** Start with prompted tool calls (the profile says the model has none). */
  prompted?: boolean;
  /** Called once when the client switched: the provider refused tools, or says the model has none. */
  onSwitch?(refusal?: RunError): void;
}

/**
 * Wraps a client: native tool calling until the provider refuses tools (or says up front that
 * the model has none), then prompted tool calls for the rest of this client's life (a refused
 * request is sent again at once, prompted).
 */
export function withPromptedTools(client: ModelClient, options: PromptedToolsOptions = {}): ModelClient {
  let prompted = Boolean(options.prompted);
  let asked = false;
  return {
    config: client.config,
    contextLength: client.contextLength?.bind(client),
    async *stream(request) {
      if (!prompted && !asked && request.tools.length && client.supportsTools) {
        // A provider that says the model has no tools saves the request it would refuse.
        asked = true;
        if ((await client.supportsTools().catch(() => undefined)) === false) {
          prompted = true;
          options.onSwitch?.();
        }
      }
      if (!prompted && request.tools.length) {
        let started = false;
        try {
          for await (const event of client.stream(request)) {
            started = true;
            yield event;
          }
          return;
        } catch (error) {
          if (started || request.signal.aborted || !(error instanceof ProviderError) || !refusesTools(error.info)) throw error;
          prompted = true;
          options.onSwitch?.(error.info);
        }
      }
      if (!request.tools.length) {
        yield* client.stream(request);
        return;
      }
      yield* promptedStream(client, request);
    },
  };
}

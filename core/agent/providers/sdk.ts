import {
  APICallError,
  InvalidResponseDataError,
  type LanguageModelV3,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
  type SharedV3ProviderMetadata,
  type SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { describeProviderError, ProviderError } from '../errors';
import { traceRequest, traceResponse, type TraceSink } from '@/core/data/trace';
import type { ModelClient, ModelEvent, ModelRequest, ProviderConfig, RequestTimings, Usage } from '../provider';
import type { ToolSpec } from '@/core/registry/types';

export interface RequestHooks {
  timings?: RequestTimings;
  beforeSend?: Promise<unknown>;
  /** Called once the request has been handed to `fetch`. */
  sent?(): void;
  /** Filled with the request as sent and the response as received (the trace view). */
  trace?: TraceSink;
}

/**
 * A fetch that waits for `beforeSend`, records when the request left and when the last byte of
 * the answer arrived, so the agent loop can measure the time it adds itself between model
 * answers and tool calls, and the request and response for the step's trace.
 *
 * `lastEvent`: how the wire format's last event ends a chunk (OpenAI's `data: [DONE]`). The body
 * given to the package then ends there, without waiting for the end of the HTTP body, which the
 * browser delivers as one more event (0.3 ms in Chromium, ≈ 1 ms in Firefox, bench/README.md round
 * 8); what follows is still read (and traced), so the connection can be used again.
 */
export function timedFetch(hooks: () => RequestHooks | undefined, lastEvent?: RegExp): typeof fetch {
  return async (input, init) => {
    const { timings, beforeSend, sent, trace } = hooks() ?? {};
    if (timings) timings.fetchCalledAt = performance.now();
    if (beforeSend) await beforeSend;
    if (trace) traceRequest(trace, input, init);
    if (timings) timings.requestSentAt = performance.now();
    const responded = fetch(input, init);
    sent?.();
    const response = await responded;
    const record = trace && traceResponse(trace, response);
    if ((!timings && !record && !lastEvent) || !response.body) return response;
    // One stage for all of it: each stage costs every chunk (a token or a few) some work and a task hop.
    const reader = response.body.getReader();
    const ended = () => {
      if (timings) timings.bodyEndAt = performance.now();
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          ended();
          controller.close();
          return;
        }
        if (timings) timings.lastByteAt = performance.now();
        record?.(value);
        controller.enqueue(value);
        if (lastEvent && lastEvent.test(chunkEnd(value))) {
          ended();
          controller.close();
          void readRest(reader, record);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** One for every body: without `stream`, each call decodes on its own. */
const endDecoder = new TextDecoder();

/** The last characters of a chunk (enough for any `lastEvent`), decoded. */
function chunkEnd(chunk: Uint8Array): string {
  return endDecoder.decode(chunk.length > 64 ? chunk.subarray(chunk.length - 64) : chunk);
}

/** Reads a body to its end after its last event (normally nothing is left but the end itself). */
async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>, record?: (chunk: Uint8Array) => void): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      record?.(value);
    }
  } catch {
    // Stopped or cut after the answer was complete: nothing is lost.
  }
}

/** The SDK's form of a tool list, kept per list: the registry gives a run's steps the same list. */
const functionToolsOf = new WeakMap<readonly ToolSpec[], LanguageModelV3FunctionTool[]>();

function functionTools(specs: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
  let tools = functionToolsOf.get(specs);
  if (!tools) {
    tools = specs.map((spec) => ({ type: 'function' as const, name: spec.name, description: spec.description, inputSchema: spec.inputSchema as LanguageModelV3FunctionTool['inputSchema'] }));
    functionToolsOf.set(specs, tools);
  }
  return tools;
}

/** Retries of a failed request (429, 5xx…) before the error reaches the user, and the wait before one. */
const MAX_RETRIES = 1;
const RETRY_DELAY_MS = 2000;

export interface SdkClientOptions {
  /**
   * Builds the SDK model with a fetch that honours the request hooks; called at the first request.
   * A client imports its provider package here (`await import(…)`): the background's bundle then
   * evaluates a package only when a profile of its type first sends, not at every worker start.
   */
  model(fetch: typeof globalThis.fetch): Promise<LanguageModelV3>;
  /** Provider-specific options of every request (Ollama's `num_ctx`…). */
  providerOptions?(): Promise<SharedV3ProviderOptions | undefined>;
  /** What the protocol is called in error messages. */
  protocol: string;
  /** How a chunk that ends with the wire format's last event ends (see `timedFetch`). */
  lastEvent?: RegExp;
  /** A tool call's provider metadata as the package reads it back in `providerOptions` (where the two differ). */
  toolCallMetadata?(metadata: SharedV3ProviderMetadata): SharedV3ProviderMetadata | undefined;
  /** True when the finish part shows the answer was cut short (a stream that ended without its last event). */
  incomplete?(finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }>): boolean;
  /**
   * Marks what the provider caches only where told (Anthropic's cache breakpoints,
   * `anthropic-cache.ts`); returns copies, never changes what it is given (the history's cache
   * shares the prompt's messages, the tool list is the registry's).
   */
  cache?: {
    prompt(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt;
    tools(tools: readonly LanguageModelV3FunctionTool[]): LanguageModelV3FunctionTool[];
  };
}

/**
 * A `ModelClient` over any AI SDK provider package. It drives the package's `doStream` directly:
 * the package does the HTTP, the wire format and tool-call assembly; the agent loop does the
 * orchestration, so `streamText`'s own (prompt re-validation on every step, several stream
 * stages) would only add time to each step.
 */
export function createSdkClient(config: ProviderConfig, options: SdkClientOptions): ModelClient {
  let hooks: RequestHooks | undefined;
  let built: Promise<LanguageModelV3> | undefined;
  const build = () => (built ??= options.model(timedFetch(() => hooks, options.lastEvent)));

  async function open(request: ModelRequest) {
    let tools = functionTools(request.tools);
    let prompt = request.prompt;
    if (options.cache && request.cache !== false) {
      tools = options.cache.tools(tools);
      prompt = options.cache.prompt(prompt);
    }
    const model = await build();
    const providerOptions = await options.providerOptions?.();
    for (let attempt = 0; ; attempt++) {
      hooks = { timings: request.timings, beforeSend: request.beforeSend, sent: request.sent, trace: request.trace };
      try {
        return await model.doStream({
          prompt,
          tools: tools.length ? tools : undefined,
          abortSignal: request.signal,
          providerOptions,
        });
      } catch (error) {
        if (request.signal.aborted || attempt >= MAX_RETRIES || !APICallError.isInstance(error) || !error.isRetryable) throw error;
        await sleep(retryDelay(error), request.signal);
      } finally {
        hooks = undefined;
      }
    }
  }

  return {
    config,
    async prepare() {
      await build();
    },
    async *stream(request) {
      let failure: unknown;
      let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
      const calls = new EarlyCalls();
      try {
        reader = (await open(request)).stream.getReader();
        for (;;) {
          const { done, value: part } = await reader.read();
          if (done) break;
          if (part.type === 'text-delta') {
            if (part.delta) yield { type: 'text', text: part.delta };
          } else if (part.type === 'tool-input-start') {
            yield* calls.started(part.id, part.toolName);
          } else if (part.type === 'tool-input-delta') {
            calls.delta(part.id, part.delta);
          } else if (part.type === 'tool-call') {
            const metadata = part.providerMetadata && (options.toolCallMetadata ? options.toolCallMetadata(part.providerMetadata) : part.providerMetadata);
            if (calls.given(part.toolCallId, part.input)) {
              // Given early: only what the package adds at the end (a call's metadata) is new.
              if (metadata) yield { type: 'tool-call', id: part.toolCallId, name: part.toolName, input: undefined, providerMetadata: metadata };
              continue;
            }
            const { input, invalid } = parseToolInput(part.input);
            yield { type: 'tool-call', id: part.toolCallId, name: part.toolName, input, invalid, ...(metadata && { providerMetadata: metadata }) };
          } else if (part.type === 'finish') {
            if (options.incomplete?.(part)) {
              failure ??= new InvalidResponseDataError({ data: null, message: `The ${options.protocol} answer ended before its last event.` });
              continue;
            }
            const reason = typeof part.finishReason === 'string' ? part.finishReason : part.finishReason.unified;
            yield {
              type: 'finish',
              finishReason: reason,
              usage: usageOf(part.usage),
            };
          } else if (part.type === 'error') {
            failure ??= part.error;
          }
        }
      } catch (error) {
        if (request.signal.aborted) throw error;
        failure ??= error;
      } finally {
        reader?.releaseLock();
      }
      if (failure !== undefined && !request.signal.aborted) {
        throw new ProviderError(
          describeProviderError(failure, config.baseUrl, { answerStarted: reader !== undefined, protocol: options.protocol }),
        );
      }
    },
  };
}

/**
 * Tool calls some packages hold until their stream ends (the OpenAI-compatible one finishes every
 * call in its `flush`), given as soon as they are known to be complete: when the provider has moved
 * on to the next call, and the earlier call's streamed input is a whole JSON object. The package's
 * own `tool-call` for it comes later and is not given again (`given`). Packages that give each call
 * as its input ends (Anthropic's, Ollama's) never have one left here when the next starts.
 *
 * Not the heuristic the AI SDK removed as a security fix (vercel/ai#13137: a call finished as soon
 * as its input happened to parse, which could run it with a truncated input). Here a call is never
 * given while it may still be streaming: only once the next one has begun, and a whole object is
 * never the start of a longer valid one. If the package's input for it differs all the same (a
 * provider that broke its own stream), that is told in the console; what ran is what the approval
 * card and the conversation show.
 */
class EarlyCalls {
  private readonly streaming = new Map<string, { name: string; input: string }>();
  private readonly early = new Map<string, string>();

  *started(id: string, name: string): Generator<ModelEvent> {
    for (const [earlier, call] of this.streaming) {
      const input = wholeObject(call.input);
      if (!input) continue;
      this.early.set(earlier, call.input);
      yield { type: 'tool-call', id: earlier, name: call.name, input };
    }
    this.streaming.clear();
    this.streaming.set(id, { name, input: '' });
  }

  delta(id: string, text: string): void {
    const call = this.streaming.get(id);
    if (call) call.input += text;
  }

  /** True if the call was given early (and is forgotten by this); `input`: the package's, at the end. */
  given(id: string, input: string): boolean {
    this.streaming.delete(id);
    const early = this.early.get(id);
    if (early === undefined) return false;
    this.early.delete(id);
    if (early.trim() !== input.trim()) console.warn(`[sidequest] tool call ${id} ran with input the provider later changed`, { ran: early, final: input });
    return true;
  }
}

/** The input as an object, if it is a whole JSON object (not an array, a string or a number). */
function wholeObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The usage a package reports, in Sidequest's terms. `inputTokens` is every token read, from the
 * cache or not; the cache's share is kept where the provider reported one (Anthropic's
 * `cache_read_input_tokens` and `cache_creation_input_tokens`, Chat Completions'
 * `prompt_tokens_details.cached_tokens`, Gemini's `cachedContentTokenCount`). The packages say 0
 * where the provider said nothing, so 0 is left out.
 */
export function usageOf(usage: LanguageModelV3Usage): Usage {
  const { total, cacheRead, cacheWrite } = usage.inputTokens;
  return {
    inputTokens: total,
    outputTokens: usage.outputTokens.total,
    ...(cacheRead ? { cachedInputTokens: cacheRead } : {}),
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
  };
}

/** Tool-call arguments arrive as a JSON string; an empty one means no arguments. */
export function parseToolInput(raw: string): { input: unknown; invalid?: string } {
  if (!raw.trim()) return { input: {} };
  try {
    return { input: JSON.parse(raw) };
  } catch {
    return { input: raw, invalid: 'the arguments are not valid JSON' };
  }
}

function retryDelay(error: APICallError): number {
  const header = error.responseHeaders?.['retry-after'];
  const seconds = header ? Number(header) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= 30 ? seconds * 1000 : RETRY_DELAY_MS;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

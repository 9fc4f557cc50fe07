import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, type LanguageModelV3Prompt, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ToolSpec } from '@/core/registry/types';
import { describeProviderError, ProviderError } from './errors';

/** Connection settings of an OpenAI-compatible Chat Completions endpoint. */
export interface ProviderConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/** One event of a streamed model answer, independent of the SDK that produced it. */
export type ModelEvent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; id: string; name: string; input: unknown; invalid?: string }
  | { type: 'finish'; finishReason: string; usage?: Usage };

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
}

/** Time marks of one model request, from `performance.now()`; for the per-step overhead. */
export interface RequestTimings {
  requestSentAt?: number;
  lastByteAt?: number;
}

export interface ModelRequest {
  /** The conversation in the provider-level prompt format, system message first (see history.ts). */
  prompt: LanguageModelV3Prompt;
  tools: ToolSpec[];
  signal: AbortSignal;
  timings?: RequestTimings;
  /** Awaited right before the request leaves: lets the caller's writes overlap request building. */
  beforeSend?: Promise<unknown>;
}

/** Streams one model answer; throws `ProviderError` on any provider or network failure. */
export interface ModelClient {
  readonly config: ProviderConfig;
  stream(request: ModelRequest): AsyncGenerator<ModelEvent>;
}

interface RequestHooks {
  timings?: RequestTimings;
  beforeSend?: Promise<unknown>;
}

/**
 * A fetch that waits for `beforeSend`, records when the request left and when the last byte of
 * the answer arrived, so the agent loop can measure the time it adds itself between model
 * answers and tool calls.
 */
export function timedFetch(hooks: () => RequestHooks | undefined): typeof fetch {
  return async (input, init) => {
    const { timings, beforeSend } = hooks() ?? {};
    if (beforeSend) await beforeSend;
    if (timings) timings.requestSentAt = performance.now();
    const response = await fetch(input, init);
    if (!timings || !response.body) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          timings.lastByteAt = performance.now();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Retries of a failed request (429, 5xx…) before the error reaches the user, and the wait before one. */
const MAX_RETRIES = 1;
const RETRY_DELAY_MS = 2000;

/**
 * A client for any OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama, LM Studio, vLLM…).
 * It drives the AI SDK provider's `doStream` directly: the provider does the HTTP, SSE parsing and
 * tool-call assembly; the agent loop does the orchestration, so `streamText`'s own (prompt
 * re-validation on every step, several stream stages) would only add time to each step.
 */
export function createOpenAICompatibleClient(config: ProviderConfig): ModelClient {
  let hooks: RequestHooks | undefined;
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: config.baseUrl.replace(/\/+$/, ''),
    apiKey: config.apiKey || undefined,
    includeUsage: true,
    fetch: timedFetch(() => hooks),
  });
  const model = provider.chatModel(config.model);

  async function open(request: ModelRequest) {
    const tools = request.tools.map((spec) => ({
      type: 'function' as const,
      name: spec.name,
      description: spec.description,
      inputSchema: spec.inputSchema as Record<string, unknown>,
    }));
    for (let attempt = 0; ; attempt++) {
      hooks = { timings: request.timings, beforeSend: request.beforeSend };
      try {
        return await model.doStream({ prompt: request.prompt, tools: tools.length ? tools : undefined, abortSignal: request.signal });
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
    async *stream(request) {
      let failure: unknown;
      let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
      try {
        reader = (await open(request)).stream.getReader();
        for (;;) {
          const { done, value: part } = await reader.read();
          if (done) break;
          if (part.type === 'text-delta') {
            if (part.delta) yield { type: 'text', text: part.delta };
          } else if (part.type === 'tool-call') {
            const { input, invalid } = parseToolInput(part.input);
            yield { type: 'tool-call', id: part.toolCallId, name: part.toolName, input, invalid };
          } else if (part.type === 'finish') {
            const reason = typeof part.finishReason === 'string' ? part.finishReason : part.finishReason.unified;
            yield {
              type: 'finish',
              finishReason: reason,
              usage: { inputTokens: part.usage.inputTokens.total, outputTokens: part.usage.outputTokens.total },
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
        throw new ProviderError(describeProviderError(failure, config.baseUrl, { answerStarted: reader !== undefined }));
      }
    },
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

export interface ProviderCheck {
  ok: boolean;
  /** For the first-run message: what happened, in words. */
  message: string;
  /** The model the settings name. */
  model: string;
  /** The models the endpoint lists, when it answered. */
  models?: string[];
}

/** Asks the endpoint for its models: tells whether a provider answers at all. */
export async function checkProvider(config: ProviderConfig, timeoutMs = 4000): Promise<ProviderCheck> {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/models`;
  try {
    const response = await fetch(url, {
      headers: config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      const what = response.status === 401 || response.status === 403 ? 'refused the API key' : `answered HTTP ${response.status}`;
      return { ok: false, model: config.model, message: `The provider at ${config.baseUrl} ${what}.` };
    }
    const body = (await response.json().catch(() => null)) as { data?: Array<{ id?: string }> } | null;
    const models = body?.data?.map((m) => m.id).filter((id): id is string => typeof id === 'string');
    return { ok: true, model: config.model, message: `Connected to ${config.baseUrl}.`, models };
  } catch (error) {
    const reason = (error as Error)?.name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
    return { ok: false, model: config.model, message: `No model provider answers at ${config.baseUrl}: it ${reason}.` };
  }
}

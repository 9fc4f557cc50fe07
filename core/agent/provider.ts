import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
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
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  timings?: RequestTimings;
}

/** Streams one model answer; throws `ProviderError` on any provider or network failure. */
export interface ModelClient {
  readonly config: ProviderConfig;
  stream(request: ModelRequest): AsyncGenerator<ModelEvent>;
}

/**
 * A fetch that records when the request left and when the last byte of the answer arrived, so
 * the agent loop can measure the time it adds itself between model answers and tool calls.
 */
export function timedFetch(timings: () => RequestTimings | undefined): typeof fetch {
  return async (input, init) => {
    const marks = timings();
    if (marks) marks.requestSentAt = performance.now();
    const response = await fetch(input, init);
    if (!marks || !response.body) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          marks.lastByteAt = performance.now();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Retries of a failed request (429, 5xx) before the error reaches the user. */
const MAX_RETRIES = 1;

/** A client for any OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama, LM Studio, vLLM…). */
export function createOpenAICompatibleClient(config: ProviderConfig): ModelClient {
  let currentTimings: RequestTimings | undefined;
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: config.baseUrl.replace(/\/+$/, ''),
    apiKey: config.apiKey || undefined,
    includeUsage: true,
    fetch: timedFetch(() => currentTimings),
  });
  const model = provider.chatModel(config.model);

  return {
    config,
    async *stream({ system, messages, tools, signal, timings }) {
      currentTimings = timings;
      const toolSet: ToolSet = {};
      for (const spec of tools) {
        toolSet[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(spec.inputSchema as never) });
      }
      let failure: unknown;
      const result = streamText({
        model,
        system,
        messages,
        tools: toolSet,
        abortSignal: signal,
        maxRetries: MAX_RETRIES,
        onError: ({ error }) => {
          failure ??= error;
        },
      });
      const seenCalls = new Set<string>();
      try {
        for await (const part of result.fullStream) {
          switch (part.type) {
            case 'text-delta':
              if (part.text) yield { type: 'text', text: part.text };
              break;
            case 'tool-call': {
              if (seenCalls.has(part.toolCallId)) break;
              seenCalls.add(part.toolCallId);
              // A call of a tool that was not offered goes to the registry, which says why it may
              // not run (unknown, switched off, not for this sub-agent) in its own words.
              const invalid = part.invalid && !isNoSuchTool(part.error) ? invalidReason(part.error) : undefined;
              yield { type: 'tool-call', id: part.toolCallId, name: part.toolName, input: part.input, invalid };
              break;
            }
            case 'error':
              failure ??= part.error;
              break;
            case 'finish':
              if (failure === undefined) {
                yield {
                  type: 'finish',
                  finishReason: part.finishReason,
                  usage: { inputTokens: part.totalUsage.inputTokens, outputTokens: part.totalUsage.outputTokens },
                };
              }
              break;
          }
        }
      } catch (error) {
        if (signal.aborted) throw error;
        failure ??= error;
      } finally {
        currentTimings = undefined;
      }
      if (failure !== undefined && !signal.aborted) {
        throw new ProviderError(describeProviderError(failure, config.baseUrl));
      }
    },
  };
}

function isNoSuchTool(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | undefined;
  return e?.name === 'AI_NoSuchToolError' || /unavailable tool|no such tool/i.test(e?.message ?? '');
}

function invalidReason(error: unknown): string {
  const message = (error as { message?: string } | undefined)?.message ?? 'the arguments could not be read';
  if (/JSON/i.test(message)) return 'the arguments are not valid JSON';
  if (/no such tool|NoSuchTool/i.test(message)) return 'there is no tool with that name';
  return message;
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

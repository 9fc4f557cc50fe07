import type { LanguageModelV3Prompt, SharedV3ProviderMetadata } from '@ai-sdk/provider';
import type { Said } from '@/core/i18n/catalog';
import type { TraceSink } from '@/core/data/trace';
import type { ToolSpec } from '@/core/registry/types';
import type { ProviderType } from './providers/list';

// What the provider clients (`providers/`) and the rest of the agent share: the request in, the
// events out, a profile's connection settings. Types only, below both: it imports of providers
// only their list (`ProviderType`), which imports no client.

/** The wire protocols Sidequest speaks: one per `defineProvider` in `providers/list.ts`. */
export type { ProviderType } from './providers/list';

/** How tools reach the model: its native tool calling, or described in the prompt (`prompted-tools.ts`). */
export type ToolMode = 'native' | 'prompted';

/** The profile's "Model sees images": yes, no; absent: Auto. */
export type ImageChoice = 'yes' | 'no';

/** Connection settings of one model provider. */
export interface ProviderConfig {
  /** Absent: OpenAI-compatible (settings from before profiles). */
  type?: ProviderType;
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The model's context window in tokens, as the profile says (the provider's own figure wins). */
  contextLength?: number;
  /** Ollama: `num_ctx` to ask for instead of the model's own context length. */
  numCtx?: number;
  /** 'prompted': the profile says the model has no tool calling. */
  toolMode?: ToolMode;
  /** Whether the model sees images (screenshots) tools return; absent: Auto (`tool-images.ts`). */
  images?: ImageChoice;
  /** Prices for the cost estimate, where the profile has them. */
  pricing?: Pricing;
}

/**
 * One event of a streamed model answer, independent of the SDK that produced it. A tool call is
 * given once it is complete, possibly before the answer ends; it may come again by the same id
 * with what the provider attached to it at the end (`providerMetadata`), which is all that counts then.
 */
export type ModelEvent =
  | { type: 'text'; text: string }
  | {
      type: 'tool-call';
      id: string;
      name: string;
      input: unknown;
      invalid?: string;
      /** What the provider attached to the call (Gemini's `thoughtSignature`), to send back with it. */
      providerMetadata?: SharedV3ProviderMetadata;
    }
  /** `by`: who answered when it was not the model (a `RunDriver`'s replayed step), kept on the answer. */
  | { type: 'finish'; finishReason: string; usage?: Usage; by?: Said };

export interface Usage {
  /** Every input token, those read from or written to the provider's prompt cache included. */
  inputTokens?: number;
  outputTokens?: number;
  /** Of `inputTokens`, those read from the provider's prompt cache (billed lower), where it says. */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to the provider's prompt cache (Anthropic bills them higher), where it says. */
  cacheWriteTokens?: number;
  /** Estimated cost in US dollars, where the provider profile has prices. */
  costUsd?: number;
}

/** A profile's prices, in US dollars per million tokens. */
export interface Pricing {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Time marks of one model request, from `performance.now()`; for the per-step overhead. */
export interface RequestTimings {
  /** The request is built: the SDK called fetch, which waits for `beforeSend`. */
  fetchCalledAt?: number;
  requestSentAt?: number;
  lastByteAt?: number;
  /** The response's end reached the page (after its last byte). */
  bodyEndAt?: number;
}

export interface ModelRequest {
  /** The conversation in the provider-level prompt format, system message first (see history.ts). */
  prompt: LanguageModelV3Prompt;
  /** The tools offered in full with this request. */
  tools: readonly ToolSpec[];
  /**
   * Every tool the model may call at this step, offered or still in the catalogue
   * (`core/agent/offered-tools.ts`): a call of one not offered runs too. Default: `tools`.
   */
  callable?: readonly ToolSpec[];
  /** `false`: a one-off request (a summary) whose prefix no later request reuses: nothing is marked for the provider's cache. */
  cache?: false;
  signal: AbortSignal;
  timings?: RequestTimings;
  /** Awaited right before the request leaves: lets the caller's writes overlap request building. */
  beforeSend?: Promise<unknown>;
  /** Called as the request leaves (after `beforeSend`): the caller's work that can wait goes then. */
  sent?(): void;
  /** Filled with the HTTP request and response of this step, credentials redacted. */
  trace?: TraceSink;
}

/** Streams one model answer; throws `ProviderError` on any provider or network failure. */
export interface ModelClient {
  readonly config: ProviderConfig;
  stream(request: ModelRequest): AsyncGenerator<ModelEvent>;
  /** The model's context window in tokens, where the provider says (Ollama's `/api/show`, Gemini's model list). */
  contextLength?(): Promise<number | undefined>;
  /** Whether the model can call tools, where the provider says (Ollama's `/api/show` capabilities). */
  supportsTools?(): Promise<boolean | undefined>;
  /** Whether the model sees images, where the provider says (Ollama's `/api/show` capabilities). */
  supportsImages?(): Promise<boolean | undefined>;
  /** Loads what its first request needs (its provider package), ahead of it; sends nothing. */
  prepare?(): Promise<void>;
}

export interface ProviderCheck {
  ok: boolean;
  /** For the first-run message: what happened, in words (English). */
  message: string;
  /** The same words for the pages to translate. */
  said?: Said;
  /** The model the settings name. */
  model: string;
  /** The models the endpoint lists, when it answered. */
  models?: string[];
}

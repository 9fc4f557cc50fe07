// Types for the scripted model server (server.mjs), for the TypeScript unit tests.
import type http from 'node:http';

export interface ScriptedToolCall {
  name: string;
  arguments?: object | string;
  id?: string;
  /** Gemini's signature of the call (`extra_content.google.thought_signature` here, `thoughtSignature` in gemini.mjs). */
  thoughtSignature?: string;
}
export interface Reply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  status?: number;
  errorBody?: unknown;
  malformed?: boolean;
  disconnect?: boolean;
  hang?: boolean;
  chunkSize?: number;
  delayMs?: number;
  /** Explicit content pieces, sent instead of `text` cut into `chunkSize` pieces. */
  chunks?: string[];
  /** Paces `chunks` at this many characters per second (absolute schedule). */
  charsPerSecond?: number;
  /**
   * In Chat Completions' terms; `prompt_tokens_details.cached_tokens` is sent as it is (Gemini's
   * server: `cachedContentTokenCount`), Anthropic's server sends its own cache fields as named
   * (its `prompt_tokens` is `input_tokens`, the tokens read without the cache).
   */
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
}
export interface ScriptRequest {
  body: any;
  messages: any[];
  tools: any[];
  toolNames: string[];
  /** The last message, image carriers skipped (a step's tool result stays `last`). */
  last: any;
  lastUser: any;
  /** The images of the latest step, whatever the wire format put them in. */
  images: Array<{ mediaType: string; data: string; callId?: string }>;
  headers: http.IncomingHttpHeaders;
  receivedAt: number;
  lastByteAt?: number;
  /** When each of `chunks` was written, in epoch ms (performance.timeOrigin + performance.now()). */
  chunkWrittenAt?: number[];
}
export type Script = (request: ScriptRequest) => Reply | Promise<Reply>;
export function contentText(message: unknown): string;
export function messageImages(message: unknown): Array<{ mediaType: string; data: string; callId?: string }>;
export function isImageCarrier(message: unknown): boolean;
export function scriptView(messages: any[]): { last: any; lastUser: any; images: Array<{ mediaType: string; data: string; callId?: string }> };
export const defaultScript: Script;
export function startModelServer(options?: { port?: number; script?: Script; apiKey?: string }): Promise<{
  port: number;
  url: string;
  requests: ScriptRequest[];
  setScript(next: Script): Script;
  queue(replies: Reply[]): void;
  reset(): void;
  close(): Promise<void>;
}>;

// Types for the scripted ollama server (ollama.mjs), for the TypeScript unit tests.
import type { Reply, Script, ScriptRequest } from './server.mjs';

/** A reply may also name an error mode, answered with the provider's own status and body. */
export type ErrorMode = 'auth' | 'not_found' | 'rate_limit' | 'overloaded' | 'context' | 'tools' | 'server';
export type ProviderReply = Reply & { error?: ErrorMode; streamError?: ErrorMode };
export function ollamaError(kind: ErrorMode): { status: number; body: unknown };
export function startOllamaServer(options?: { port?: number; script?: Script; apiKey?: string; contextLength?: number; contextLimit?: number; noTools?: boolean; capabilities?: boolean; vision?: boolean; models?: string[] }): Promise<{
  port: number;
  url: string;
  requests: ScriptRequest[];
  setScript(next: (request: ScriptRequest) => ProviderReply | Promise<ProviderReply>): Script;
  queue(replies: ProviderReply[]): void;
  reset(): void;
  close(): Promise<void>;
} & { shows: Array<{ model: string }> }>;

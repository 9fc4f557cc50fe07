// Types for the scripted anthropic server (anthropic.mjs), for the TypeScript unit tests.
import type { Reply, Script, ScriptRequest } from './server.mjs';

/** A reply may also name an error mode, answered with the provider's own status and body. */
export type ErrorMode = 'auth' | 'not_found' | 'rate_limit' | 'overloaded' | 'context' | 'tools' | 'server';
export type ProviderReply = Reply & { error?: ErrorMode; streamError?: ErrorMode; cutAfterCalls?: boolean };
export function anthropicError(kind: ErrorMode): { status: number; body: unknown };
export function startAnthropicServer(options?: { port?: number; script?: Script; apiKey?: string; contextLimit?: number; models?: Array<{ id: string; display_name?: string; max_input_tokens?: number }> }): Promise<{
  port: number;
  url: string;
  requests: ScriptRequest[];
  setScript(next: (request: ScriptRequest) => ProviderReply | Promise<ProviderReply>): Script;
  queue(replies: ProviderReply[]): void;
  reset(): void;
  close(): Promise<void>;
}>;

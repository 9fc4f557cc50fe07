// Types for the scripted gemini server (gemini.mjs), for the TypeScript unit tests.
import type { Reply, Script, ScriptedToolCall, ScriptRequest } from './server.mjs';

/** A reply may also name an error mode, answered with the provider's own status and body. */
export type ErrorMode = 'auth' | 'not_found' | 'rate_limit' | 'overloaded' | 'context' | 'tools' | 'signature' | 'server';
export type ProviderReply = Omit<Reply, 'toolCalls'> & { toolCalls?: Array<ScriptedToolCall & { thoughtSignature?: string }>; error?: ErrorMode; streamError?: ErrorMode };
export function geminiError(kind: ErrorMode): { status: number; body: unknown };
export function startGeminiServer(options?: { port?: number; script?: Script; apiKey?: string; contextLimit?: number; signatures?: boolean; models?: Array<{ name: string; displayName?: string; inputTokenLimit?: number }> }): Promise<{
  port: number;
  url: string;
  requests: ScriptRequest[];
  setScript(next: (request: ScriptRequest) => ProviderReply | Promise<ProviderReply>): Script;
  queue(replies: ProviderReply[]): void;
  reset(): void;
  close(): Promise<void>;
}>;

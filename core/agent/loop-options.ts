import type { ToolRegistry } from '@/core/registry/registry';
import type { ToolContext, ToolGate, ToolSpec } from '@/core/registry/types';
import type { AssistantMessage, StoredMessage } from '@/core/storage/db';
import type { ModelClient } from './provider';
import type { LoopObserver } from './step-timing';
import type { Transcript } from './transcript';

// What an agent loop is given (`runAgentLoop`, `loop.ts`), apart from the loop, so what the loop
// calls (`tool-call.ts`) reads it from below; `loop.ts` exports both names too.

/**
 * The tokens one run has used, and its budget: shared by the run's own loop and the model
 * clients its tools use (sub-agents, summaries), so they count against the same budget.
 */
export interface RunMeter {
  used: number;
  limit?: number;
}

export interface LoopOptions {
  client: ModelClient;
  registry: ToolRegistry;
  transcript: Transcript;
  /**
   * The approval gate every call passes (the background's `ApprovalGate`; a sub-agent gets its
   * parent's). Given explicitly, never found elsewhere: without one the loop asks `noGate`
   * (core/approvals/no-gate.ts), which refuses every call the user would have to allow.
   */
  gate?: ToolGate;
  /** The conversation so far; the loop appends what it adds. */
  history: StoredMessage[];
  system: string;
  maxSteps: number;
  /**
   * Input + output tokens this loop may use: checked after each answer, before the next request;
   * reaching it ends the loop with `budget`. Undefined: no budget.
   */
  tokenBudget?: number;
  /** The run's shared token meter (its `limit` is the budget); made from `tokenBudget` when absent. */
  meter?: RunMeter;
  signal: AbortSignal;
  /** Narrows the tools, both those listed to the model and those that may run (sub-agent types). */
  allow?: (spec: ToolSpec) => boolean;
  /**
   * Checks (and may complete) a call's input before it runs, e.g. binding a sub-agent to its tab.
   * Throwing refuses the call; the message goes to the model as the tool's error.
   */
  checkCall?: (name: string, input: unknown) => unknown;
  /** What every tool call gets besides its signal (the conversation, a bound tab, a sub-agent's label). */
  toolContext?: Pick<ToolContext, 'conversationId' | 'tabId' | 'agentLabel'>;
  /** The answer being streamed now (undefined once it is saved). */
  onStreaming?(message: AssistantMessage | undefined): void;
  /** Told the marks of each step (the benchmark's step timer); optional. */
  observer?: LoopObserver;
}

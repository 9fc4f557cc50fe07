import type { LanguageModelV3Prompt } from '@ai-sdk/provider';

/** One request's context management, in ms (`performance.now()` differences). */
export interface ContextTiming {
  /** `toModelPrompt`: the stored history turned into the prompt. */
  convertMs: number;
  /** The context window's `fit`, all of it (with the summary requests and the summary's storage). */
  fitMs: number;
  /** Of `fitMs`: waiting for the model's summary requests. */
  modelMs: number;
  /** Of `fitMs`: reading and writing the conversation's stored summary. */
  storageMs: number;
  /** Messages in the prompt as built from the history; summary requests made for this request. */
  messages: number;
  summaries: number;
}

/**
 * The benchmark's context timer (`bench/context.mjs`): off unless a bench build switches it on
 * (`registerBench`); then `history.ts` and `context-window.ts` note what each request's context
 * management cost. Kept to the last 2,000 requests.
 */
export const contextTimer = {
  on: false,
  /** The last `toModelPrompt`'s time, taken by the next `fit`. */
  convertMs: 0,
  timings: [] as ContextTiming[],
  /** The latest request's prompt as built (a baseline: one `JSON.stringify` of it). */
  lastPrompt: undefined as LanguageModelV3Prompt | undefined,
  record(timing: ContextTiming): void {
    this.timings.push(timing);
    if (this.timings.length > 2000) this.timings.shift();
  },
};

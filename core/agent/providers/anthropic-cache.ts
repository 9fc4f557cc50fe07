import type { LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt, SharedV3ProviderOptions } from '@ai-sdk/provider';

// Anthropic caches a request's prefix only up to the blocks marked `cache_control` (at most four
// a request), in the order tools → system → messages. `@ai-sdk/anthropic` writes the marker from
// `providerOptions.anthropic.cacheControl` on a function tool, a system message, or a message
// (on its last part). Sidequest marks four places:
// - the last tool definition: the tools alone, reused when the system prompt changes (a new day,
//   another interface language) but the tools do not;
// - the system message: tools and instructions, the same for every request of every run;
// - the last message: the whole conversation so far, which the next step reads back from the
//   cache and extends (Anthropic's incremental caching);
// - the last message before the latest answer: where the previous request ended, so a step whose
//   answer and results add more than the 20 blocks Anthropic looks back over (many parallel
//   calls) still reads the previous step's prefix, and a tail that missed keeps a fallback.
// Only the Anthropic client asks for this (`anthropic-client.ts`); OpenAI-compatible endpoints and
// Gemini cache a stable prefix on their own.

/** One breakpoint: the default five-minute cache (a step of a run comes well within it). */
const EPHEMERAL = { type: 'ephemeral' } as const;

function marked<T extends { providerOptions?: SharedV3ProviderOptions }>(value: T): T {
  const own = value.providerOptions;
  return { ...value, providerOptions: { ...own, anthropic: { ...own?.anthropic, cacheControl: EPHEMERAL } } };
}

/** Marked copies of tool lists, by list: the registry gives a run's steps the same list. */
const markedTools = new WeakMap<readonly LanguageModelV3FunctionTool[], LanguageModelV3FunctionTool[]>();

/** The tools with a cache breakpoint on the last one (a copy; the list given is not changed). */
export function cacheTools(tools: readonly LanguageModelV3FunctionTool[]): LanguageModelV3FunctionTool[] {
  let out = markedTools.get(tools);
  if (!out) {
    out = tools.length ? [...tools.slice(0, -1), marked(tools.at(-1)!)] : [];
    markedTools.set(tools, out);
  }
  return out;
}

/**
 * The prompt with cache breakpoints on its system message, its last message and the last message
 * before its latest answer. The marked messages are copies: the prompt's messages are shared with
 * the history's cache of them (`history.ts`) and must not change.
 */
export function cachePrompt(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  // The system message (the last of the leading ones, where the package joins several).
  let system = -1;
  while (prompt[system + 1]?.role === 'system') system++;
  const last = prompt.length - 1;
  const previous = prompt.findLastIndex((m) => m.role === 'assistant') - 1;
  const at = new Set<number>();
  if (system >= 0) at.add(system);
  if (last > system) at.add(last);
  if (previous > system && prompt[previous]!.role !== 'assistant') at.add(previous);
  if (!at.size) return prompt;
  return prompt.map((message, i) => (at.has(i) ? (marked(message) as LanguageModelV3Message) : message));
}
